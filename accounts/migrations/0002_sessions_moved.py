"""Sessions made before this release move to accounts.UserSession with their
person's id, so nobody is signed out by the upgrade and "Sign out everywhere"
finds them too; expired ones are left behind. Rows move in batches (bounded
memory); each keeps its key, data and expiry as they were."""

from django.conf import settings
from django.contrib.auth import SESSION_KEY
from django.core import signing
from django.db import migrations
from django.utils import timezone
from django.utils.module_loading import import_string

BATCH = 1000
# The salt Django's database sessions sign with (both engines' stores are named
# SessionStore, so a session's data reads the same in either).
SALT = "django.contrib.sessions.SessionStore"


def _user_id(session_data):
    try:
        data = signing.loads(
            session_data, salt=SALT, serializer=import_string(settings.SESSION_SERIALIZER)
        )
        return int(data[SESSION_KEY])
    except (signing.BadSignature, ValueError, KeyError, TypeError):
        return None  # made under another secret key, or nobody signed in on it


def _move(source, target, make):
    now = timezone.now()
    batch = []
    for row in source.objects.filter(expire_date__gt=now).iterator(chunk_size=BATCH):
        batch.append(make(row))
        if len(batch) >= BATCH:
            target.objects.bulk_create(batch, ignore_conflicts=True)
            batch = []
    target.objects.bulk_create(batch, ignore_conflicts=True)
    source.objects.all().delete()


def forwards(apps, schema_editor):
    user_session = apps.get_model("accounts", "UserSession")
    _move(
        apps.get_model("sessions", "Session"),
        user_session,
        lambda row: user_session(
            session_key=row.session_key,
            session_data=row.session_data,
            expire_date=row.expire_date,
            user_id=_user_id(row.session_data),
        ),
    )


def backwards(apps, schema_editor):
    session = apps.get_model("sessions", "Session")
    _move(
        apps.get_model("accounts", "UserSession"),
        session,
        lambda row: session(
            session_key=row.session_key,
            session_data=row.session_data,
            expire_date=row.expire_date,
        ),
    )


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0001_initial"),
        ("sessions", "0001_initial"),
    ]

    operations = [migrations.RunPython(forwards, backwards)]
