"""A person's projects out of the trash never share a name: the ones that do
already are numbered first, the oldest keeping its name ("Crumb", "Crumb (2)"),
compared as projects.lifecycle compares them (case and spacing aside). And a
site remembers the check's findings its owner published anyway."""

import itertools
import re

import django.db.models.functions.text
from django.conf import settings
from django.db import migrations, models

MAX_NAME = 100  # projects.lifecycle.MAX_NAME
NUMBERED = re.compile(r"(?P<base>.*\S) \((?P<number>[0-9]{1,9})\)")


def _key(name):
    return " ".join(name.split()).casefold()


def _free(name, taken):
    numbered = NUMBERED.fullmatch(name)
    base, first = (numbered["base"], int(numbered["number"]) + 1) if numbered else (name, 2)
    for number in itertools.count(first):
        suffix = f" ({number})"
        candidate = base[: MAX_NAME - len(suffix)].rstrip() + suffix
        if _key(candidate) not in taken:
            return candidate


def number_shared_names(apps, schema_editor):
    Project = apps.get_model("projects", "Project")
    live = Project.objects.filter(deleted_at__isnull=True).order_by("owner_id", "created_at", "pk")
    owner, taken = None, set()
    for project in live.only("pk", "owner_id", "name").iterator(chunk_size=500):
        if project.owner_id != owner:
            owner = project.owner_id
            names = live.filter(owner_id=owner).values_list("name", flat=True)
            taken = {_key(name) for name in names}
            seen = set()
        if _key(project.name) in seen:
            project.name = _free(project.name, taken)
            taken.add(_key(project.name))
            Project.objects.filter(pk=project.pk).update(name=project.name)
        seen.add(_key(project.name))


class Migration(migrations.Migration):

    dependencies = [
        ("projects", "0013_domain_proofs"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name="site",
            name="accepted_findings",
            field=models.JSONField(blank=True, default=dict, editable=False),
        ),
        migrations.RunPython(number_shared_names, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name="project",
            constraint=models.UniqueConstraint(
                models.F("owner"),
                django.db.models.functions.text.Lower("name"),
                condition=models.Q(("deleted_at__isnull", True)),
                name="project_unique_live_name",
            ),
        ),
    ]
