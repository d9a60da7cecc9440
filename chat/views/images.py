"""Pictures with a chat message: upload from the message box, show (to its
uploader until sent, then to anyone the project is shared with), and save into
the project (chat.images does the work)."""

from __future__ import annotations

import uuid

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST
from django_htmx.http import retarget

from chat import images
from common.users import current_user
from projects.access import project_for
from projects.files.results import FileError
from projects.web.responses import changed_response


@require_POST
def image_upload(request: HttpRequest, project_id: uuid.UUID) -> HttpResponse:
    project = project_for(request, project_id, "chat")
    upload = request.FILES.get("image")
    if upload is None:
        return JsonResponse({"error": "Choose a picture to attach."}, status=400)
    result = images.image_upload(
        user=current_user(request),
        project=project,
        name=upload.name or "picture",
        content_type=upload.content_type or "",
        data=upload.read(settings.BUILTIT_MAX_CHAT_IMAGE_BYTES + 1),
    )
    if isinstance(result, images.ImageRefused):
        return JsonResponse({"error": result.message}, status=422)
    url = reverse("chat_image", kwargs={"image_id": result.pk})
    return JsonResponse({"id": result.pk, "name": result.name, "url": url})


@require_GET
def image_show(request: HttpRequest, image_id: int) -> HttpResponse:
    image = images.image_get_for(user=request.user, image_id=image_id)
    if image is None:
        raise Http404("No such picture.")
    response = HttpResponse(bytes(image.data), content_type=image.content_type)
    response["Content-Security-Policy"] = "sandbox; default-src 'none'"
    response["X-Content-Type-Options"] = "nosniff"
    response["Cache-Control"] = "private, max-age=86400"
    return response


@require_POST
def image_to_project(request: HttpRequest, image_id: int) -> HttpResponse:
    """ "Add to project": the picture becomes /images/<name>, opened in the editor."""
    image = images.image_get_for(user=request.user, image_id=image_id)
    if image is None:
        raise Http404("No such picture.")
    project = project_for(request, image.project_id, "edit")
    result = images.image_to_project(image=image, user=current_user(request))
    if isinstance(result, FileError):
        response = HttpResponse(result.message, status=422)
        return retarget(response, "#new-file-error")
    return changed_response(request, project, result.path, written=result)
