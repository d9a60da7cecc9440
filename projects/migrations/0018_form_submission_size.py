"""FormSubmission.size: the characters of its text, summed for the project's
bound on what its forms keep (BUILTIT_FORMS_MAX_KEPT_BYTES); rows kept before
it are measured once here."""

from django.db import migrations, models
from django.db.models.functions import Length


def _measure(apps, schema_editor):
    submissions = apps.get_model("projects", "FormSubmission")
    submissions.objects.update(size=Length("text"))


class Migration(migrations.Migration):
    dependencies = [
        ("projects", "0017_revision_notes"),
    ]

    operations = [
        migrations.AddField(
            model_name="formsubmission",
            name="size",
            field=models.PositiveIntegerField(default=0, editable=False),
        ),
        migrations.RunPython(_measure, migrations.RunPython.noop),
        migrations.AddIndex(
            model_name="formsubmission",
            index=models.Index(fields=["project", "size"], name="projects_fo_kept_size"),
        ),
    ]
