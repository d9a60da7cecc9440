"""Staff views of files. Writes go through the file service, so the admin obeys
the same path rules and limits and leaves a revision."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin
from django.db import transaction
from django.db.models import QuerySet
from django.http import HttpRequest

from common.sizes import human_size
from common.users import current_user
from projects.files.paths import PathError, normalize_path
from projects.files.results import FileError, FileWrite
from projects.models import ProjectFile
from projects.services import Author, file_create, file_delete, file_rename, file_update


class _Refused(Exception):
    def __init__(self, error: FileError) -> None:
        super().__init__(error.message)
        self.error = error


class ProjectFileForm(forms.ModelForm[ProjectFile]):
    """Writes through the file service while validating, so its refusals show as form errors."""

    author: Author | None = None
    # Text exactly as typed: no stripping of leading or trailing whitespace.
    content = forms.CharField(
        required=False,
        strip=False,
        widget=forms.Textarea(attrs={"rows": 30, "cols": 100, "spellcheck": "false"}),
    )
    # The version the form was opened at: a save over a newer change is refused.
    loaded_version = forms.IntegerField(widget=forms.HiddenInput, required=False)

    class Meta:
        model = ProjectFile
        fields = ["project", "path", "content"]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if self.instance.pk is not None:
            self.fields["loaded_version"].initial = self.instance.version

    def clean_path(self) -> str:
        result = normalize_path(self.cleaned_data.get("path", ""))
        if isinstance(result, PathError):
            raise forms.ValidationError(result.message)
        return result

    def clean_content(self) -> str:
        content: str = self.cleaned_data.get("content", "")
        # Browsers send a textarea's lines with CRLF; keep the file's own endings.
        original = self.instance.content if self.instance.pk is not None else ""
        return content if "\r\n" in original else content.replace("\r\n", "\n")

    def _get_validation_exclusions(self) -> set[str]:
        # The file service checks uniqueness (including case-only clashes) itself.
        exclusions: set[str] = super()._get_validation_exclusions()  # type: ignore[misc]
        return {*exclusions, "path", "project"}

    def _post_clean(self) -> None:
        # After Django's own validation of the fields, before the form counts as valid.
        super()._post_clean()  # type: ignore[misc]
        if self.errors or self.author is None:
            return
        try:
            with transaction.atomic():
                self._write(self.author)
        except _Refused as refused:
            self.add_error(None, refused.error.message)

    def _write(self, author: Author) -> None:
        wanted = self.instance
        if wanted.pk is None:
            _check(
                file_create(
                    project=wanted.project, path=wanted.path, content=wanted.content, author=author
                )
            )
            return
        original = ProjectFile.objects.get(pk=wanted.pk)
        version = self.cleaned_data.get("loaded_version") or original.version
        if wanted.path != original.path:
            renamed = _check(
                file_rename(
                    project=original.project,
                    path=original.path,
                    new_path=wanted.path,
                    author=author,
                    expected_version=version,
                )
            )
            version = renamed.version
        if wanted.content != original.content:
            _check(
                file_update(
                    project=original.project,
                    path=wanted.path,
                    content=wanted.content,
                    author=author,
                    expected_version=version,
                )
            )


def _check(result: FileWrite | FileError) -> FileWrite:
    if isinstance(result, FileError):
        raise _Refused(result)
    return result


@admin.register(ProjectFile)
class ProjectFileAdmin(admin.ModelAdmin[ProjectFile]):
    form = ProjectFileForm
    list_display = ["path", "project", "size_display", "version", "updated_at"]
    list_filter = ["updated_at"]
    search_fields = ["path", "project__name", "project__owner__username"]
    list_select_related = ["project", "project__owner"]
    raw_id_fields = ["project"]
    readonly_fields = ["size", "version", "created_at", "updated_at"]

    @admin.display(description="size", ordering="size")
    def size_display(self, record: ProjectFile) -> str:
        return human_size(record.size)

    def get_readonly_fields(
        self, request: HttpRequest, obj: ProjectFile | None = None
    ) -> list[str] | tuple[str, ...]:
        # A file belongs to its project for life; moving it would bypass its limits.
        fields = list(super().get_readonly_fields(request, obj))
        return [*fields, "project"] if obj is not None else fields

    def get_form(
        self,
        request: HttpRequest,
        obj: ProjectFile | None = None,
        change: bool = False,
        **kwargs: Any,
    ) -> type[forms.ModelForm[ProjectFile]]:
        form = super().get_form(request, obj, change, **kwargs)
        author = Author.person(current_user(request))
        return type("ProjectFileFormForUser", (form,), {"author": author})

    def save_model(self, request: HttpRequest, obj: ProjectFile, form: Any, change: bool) -> None:
        # The form already wrote through the file service; pick up what it stored.
        stored = ProjectFile.objects.get(project=obj.project, path=obj.path)
        obj.pk, obj.size, obj.version = stored.pk, stored.size, stored.version

    def delete_model(self, request: HttpRequest, obj: ProjectFile) -> None:
        author = Author.person(current_user(request))
        file_delete(project=obj.project, path=obj.path, author=author)

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[ProjectFile]) -> None:
        for record in queryset.select_related("project"):
            self.delete_model(request, record)
