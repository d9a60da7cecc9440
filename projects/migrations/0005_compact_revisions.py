"""History stored compactly: each revision's texts move into compressed blobs,
stored once per project. Every existing revision stays readable; the
reverse puts the texts back into the old columns. The old columns go in 0006, a
migration of its own: PostgreSQL refuses to alter a table in the transaction
that has just updated its rows under deferred foreign keys."""

import hashlib
import zlib

import django.db.models.deletion
from django.db import migrations, models


def _blob(RevisionBlob, cache, project_id, text):
    if text is None:
        return None
    raw = text.encode("utf-8", "surrogatepass")
    digest = hashlib.sha256(raw).hexdigest()
    key = (project_id, digest)
    if key not in cache:
        data = zlib.compress(raw, 6)
        cache[key], _ = RevisionBlob.objects.get_or_create(
            project_id=project_id,
            digest=digest,
            defaults={"data": data, "size": len(raw), "chars": len(text), "stored_size": len(data)},
        )
    return cache[key]


def to_blobs(apps, schema_editor):
    FileRevision = apps.get_model("projects", "FileRevision")
    RevisionBlob = apps.get_model("projects", "RevisionBlob")
    cache = {}
    rows = FileRevision.objects.order_by("project_id", "id")
    for row in rows.iterator(chunk_size=200):
        row.before = _blob(RevisionBlob, cache, row.project_id, row.content_before)
        row.after = _blob(RevisionBlob, cache, row.project_id, row.content_after)
        row.save(update_fields=["before", "after"])
        if len(cache) > 2000:
            cache.clear()  # bounded memory on a large history


def to_texts(apps, schema_editor):
    FileRevision = apps.get_model("projects", "FileRevision")

    def text(blob):
        if blob is None:
            return None
        stored = zlib.decompress(bytes(blob.data)).decode("utf-8", "surrogatepass")
        if blob.base_id is None:
            return stored
        base = text(blob.base)  # a blob made after this migration keeps only a change
        return base[: blob.prefix] + stored + base[len(base) - blob.suffix :]

    for row in FileRevision.objects.select_related("before", "after").iterator(chunk_size=200):
        row.content_before = text(row.before)
        row.content_after = text(row.after)
        row.save(update_fields=["content_before", "content_after"])


class Migration(migrations.Migration):
    dependencies = [
        ("projects", "0004_project_trash"),
    ]

    operations = [
        migrations.CreateModel(
            name="RevisionBlob",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("digest", models.CharField(help_text="SHA-256 of the UTF-8 text.", max_length=64)),
                (
                    "data",
                    models.BinaryField(
                        help_text="UTF-8, zlib-compressed: the text, or with a base the part "
                        "between prefix and suffix."
                    ),
                ),
                ("prefix", models.PositiveIntegerField(default=0, help_text="Characters kept from base's start.")),
                ("suffix", models.PositiveIntegerField(default=0, help_text="Characters kept from base's end.")),
                ("depth", models.PositiveSmallIntegerField(default=0, help_text="Bases below this one.")),
                ("size", models.PositiveIntegerField(help_text="Bytes of the text.")),
                ("chars", models.PositiveIntegerField(help_text="Characters of the text.")),
                ("stored_size", models.PositiveIntegerField(help_text="Bytes as stored.")),
                (
                    "base",
                    models.ForeignKey(
                        blank=True, null=True, on_delete=django.db.models.deletion.CASCADE,
                        related_name="+", to="projects.revisionblob",
                    ),
                ),
                (
                    "project",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="revision_blobs",
                        to="projects.project",
                    ),
                ),
            ],
            options={
                "constraints": [
                    models.UniqueConstraint(fields=("project", "digest"), name="revisionblob_unique_text")
                ],
            },
        ),
        migrations.AddField(
            model_name="filerevision",
            name="after",
            field=models.ForeignKey(
                blank=True, null=True, on_delete=django.db.models.deletion.CASCADE,
                related_name="+", to="projects.revisionblob",
            ),
        ),
        migrations.AddField(
            model_name="filerevision",
            name="before",
            field=models.ForeignKey(
                blank=True, null=True, on_delete=django.db.models.deletion.CASCADE,
                related_name="+", to="projects.revisionblob",
            ),
        ),
        migrations.RunPython(to_blobs, to_texts),
    ]
