"""The texts moved into RevisionBlob in 0005; their old columns go."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("projects", "0005_compact_revisions"),
    ]

    operations = [
        migrations.RemoveField(model_name="filerevision", name="content_after"),
        migrations.RemoveField(model_name="filerevision", name="content_before"),
    ]
