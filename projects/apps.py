from __future__ import annotations

from django.apps import AppConfig

from projects.files.media.images import pillow_configure


class ProjectsConfig(AppConfig):
    name = "projects"
    verbose_name = "Projects"

    def ready(self) -> None:
        pillow_configure()
        # Imported for what importing does: the checks register.
        from projects import checks  # noqa: F401, PLC0415
        from projects.publish import live_sites, services  # noqa: PLC0415  (they read models)

        live_sites.connect()
        services.connect()
