from __future__ import annotations

from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_not_required
from django.templatetags.static import static
from django.urls import include, path
from django.views.generic import RedirectView

from accounts.views import PasswordChange, signup
from builtit.health import healthz
from chat.git_access import git_caller
from chat.views.settings import settings_page, sign_out_everywhere
from projects.git.http import git_address_page, git_view

# The admin says whose it is: staff run Built-It from here.
admin.site.site_header = "Built-It administration"
admin.site.site_title = "Built-It admin"
admin.site.index_title = "Projects, people, chats and limits"

urlpatterns = [
    path("admin/", admin.site.urls),
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("accounts/signup/", signup, name="signup"),
    path("accounts/password/", PasswordChange.as_view(), name="password_change"),
    path(
        "accounts/password/done/",
        auth_views.PasswordChangeDoneView.as_view(),
        name="password_change_done",
    ),
    path(
        "accounts/sign-out-everywhere/",
        sign_out_everywhere,
        name="sign_out_everywhere",
    ),
    path("settings/", settings_page, name="settings"),
    path("healthz", healthz, name="healthz"),
    # A project as a Git repository; chat knows the access tokens it signs in with.
    path("git/<uuid:project_id>.git", git_address_page, name="git_repository"),
    path(
        "git/<uuid:project_id>.git/<path:action>",
        git_view(authenticate=git_caller),
        name="git",
    ),
    path(
        "favicon.ico",
        login_not_required(RedirectView.as_view(url=static("builtit/favicon.svg"))),
    ),
    path("", include("chat.urls")),
    path("", include("projects.urls")),
]

handler400 = "builtit.errors.bad_request"
handler403 = "builtit.errors.forbidden"
handler404 = "builtit.errors.not_found"
handler500 = "builtit.errors.server_error"
