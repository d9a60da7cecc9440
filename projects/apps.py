from __future__ import annotations

from django.apps import AppConfig

from projects.files.media.images import pillow_configure


class ProjectsConfig(AppConfig):
    name = "projects"
    verbose_name = "Projects"

    def ready(self) -> None:
        pillow_configure()
        # checks: imported for what importing does, they register. The others read models.
        from projects import checks, live_previews  # noqa: F401, PLC0415
        from projects.publish import live_sites, services  # noqa: PLC0415

        live_previews.connect()
        live_sites.connect()
        services.connect()
