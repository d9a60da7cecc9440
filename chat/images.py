"""Pictures with a chat message: uploaded from the message box
(paste, drop, a button), checked like any image file (projects.files.binaries), sent
with the next message to a model that reads images, kept with that message,
and savable into the project.

Bounds: bytes per image, images per message, and images waiting in a person's
message boxes (the oldest waiting ones go first, and any left unsent for a
day are swept). Pictures count in the person's storage quota, like their
projects' files (`KEEPER`, registered with projects.usage).
"""

from __future__ import annotations

import base64
import fnmatch
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.contrib.auth.models import AnonymousUser, User
from django.db import transaction
from django.db.models import Q, Sum
from django.utils import timezone

from chat.models import ChatImage
from common.refusals import Refusal
from common.sizes import human_size
from projects.access import projects_visible_to
from projects.files.binaries import BinaryRefused, Sniffed, checked, sniff
from projects.files.limits import current_limits, storage_problem
from projects.files.paths import extension_of
from projects.files.results import FileError, FileWrite
from projects.models import Project
from projects.services import Author, file_upload
from projects.usage import Keeper, storage_used

_IMAGE_EXTENSIONS = frozenset({"png", "jpg", "jpeg", "gif", "webp"})
_NOT_A_PICTURE = "Attach a PNG, JPEG, GIF or WebP picture."
_EXTENSION_OF = {"image/png": "png", "image/jpeg": "jpg", "image/gif": "gif", "image/webp": "webp"}
MAX_WAITING = 20  # uploaded, not yet sent, per person
WAITING_KEPT = timedelta(days=1)  # then an unsent picture is swept


@dataclass(frozen=True)
class ImageRefused(Refusal):
    """A picture not taken into the chat, and why."""


def image_upload(
    *, user: User, project: Project, name: str, content_type: str, data: bytes
) -> ChatImage | ImageRefused:
    limit = settings.BUILTIT_MAX_CHAT_IMAGE_BYTES
    if len(data) > limit:
        return ImageRefused(
            f"{name} is {human_size(len(data))}; a picture in the chat may be at most "
            f"{human_size(limit)}."
        )
    extension = _EXTENSION_OF.get(content_type) or extension_of(name or "x")
    if extension not in _IMAGE_EXTENSIONS:
        return ImageRefused(_NOT_A_PICTURE)
    # What it is comes from its bytes: a pasted picture's label may say otherwise.
    # Any other type is checked as the label says, which says what is wrong.
    claimed = sniff(data)
    extension = _EXTENSION_OF.get(claimed or "", extension)
    found = checked(name or "picture", extension, data)
    if isinstance(found, BinaryRefused):
        return ImageRefused(found.message)
    return _kept(user, project, name, data, found)


@transaction.atomic
def _kept(
    user: User, project: Project, name: str, data: bytes, found: Sniffed
) -> ChatImage | ImageRefused:
    # The person's row is held, as every write that counts their storage holds
    # it: two uploads at once cannot both pass the quota, nor both keep a place
    # among the waiting pictures.
    User.objects.select_for_update().filter(pk=user.pk).first()
    limits = current_limits()
    if limits.max_user_storage_bytes:
        full = storage_problem(name, storage_used(user.pk), len(data), limits)
        if full is not None:
            return ImageRefused(full.message)  # before anything is let go
    waiting = ChatImage.objects.filter(user=user, message__isnull=True).order_by("-created_at")
    stale = list(waiting.values_list("pk", flat=True)[MAX_WAITING - 1 :])
    ChatImage.objects.filter(pk__in=stale).delete()
    return ChatImage.objects.create(
        user=user,
        project=project,
        name=_clean_name(name, _EXTENSION_OF[found.content_type]),
        content_type=found.content_type,
        size=len(data),
        width=found.width,
        height=found.height,
        data=data,
    )


def images_waiting(
    *, user: User, project: Project, ids: list[int]
) -> list[ChatImage] | ImageRefused:
    """The person's pictures `ids`, waiting in this project's message box, in order."""
    if len(ids) > settings.BUILTIT_MAX_CHAT_IMAGES:
        return ImageRefused(
            f"A message may carry at most {settings.BUILTIT_MAX_CHAT_IMAGES} pictures."
        )
    found = {
        image.pk: image
        for image in ChatImage.objects.filter(
            pk__in=ids, user=user, project=project, message__isnull=True
        )
    }
    if len(found) != len(set(ids)):
        return ImageRefused("A picture of this message is gone; attach it again.")
    return [found[pk] for pk in ids]


def images_as_urls(ids: list[int]) -> list[str]:
    """The pictures `ids` as data: URLs, in order (those that still exist)."""
    found = {image.pk: image for image in ChatImage.objects.filter(pk__in=ids)}
    return [data_url(found[pk]) for pk in ids if pk in found]


def data_url(image: ChatImage) -> str:
    return f"data:{image.content_type};base64,{base64.b64encode(bytes(image.data)).decode()}"


def reads_images(model: str, listed: dict[str, frozenset[str]] | None = None) -> bool:
    """Whether `model` takes pictures: as the provider's model list says (its input
    modalities), or, for a model the list does not have (or with no list: offline,
    a local server), as BUILTIT_IMAGE_MODELS says."""
    if listed is not None and model in listed:
        return "image" in listed[model]
    return any(fnmatch.fnmatch(model, pattern) for pattern in settings.BUILTIT_IMAGE_MODELS)


def image_get_for(*, user: User | AnonymousUser, image_id: int) -> ChatImage | None:
    """A picture in a project `user` may look at (their own or shared), or None.
    One not yet sent with a message is its uploader's alone: it waits in their
    message box, and the people the project is shared with see it once sent."""
    visible = projects_visible_to(user).values("pk")
    sent_or_mine = Q(message__isnull=False) | Q(user_id=user.pk)
    return ChatImage.objects.filter(sent_or_mine, pk=image_id, project__in=visible).first()


def image_to_project(
    *, image: ChatImage, user: User, folder: str = "images"
) -> FileWrite | FileError:
    """The picture as a project file, under `folder`, so the site can use it."""
    return file_upload(
        project=image.project,
        path=f"/{folder}/{image.name}",
        data=bytes(image.data),
        author=Author.person(user),
    )


def pictures_stored(user_id: int) -> int:
    """Bytes of a person's chat pictures, sent or waiting."""
    total = ChatImage.objects.filter(user_id=user_id).aggregate(total=Sum("size"))["total"]
    return int(total or 0)


def pictures_sweep() -> int:
    """Pictures left unsent in a message box for over a day: how many went."""
    cutoff = timezone.now() - WAITING_KEPT
    deleted, _ = ChatImage.objects.filter(message__isnull=True, created_at__lt=cutoff).delete()
    return deleted


KEEPER = Keeper("chat pictures", pictures_stored, pictures_sweep)


def _clean_name(name: str, extension: str) -> str:
    stem = "".join(c if c.isalnum() or c in "-_" else "-" for c in (name or "").rsplit(".", 1)[0])
    stem = stem.strip("-_")[:60] or "picture"
    return f"{stem}.{extension}"
