"""Settings, read from environment variables; docs/configuration.md lists every one."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import django_stubs_ext
from csp.constants import NONE, SELF, UNSAFE_INLINE

from builtit.env import (
    env_bool,
    env_database,
    env_float,
    env_int,
    env_list,
    env_log_level,
    env_origin,
    env_str,
    persistent_secret_key,
)

# The chat's settings (builtit.settings_chat), by name: Django reads them here.
from builtit.settings_chat import (  # noqa: F401
    BUILTIT_APP_TITLE,
    BUILTIT_APP_URL,
    BUILTIT_CHAT_PAGE_TURNS,
    BUILTIT_COMPACTION,
    BUILTIT_DEFAULT_CONTEXT_TOKENS,
    BUILTIT_DEFAULT_MODEL,
    BUILTIT_DEMO_ENABLED,
    BUILTIT_DEMO_PAUSE,
    BUILTIT_HISTORY_TOKENS,
    BUILTIT_IMAGE_MODELS,
    BUILTIT_MAX_ANSWER_BYTES,
    BUILTIT_MAX_ANSWER_TOKENS,
    BUILTIT_MAX_CHAT_IMAGE_BYTES,
    BUILTIT_MAX_CHAT_IMAGES,
    BUILTIT_MAX_FRAME_BYTES,
    BUILTIT_MAX_ITERATIONS,
    BUILTIT_MAX_MESSAGE_CHARS,
    BUILTIT_MAX_SOCKETS_PER_ADDRESS,
    BUILTIT_MAX_TOOL_CALLS_PER_ANSWER,
    BUILTIT_MAX_TURNS_PER_PERSON,
    BUILTIT_MODELS,
    BUILTIT_PROJECT_COST_LIMIT,
    BUILTIT_REQUEST_TIME_LIMIT,
    BUILTIT_TOOL_TIMEOUT,
    BUILTIT_TURN_COST_LIMIT,
    BUILTIT_TURN_TIME_LIMIT,
    BUILTIT_USER_DAILY_COST_LIMIT,
    BUILTIT_USER_MONTHLY_COST_LIMIT,
    OPENROUTER_API_KEY,
    OPENROUTER_BASE_URL,
    OPENROUTER_CONNECT_TIMEOUT,
    OPENROUTER_MAX_RETRIES,
    OPENROUTER_READ_TIMEOUT,
    OPENROUTER_RETRY_MAX_WAIT,
)
from common.sites import sites_allowed_hosts

# Lets admin.ModelAdmin[Project] and friends be subscripted at run time, as mypy wants.
django_stubs_ext.monkeypatch()

BASE_DIR = Path(__file__).resolve().parent.parent
DATA_DIR = Path(env_str("BUILTIT_DATA_DIR", str(BASE_DIR / "var"))).resolve()

DEBUG = env_bool("DEBUG", False)
SECRET_KEY = env_str("SECRET_KEY", "") or persistent_secret_key(DATA_DIR)
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "127.0.0.1,localhost,[::1]")
# Where project content (previews, published sites) is served: never the app's
# origin (common.sites, projects.web.sites). Unset: "sites." before the name the
# app is reached by; http://sites.localhost:8000 under `make run`.
BUILTIT_SITES_ORIGIN = env_origin("BUILTIT_SITES_ORIGIN")
ALLOWED_HOSTS += sites_allowed_hosts(ALLOWED_HOSTS, BUILTIT_SITES_ORIGIN)
# Each published site on a host of its own, <name>.<sites host> (an origin of its
# own: a password's cookie, storage no other site reads); needs a wildcard DNS
# record and certificate in production. Off: every site at /s/<name>/ of the
# sites host, sandboxed, and none may have a password.
BUILTIT_SITES_SUBDOMAINS = env_bool("BUILTIT_SITES_SUBDOMAINS", True)
# The resolvers asked for the TXT record that proves a site's own domain
# (projects.publish.dns_records): comma-separated `host` or `host:port`
# addresses; empty: the system's (/etc/resolv.conf).
BUILTIT_DNS_SERVERS = env_str("BUILTIT_DNS_SERVERS", "")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", "")

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "channels",
    "django_htmx",
    "django_ace",
    "axes",
    "csp",
    "accounts",
    "projects",
    "chat",
    "demo",
]

MIDDLEWARE = [
    # Before anything could hand the request's text to the database: a NUL in its
    # address, query or headers is a 400 (common.text.storable).
    "builtit.storable_requests.StorableRequestMiddleware",
    # Then: it answers the sites origin's requests itself (none of the app's
    # middleware, sessions to CSP, has anything to do there), and a site's own
    # domain is a host no setting names.
    "builtit.sites_origin.SitesOriginMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "builtit.middleware.SignInRequiredMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "csp.middleware.CSPMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    # Last, as django-axes asks: it answers a locked-out sign-in.
    "axes.middleware.AxesMiddleware",
]

# The app's own pages run only our scripts, from our origin: no inline script,
# no eval (htmx's is off in base.html), no plugins, forms and frames to us only
# (the workspace adds the sites origin to frame-src for its preview). Inline
# styles stay allowed: Ace and the admin set them, and a style cannot run code.
# The sites origin's responses set their own policy (builtit.sites_origin).
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF, UNSAFE_INLINE],
        "img-src": [SELF, "data:"],
        "font-src": [SELF, "data:"],
        "connect-src": [SELF],
        "worker-src": [SELF, "blob:"],
        "frame-src": [SELF],
        "frame-ancestors": [SELF],
        "object-src": [NONE],
        "base-uri": [SELF],
        "form-action": [SELF],
    },
}

ROOT_URLCONF = "builtit.urls"
ASGI_APPLICATION = "builtit.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "builtit.context.site",
            ],
        },
    },
]

# --- Data -----------------------------------------------------------------

_SQLITE_DEFAULT = f"sqlite:///{DATA_DIR / 'db.sqlite3'}"
DATABASES = {
    "default": env_database(
        # Connections kept a minute (checked before reuse): opening one per step
        # cost PostgreSQL a new backend process each time, the most CPU of a
        # busy server's database (bench/ws_fanout.py --processes 2).
        "DATABASE_URL",
        _SQLITE_DEFAULT,
        conn_max_age=env_int("DATABASE_CONN_MAX_AGE", 60),
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    DATA_DIR.mkdir(parents=True, exist_ok=True)
    # A local file: reopening it (and re-running the PRAGMAs) for every chat
    # step costs more than keeping it open, so connections live unless told.
    DATABASES["default"]["CONN_MAX_AGE"] = env_int("DATABASE_CONN_MAX_AGE", 600)
    DATABASES["default"]["OPTIONS"] = {
        # IMMEDIATE: a write transaction takes the lock when it begins, so the
        # file service's read-check-write steps cannot interleave.
        "transaction_mode": "IMMEDIATE",
        "timeout": 20,
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
    }

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

_REDIS_URL = env_str("REDIS_URL", "")
# Redis for what the processes share: the socket counts per address
# (chat.live.socket_counts) and, through the channel layer, everything a tab
# receives from another process (chat.live.relay); without it a process serves
# only its own tabs.
BUILTIT_LIVE_REDIS_URL = _REDIS_URL
# Seconds a person stays listed as having a project open after their server
# process died (chat.live.presence; renewed every third of it).
BUILTIT_PRESENCE_LAPSE = env_float("BUILTIT_PRESENCE_LAPSE", 90.0, minimum=1.0)
CHANNEL_LAYERS = {
    "default": {
        # One route to every tab, in process and, with REDIS_URL, across
        # processes (chat.live.layer). A channel holds at most `capacity`
        # messages; a turn's events merge into the batch already waiting, so
        # only a slow tab's other messages count toward it.
        "BACKEND": "chat.live.layer.LiveLayer",
        "CONFIG": {"redis_url": _REDIS_URL, "capacity": 2000},
    }
}
if _REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": _REDIS_URL,
        }
    }

# Where binary files' bytes live (projects.files.binaries): "database" (the default,
# nothing else to run), or "storage": Django's default storage (STORAGES), a
# folder or an S3-compatible store through django-storages.
BUILTIT_BINARY_STORAGE = env_str("BUILTIT_BINARY_STORAGE", "database").strip()
# The default storage: a folder in the data directory (replace "default" with
# django-storages' S3 backend for an S3-compatible store).
MEDIA_ROOT = DATA_DIR / "files"
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
# Bytes one binary file may have (images, fonts, media, PDF).
BUILTIT_MAX_BINARY_BYTES = env_int("BUILTIT_MAX_BINARY_BYTES", 10 * 1024 * 1024)

# --- Accounts -------------------------------------------------------------

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "dashboard"
LOGOUT_REDIRECT_URL = "login"
# Open sign-up lets strangers spend the server's credits: off in production
# unless turned on (`make run` turns it on, for trying the product).
BUILTIT_ALLOW_SIGNUP = env_bool("BUILTIT_ALLOW_SIGNUP", DEBUG)
# Sign-up forms one address may send per hour, whatever their outcome: a name
# that is taken must be refused, so this is what bounds trying names (and making
# accounts by the dozen). 0: no bound.
BUILTIT_SIGNUP_ATTEMPTS = env_int("BUILTIT_SIGNUP_ATTEMPTS", 10, minimum=0)
# Database sessions that know whose they are, so that "Sign out everywhere" can
# end them all (accounts.sessions).
SESSION_ENGINE = "accounts.sessions"

# Sign-in throttling (django-axes), for the site's and the admin's sign-in alike:
# after BUILTIT_LOGIN_FAILURES wrong passwords for one account from one address,
# that pair waits BUILTIT_LOGIN_COOLOFF_MINUTES; a right password resets the count.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = env_int("BUILTIT_LOGIN_FAILURES", 5, minimum=1)
AXES_COOLOFF_TIME = timedelta(minutes=env_float("BUILTIT_LOGIN_COOLOFF_MINUTES", 15.0, minimum=0.1))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_TEMPLATE = "registration/locked_out.html"
AXES_VERBOSE = False
# The address counted is the one the edge decided (builtit.server.client_address), never
# one read from X-Forwarded-For by another library.
AXES_CLIENT_IP_CALLABLE = "builtit.server.client_address.request_address"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# --- Project files (DESIGN §3) ----------------------------------------------

BUILTIT_MAX_FILE_BYTES = env_int("BUILTIT_MAX_FILE_BYTES", 512 * 1024, minimum=1)
BUILTIT_MAX_FILES = env_int("BUILTIT_MAX_FILES", 300, minimum=1)
BUILTIT_MAX_PROJECT_BYTES = env_int("BUILTIT_MAX_PROJECT_BYTES", 10 * 1024 * 1024, minimum=1)
# Days a deleted project stays in the trash, restorable, before it is purged
# (`manage.py purge_trash`, e.g. daily from cron).
BUILTIT_TRASH_DAYS = env_int("BUILTIT_TRASH_DAYS", 30, minimum=1)
# Storage per person, across their projects: files and their history (stored
# compressed), the trash included. 0: no bound.
BUILTIT_MAX_USER_STORAGE_BYTES = env_int(
    "BUILTIT_MAX_USER_STORAGE_BYTES", 200 * 1024 * 1024, minimum=0
)
# A ZIP upload is refused past this size before it is even opened.
BUILTIT_MAX_IMPORT_BYTES = env_int("BUILTIT_MAX_IMPORT_BYTES", 20 * 1024 * 1024, minimum=1)
# A project's Git remote (and a Git URL to import) must be HTTPS on a public
# address; on, plain HTTP and private, loopback and link-local addresses are
# allowed too (a Git server on your own network; tests).
BUILTIT_GIT_PRIVATE_REMOTES = env_bool("BUILTIT_GIT_PRIVATE_REMOTES", False)
# The editor posts url-encoded forms, where one non-ASCII byte takes three
# characters (%XX): room for a full-size file of any text, plus the other fields.
DATA_UPLOAD_MAX_MEMORY_SIZE = BUILTIT_MAX_FILE_BYTES * 3 + 64 * 1024
FILE_UPLOAD_MAX_MEMORY_SIZE = 2 * 1024 * 1024
# Any other request body (sign-in, settings, small forms): refused with 413 by
# the server before it is read (builtit.server.bodylimit), like the two limits above.
BUILTIT_MAX_FORM_BYTES = env_int("BUILTIT_MAX_FORM_BYTES", 64 * 1024, minimum=1024)
# The larger limits above are for signed-in people: a request without a valid
# session gets this one on every route, decided from its cookie before its body
# is read. A request must keep coming: its head within BUILTIT_BODY_TIMEOUT
# seconds, then at least BUILTIT_BODY_MIN_RATE bytes of body a second over each
# such window, or it is answered 408 and closed (Apache httpd's defaults for
# the same check, mod_reqtimeout: a body of 20 s at 500 bytes a second).
BUILTIT_BODY_TIMEOUT = env_float("BUILTIT_BODY_TIMEOUT", 20.0, minimum=1.0)
BUILTIT_BODY_MIN_RATE = env_int("BUILTIT_BODY_MIN_RATE", 500, minimum=1)

# --- Forms on published sites (projects.publish.forms) ----------------------

# A form's submission is a stranger's POST to the sites origin: refused with 413
# past this many bytes before it is read (builtit.server.bodylimit).
BUILTIT_FORMS_MAX_BYTES = env_int("BUILTIT_FORMS_MAX_BYTES", 64 * 1024, minimum=1024)
# Submissions one address may send to the server's sites in a minute, and one
# site may take from every address together; past them, 429 with Retry-After.
BUILTIT_FORMS_PER_ADDRESS = env_int("BUILTIT_FORMS_PER_ADDRESS", 10, minimum=1)
BUILTIT_FORMS_PER_SITE = env_int("BUILTIT_FORMS_PER_SITE", 120, minimum=1)
# Days a submission is kept; older ones go with the daily `manage.py purge_trash`.
BUILTIT_FORMS_RETENTION_DAYS = env_int("BUILTIT_FORMS_RETENTION_DAYS", 365, minimum=1)
# Submissions a project keeps at most, and characters of their fields together
# (strangers choose what is sent: without these, a robot rotating addresses
# could fill the disk within the per-site rate). Past either, spam is not kept,
# a real submission makes room by deleting the oldest spam, or else is refused
# with 507 (projects.publish.forms.services.submission_receive).
BUILTIT_FORMS_MAX_KEPT = env_int("BUILTIT_FORMS_MAX_KEPT", 10_000, minimum=1)
BUILTIT_FORMS_MAX_KEPT_BYTES = env_int(
    "BUILTIT_FORMS_MAX_KEPT_BYTES", 20 * 1024 * 1024, minimum=64 * 1024
)
# Submissions a process holds waiting for its forms' writer (one commit for all
# that queued meanwhile, projects.publish.forms.writer); past it, 503 with
# Retry-After and words: the database is not keeping up, and memory stays bounded.
BUILTIT_FORMS_QUEUE = env_int("BUILTIT_FORMS_QUEUE", 2000, minimum=1)

# Mail (each submission to its site's owner, or a daily digest): Django's own
# settings, from the environment. No EMAIL_HOST: nothing is mailed, and the
# inbox says so.
EMAIL_HOST = env_str("EMAIL_HOST", "").strip()
EMAIL_PORT = env_int("EMAIL_PORT", 587, minimum=1)
EMAIL_HOST_USER = env_str("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = env_str("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", EMAIL_PORT == 587)
EMAIL_USE_SSL = env_bool("EMAIL_USE_SSL", EMAIL_PORT == 465)
EMAIL_TIMEOUT = env_int("EMAIL_TIMEOUT", 10, minimum=1)
DEFAULT_FROM_EMAIL = env_str("DEFAULT_FROM_EMAIL", "Built-It <builtit@localhost>")
SERVER_EMAIL = DEFAULT_FROM_EMAIL
# Invitations by email one person may have mailed in a day (rolling 24 hours),
# over all their projects, and to any one address: each is a mail this server
# sends to an address a person typed. Taken back, an invitation still counts.
BUILTIT_INVITATIONS_PER_DAY = env_int("BUILTIT_INVITATIONS_PER_DAY", 20, minimum=1)
BUILTIT_INVITATIONS_PER_ADDRESS = env_int("BUILTIT_INVITATIONS_PER_ADDRESS", 3, minimum=1)

# --- Static files, i18n -----------------------------------------------------

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = DATA_DIR / "static"
STATIC_ROOT.mkdir(parents=True, exist_ok=True)
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = DEBUG

LANGUAGE_CODE = "en-us"
TIME_ZONE = env_str("TIME_ZONE", "UTC")
USE_I18N = True
USE_TZ = True

# --- Security -----------------------------------------------------------------

# Production (DEBUG=0) is served over HTTPS unless BUILTIT_HTTPS=0 says otherwise,
# e.g. `make run` on a laptop.
BUILTIT_HTTPS = env_bool("BUILTIT_HTTPS", not DEBUG)
SESSION_COOKIE_SECURE = BUILTIT_HTTPS
CSRF_COOKIE_SECURE = BUILTIT_HTTPS
if BUILTIT_HTTPS:
    # Names browsers keep to the app's own host (Secure, no Domain): a published
    # site's page on a sibling host (its own origin, and the same site) cannot
    # set one for the whole domain and sign a visitor in as someone else.
    SESSION_COOKIE_NAME = "__Host-sessionid"
    CSRF_COOKIE_NAME = "__Host-csrftoken"
SECURE_SSL_REDIRECT = BUILTIT_HTTPS
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 31_536_000 if BUILTIT_HTTPS else 0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = BUILTIT_HTTPS
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", False)
BUILTIT_BEHIND_PROXY = env_bool("BUILTIT_BEHIND_PROXY", False)
if BUILTIT_BEHIND_PROXY:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
# Proxies in front that append to X-Forwarded-For: the visitor is the entry this
# many places from the right (builtit.server.client_address); 0 ignores the header,
# which a server facing the internet directly must do (anyone can send one).
BUILTIT_TRUSTED_PROXIES = env_int("BUILTIT_TRUSTED_PROXIES", 1 if BUILTIT_BEHIND_PROXY else 0)
SESSION_COOKIE_HTTPONLY = True
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
CSRF_FAILURE_VIEW = "builtit.errors.csrf_failure"
# HSTS preloading binds the whole domain and its subdomains for months: the
# operator opts in with SECURE_HSTS_PRELOAD=1; the app does not decide it for them.
SILENCED_SYSTEM_CHECKS = ["security.W021"]

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env_log_level("LOG_LEVEL", "INFO")},
    "loggers": {
        "django.server": {"level": "INFO"},
        # One INFO line per model request is noise; failures are logged by chat.llm.
        "httpx": {"level": "WARNING"},
        "httpcore": {"level": "WARNING"},
        # dulwich logs each Git request's capabilities at INFO: noise.
        "dulwich": {"level": "WARNING"},
    },
}
# Seconds before a crashed server's hold on a project (one turn at a time) lapses;
# a running turn renews it every fifth of this, and the tabs check it as often,
# so a turn whose server died is found within 1.2 times this (chat.live.turns).
BUILTIT_TURN_LOCK_TTL = env_float("BUILTIT_TURN_LOCK_TTL", 10.0, minimum=3.0)
# Seconds a shutting-down process (SIGTERM) lets its running turns finish before
# it stops them as interrupted (chat.live.draining). The whole shutdown takes
# up to about 20 s more: keep the sum under what the process manager waits
# before SIGKILL (Kubernetes: 30 s by default; systemd: 90 s).
BUILTIT_SHUTDOWN_GRACE = env_float("BUILTIT_SHUTDOWN_GRACE", 20.0, minimum=0.0)
