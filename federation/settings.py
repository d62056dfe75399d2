"""The one settings module. Everything that differs between machines comes from the environment.

Embedded default (no environment set): an SQLite file and a serverless Celery broker (kombu's
filesystem transport) under the git-ignored ``var/`` folder. Production: ``DATABASE_URL`` (PostgreSQL)
and ``CELERY_BROKER_URL`` (Redis); see README.md.
"""

import contextlib
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured

from federation.environment import (
    env_bool,
    env_database,
    env_int,
    env_list,
    env_secret_key,
    env_str,
    env_time_zone,
    env_url,
)
from ratings.engine.rating_types import RATING_TYPES

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(env_str("FEDERATION_VAR_DIR", str(BASE_DIR / "var")))

DEBUG = env_bool("DEBUG", False)
# Production is DEBUG off with a real database (DATABASE_URL): it must set SECRET_KEY (or SECRET_KEY_FILE).
# Otherwise a key generated on first use is kept in var/secret-key.txt. (Before that file existed, DEBUG used
# the public key "development-only-key-never-used-in-production-1f4c9a7e"; check --deploy refuses any key
# starting "development-only-key", federation.E001.)
SECRET_KEY = env_secret_key(VAR_DIR, production=not DEBUG and bool(env_str("DATABASE_URL", "")))
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost", "testserver"] if DEBUG else [])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.humanize",
    "rest_framework",
    "rest_framework.authtoken",  # arbiters' personal API tokens (issue 15; managed in events/admin/tokens.py)
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_celery_beat",
    "simple_history",
    "axes",
    "health_check",
    "corsheaders",
    # Layers, top to bottom (each imports only those below it; .importlinter checks it).
    "federation",
    "public",
    "leagues",
    "membership",
    "ratings",
    "events",
    "players",
    "audit",
    "outbox",
    "core",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # Static files straight from the web process, compressed and with far-future caching (no nginx needed).
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "core.request_log.RequestLogMiddleware",
    "core.security.RequestScreeningMiddleware",
    *(["core.db_router.PublicReadsOnReplicaMiddleware"] if env_str("DATABASE_REPLICA_URL", "") else []),
    # Before CommonMiddleware (django-cors-headers' rule), so redirects and errors carry the CORS headers too.
    "corsheaders.middleware.CorsMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "simple_history.middleware.HistoryRequestMiddleware",
    # Last: turns a locked-out sign-in into the refusal page (core.security.sign_in_refused_response).
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "federation.urls"
WSGI_APPLICATION = "federation.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

DATABASES = {"default": env_database("DATABASE_URL", f"sqlite:///{VAR_DIR / 'db.sqlite3'}")}
if DATABASES["default"]["ENGINE"].endswith("sqlite3"):
    VAR_DIR.mkdir(parents=True, exist_ok=True)
    # A file (not :memory:) so that a Celery worker process started by the tests sees the test database.
    DATABASES["default"]["TEST"] = {"NAME": str(VAR_DIR / "test-db.sqlite3")}
else:
    # Test runs set a suffix so that concurrent runs on one server never share a test database.
    DATABASES["default"]["TEST"] = {"NAME": f"test_{DATABASES['default']['NAME']}{env_str('TEST_DATABASE_SUFFIX', '')}"}
if DATABASES["default"]["ENGINE"].endswith("postgresql"):
    # Bounded waits (docs/operations.md §5, from the measured publication: 27 s at 2 M players). 0 turns one off.
    # - lock_timeout: a publication waiting this long for the rating type's lock is waiting on a stuck holder
    #   (twice a whole publication); it gives up with an error and its task retries later.
    # - idle_in_transaction_session_timeout: a session silent inside its transaction this long (a stopped or
    #   hung worker) is ended by the server, which releases its locks; a publication's longest pause between
    #   statements (the engine run) is a fraction of its 27 s.
    # - statement_timeout: no statement of a request or a publication comes near it (ten times a publication).
    # - TCP keepalives, both ways: a host that vanished is noticed within about a minute, by the server (which
    #   then ends the session and frees its locks) and by the worker (which then stops waiting for an answer).
    _waits = {
        "statement_timeout": env_int("DATABASE_STATEMENT_TIMEOUT", 300, minimum=0),
        "lock_timeout": env_int("DATABASE_LOCK_TIMEOUT", 60, minimum=0),
        "idle_in_transaction_session_timeout": env_int("DATABASE_IDLE_IN_TRANSACTION_TIMEOUT", 60, minimum=0),
    }
    _keepalive = env_int("DATABASE_TCP_KEEPALIVE_SECONDS", 30, minimum=1)
    _server_options = {
        **{name: f"{seconds}s" for name, seconds in _waits.items()},
        "tcp_keepalives_idle": str(_keepalive),
        "tcp_keepalives_interval": "10",
        "tcp_keepalives_count": "3",
    }
    _given = DATABASES["default"].setdefault("OPTIONS", {}).get("options", "")  # DATABASE_URL's ?options= wins
    DATABASES["default"]["OPTIONS"].update(
        {
            "options": " ".join([*(f"-c {name}={value}" for name, value in _server_options.items()), _given]).strip(),
            "keepalives": 1,
            "keepalives_idle": _keepalive,
            "keepalives_interval": 10,
            "keepalives_count": 3,
            "connect_timeout": 10,
        }
    )
# A PostgreSQL streaming replica for public reads (pages and API GETs); writes, the admin and tasks use the
# primary (core/db_router.py). The replica's connection is REPEATABLE READ so that a page is one snapshot.
DATABASE_REPLICA_URL = env_str("DATABASE_REPLICA_URL", "")
if DATABASE_REPLICA_URL:
    from psycopg import IsolationLevel

    DATABASES["replica"] = env_database("DATABASE_REPLICA_URL", DATABASE_REPLICA_URL)
    if not DATABASES["replica"]["ENGINE"].endswith("postgresql"):
        raise ImproperlyConfigured("DATABASE_REPLICA_URL: the replica must be PostgreSQL (postgres://...)")
    DATABASES["replica"].setdefault("OPTIONS", {})["isolation_level"] = IsolationLevel.REPEATABLE_READ
    # Test runs read the test database through the replica alias too (a replica is a copy of the primary).
    DATABASES["replica"]["TEST"] = {"MIRROR": "default"}
    DATABASE_ROUTERS = ["core.db_router.ReplicaRouter"]
# Persistent connections on PostgreSQL (docs/operations.md §1.4): a web process keeps its connection for
# DATABASE_CONN_MAX_AGE seconds instead of opening one per request. A new connection is a new server process:
# measured on the 24-list history of bench/history.py (200,000 players), 4.4 ms to connect, and its first read of
# a player's lines across every list's partition took 8.9 ms against 2.2 ms on a warm connection (3.0 against
# 0.6 with 3 lists): the server loads each partition's catalogue entries once per connection, so with a
# connection per request every page paid for every list kept (issue 17). Health checks replace a connection
# the server closed (a restart, a terminated session) before a request uses it. 0 turns it off.
# Prepared statements on those connections: psycopg prepares a statement the fifth time a connection runs it
# (prepare_threshold; preparing needs server-side binding) and PostgreSQL reuses its plan from then on. Planning is
# what grew with the lists kept: a read of a player's lines across every list's partition, warm, took 0.45 ms with 3
# lists and 2.4 ms with 26, prepared 0.07 and 0.2 ms (docs/operations.md §1.4). Off with
# DATABASE_PREPARED_STATEMENTS=0 behind a pooler in transaction mode, which cannot keep a session's statements.
_conn_max_age = env_int("DATABASE_CONN_MAX_AGE", 60, minimum=0)
_prepared = env_bool("DATABASE_PREPARED_STATEMENTS", True)
for _alias in DATABASES.values():
    if _alias["ENGINE"].endswith("postgresql"):
        _alias["CONN_MAX_AGE"] = _conn_max_age
        _alias["CONN_HEALTH_CHECKS"] = True
        if _prepared:
            _alias.setdefault("OPTIONS", {}).update(server_side_binding=True, prepare_threshold=5)
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGES = [("en", "English"), ("es", "Español")]
# The federation's language: pages without a language the browser asks for, and the e-mails to arbiters.
LANGUAGE_CODE = env_str("LANGUAGE_CODE", "en")
if LANGUAGE_CODE not in dict(LANGUAGES):
    raise ImproperlyConfigured(f"LANGUAGE_CODE: expected one of {', '.join(dict(LANGUAGES))}, got {LANGUAGE_CODE!r}")
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = env_time_zone("TIME_ZONE", "UTC")
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = Path(env_str("STATIC_ROOT", str(BASE_DIR / "staticfiles")))
STATICFILES_DIRS = [BASE_DIR / "static"] if (BASE_DIR / "static").is_dir() else []
# whitenoise serves STATIC_ROOT (filled by `collectstatic`); with DEBUG it also finds files in the apps.
WHITENOISE_USE_FINDERS = DEBUG
# whitenoise warns on every start while the folder is missing (before the first collectstatic); OSError: a
# read-only installation (collectstatic made it, or static files are served elsewhere)
with contextlib.suppress(OSError):
    STATIC_ROOT.mkdir(parents=True, exist_ok=True)
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    # gzip/brotli copies made by collectstatic; no manifest, so a missing collectstatic never breaks a page.
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}

# Uploads (TRF files, FIDE lists through the admin): refuse anything absurdly large.
DATA_UPLOAD_MAX_MEMORY_SIZE = env_int("DATA_UPLOAD_MAX_MEMORY_SIZE", 5 * 1024 * 1024, minimum=1024)
FILE_UPLOAD_MAX_MEMORY_SIZE = DATA_UPLOAD_MAX_MEMORY_SIZE
TRF_UPLOAD_MAX_BYTES = env_int("TRF_UPLOAD_MAX_BYTES", 2 * 1024 * 1024, minimum=1024)
# The import_fide_list command's limit per file (a ZIP's member counted as it is unpacked): FIDE's largest
# download is the combined XML list, 856 MB (reference/formats.md §4.1); twice that leaves room to grow.
FIDE_LIST_MAX_BYTES = env_int("FIDE_LIST_MAX_BYTES", 2 * 1024**3, minimum=1024)

# --- Event lifecycle (issue 15) ------------------------------------------------------------------------
# Deadlines per rating type, in days; FIDE's by default (rating-rules / FIDE Rating Regulations: registration
# 30 days before the start when a player rated over 2700 or a woman over 2500 takes part, otherwise 3; the
# chief arbiter's report within 7 days of the end; the rating officer's upload within 30 days).
_FIDE_DEADLINES = {
    "registration_days": 3,
    "registration_days_strong": 30,
    "strong_rating": 2700,
    "strong_women_rating": 2500,
    "report_days": 7,
    "upload_days": 30,
}
EVENT_DEADLINES = {rating_type: dict(_FIDE_DEADLINES) for rating_type in RATING_TYPES}
# Integrity screening of submitted events (issue 15): the thresholds of ratings/services/integrity.py.
INTEGRITY_THRESHOLDS = {
    "performance_margin": 400,  # performance more than this above the player's rating ...
    "performance_min_games": 5,  # ... over at least this many rated games ...
    "small_event_players": 10,  # ... in a closed (round-robin) event of at most this many players
    "repeat_meetings": 3,  # the same two players meeting this often ...
    "period_days": 365,  # ... within this many days (across events)
    "lopsided_min_games": 3,  # a player with at least this many games against one opponent ...
    "lopsided_loss_share": 0.75,  # ... losing at least this share of them
    "duplicate_player_share": 0.8,  # events with overlapping dates sharing this share of players
    "single_club_deviation": 0.25,  # one club: mean |score - expected| per rated game at least this
}
# Arbiters' confirmations (registration confirmed / refused) go through Django's e-mail backend: the console
# by default (embedded set-up), SMTP or a file backend in production through the environment.
EMAIL_BACKEND = env_str("EMAIL_BACKEND", "django.core.mail.backends.console.EmailBackend")
DEFAULT_FROM_EMAIL = env_str("DEFAULT_FROM_EMAIL", "ratings@federation.invalid")
# Whole request bodies above this are refused with 413 before anything reads them (file parts included,
# which DATA_UPLOAD_MAX_MEMORY_SIZE does not cover). Leaves room for the form fields around an upload.
REQUEST_MAX_BYTES = env_int(
    "REQUEST_MAX_BYTES", max(DATA_UPLOAD_MAX_MEMORY_SIZE, TRF_UPLOAD_MAX_BYTES) + 256 * 1024, minimum=2048
)

# --- Celery -------------------------------------------------------------------------------------------
_broker_dir = VAR_DIR / "broker"
CELERY_BROKER_URL = env_url(
    "CELERY_BROKER_URL", "filesystem://", schemes=("filesystem", "redis", "rediss", "amqp", "memory")
)
if CELERY_BROKER_URL.startswith("filesystem://"):
    for sub in ("in", "processed", "control"):
        (_broker_dir / sub).mkdir(parents=True, exist_ok=True)
    # kombu's filesystem transport: producer and consumer share one folder (no server needed).
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(_broker_dir / "in"),
        "data_folder_out": str(_broker_dir / "in"),
        "processed_folder": str(_broker_dir / "processed"),
        "control_folder": str(_broker_dir / "control"),
        "store_processed": False,
    }
    (VAR_DIR / "results").mkdir(parents=True, exist_ok=True)
    _default_backend = f"file://{VAR_DIR / 'results'}"
else:
    # Redis redelivers a task whose worker died (acks_late) after this many seconds. It must exceed the longest
    # task (a publication: 27 s at 2 M players), or a running task is handed to a second worker (which then
    # waits on the publication lock and reports "already published"); 300 s is ten times that. A lost
    # publication is re-sent sooner by ratings.recover_publications (docs/operations.md §5).
    CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": env_int("CELERY_VISIBILITY_TIMEOUT", 300, minimum=1)}
    _default_backend = CELERY_BROKER_URL if CELERY_BROKER_URL.startswith("redis") else "rpc://"
CELERY_RESULT_BACKEND = env_str("CELERY_RESULT_BACKEND", _default_backend)
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", False)
# Tests give each run its own queue so concurrent runs on one Redis never take each other's tasks.
CELERY_TASK_DEFAULT_QUEUE = env_str("CELERY_TASK_DEFAULT_QUEUE", "celery")
CELERY_TASK_ACKS_LATE = True  # a worker killed mid-task leaves the message for another worker
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TIMEZONE = TIME_ZONE
CELERY_BEAT_SCHEDULER = "django_celery_beat.schedulers:DatabaseScheduler"
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# Tasks queued by services go through the outbox (outbox.services.enqueue_after_commit); this re-sends what
# could not reach the broker when its transaction committed.
# A publication sent but never finished (its worker died) is sent again, and a due list nobody asked for is
# requested, by ratings.recover_publications (ratings/services/recovery.py; docs/operations.md §5).
PUBLICATION_RECOVERY_INTERVAL_SECONDS = env_int("PUBLICATION_RECOVERY_INTERVAL_SECONDS", 60, minimum=1)
PUBLICATION_RECOVERY_AFTER_SECONDS = env_int("PUBLICATION_RECOVERY_AFTER_SECONDS", 120, minimum=1)
CELERY_BEAT_SCHEDULE = {
    "outbox-dispatch-pending-tasks": {"task": "outbox.dispatch_pending_tasks", "schedule": 60.0},
    "ratings-recover-publications": {
        "task": "ratings.recover_publications",
        "schedule": float(PUBLICATION_RECOVERY_INTERVAL_SECONDS),
    },
    # PostgreSQL: drop the empty partitions deleted drafts leave (ratings.services.entry_storage)
    "ratings-prune-entry-partitions": {"task": "ratings.prune_entry_partitions", "schedule": 86400.0},
}
OUTBOX_RETRY_AFTER_SECONDS = env_int("OUTBOX_RETRY_AFTER_SECONDS", 30, minimum=0)
# A webhook delivery the receiver did not take is retried by Celery (outbox.tasks.deliver_webhook) after
# BASE × 2^n seconds (n = retries so far), at most MAX apart, WEBHOOK_MAX_RETRIES times; with jitter (the
# default) a random time up to that, so endpoints that failed together do not all come back at once.
WEBHOOK_RETRY_BACKOFF_SECONDS = env_int("WEBHOOK_RETRY_BACKOFF_SECONDS", 10, minimum=1)
WEBHOOK_RETRY_BACKOFF_MAX_SECONDS = env_int("WEBHOOK_RETRY_BACKOFF_MAX_SECONDS", 3600, minimum=1)
WEBHOOK_RETRY_JITTER = env_bool("WEBHOOK_RETRY_JITTER", True)
WEBHOOK_MAX_RETRIES = env_int("WEBHOOK_MAX_RETRIES", 8, minimum=0)
# A task sent this long ago and never started, while later ones on its queue were, was lost by the broker and
# is sent again (outbox.services.pending_tasks_lost); the visibility timeout's 300 s, so a task merely held by
# a busy worker is not sent twice.
OUTBOX_LOST_AFTER_SECONDS = env_int("OUTBOX_LOST_AFTER_SECONDS", 300, minimum=1)

# --- Cache (DRF's throttle counters, shared by every web process; core/cache.py) ------------------------
# CACHE_URL (redis://...) if set; else, with a Redis broker, the same Redis server's next database; else (the
# embedded default) files under var/cache/, which every process on the machine shares without a server.
_cache_url = env_str("CACHE_URL", "")
if not _cache_url and CELERY_BROKER_URL.startswith(("redis://", "rediss://")):
    from core.cache import redis_cache_url

    _cache_url = redis_cache_url(CELERY_BROKER_URL)
# Test runs set TEST_DATABASE_SUFFIX: their keys never mix with another run's on a shared Redis.
_cache_prefix = "federation" + env_str("TEST_DATABASE_SUFFIX", "")
CACHES: dict[str, dict[str, object]]
if _cache_url:
    env_url("CACHE_URL", _cache_url, schemes=("redis", "rediss"))
    CACHES = {
        "default": {
            "BACKEND": "core.cache.PrefixedRedisCache",
            "LOCATION": _cache_url,
            "KEY_PREFIX": _cache_prefix,
            # a Redis that does not answer costs a request one second, not minutes (core/throttling.py)
            "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 1},
        }
    }
else:
    (VAR_DIR / "cache").mkdir(parents=True, exist_ok=True)
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
            "LOCATION": str(VAR_DIR / "cache"),
            "KEY_PREFIX": _cache_prefix,
            # one file per client address and scope; culled (a third) when there are more
            "OPTIONS": {"MAX_ENTRIES": 10_000},
        }
    }

# --- REST API -----------------------------------------------------------------------------------------
# CORS: other sites may read the public API from the browser. Only /api/ paths, only reads (and the preflight),
# no credentials (the default): a page elsewhere cannot act with a visitor's session here.
CORS_ALLOW_ALL_ORIGINS = True
CORS_URLS_REGEX = r"^/api/.*$"
CORS_ALLOW_METHODS = ("GET", "HEAD", "OPTIONS")

REST_FRAMEWORK = {
    "DEFAULT_SCHEMA_CLASS": "core.schema.TruthfulAutoSchema",  # auth, statuses and constraints as served
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.PageNumberPagination",
    "PAGE_SIZE": 100,
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticatedOrReadOnly"],
    "DEFAULT_THROTTLE_CLASSES": ["core.throttling.SharedAnonRateThrottle"],  # one count for every web process
    "DEFAULT_THROTTLE_RATES": {"anon": env_str("API_ANON_THROTTLE", "600/minute")},
}
# Hostile JSON (nested deeper than the recursion limit) is a 400, not a 500 (core/security.py).
REST_FRAMEWORK["DEFAULT_PARSER_CLASSES"] = [
    "core.security.BoundedJSONParser",
    "rest_framework.parsers.FormParser",
    "rest_framework.parsers.MultiPartParser",
]
# A lone surrogate is refused by the parser; the renderer never fails on one either (core/security.py).
REST_FRAMEWORK["DEFAULT_RENDERER_CLASSES"] = [
    "core.security.SafeJSONRenderer",
    "rest_framework.renderers.BrowsableAPIRenderer",
]
SPECTACULAR_SETTINGS = {
    "TITLE": "Federation rating database API",
    "DESCRIPTION": (
        "Players, rating lists, events and the rating calculator (read-only for the public). Every operation "
        "whose security requirement is empty is open to anonymous callers. A method an operation does not "
        "list is answered 405 Method Not "
        'Allowed with an Allow header and {"detail": "..."}; a body without Content-Length (chunked) 411; '
        "a body above the size limit 413."
    ),
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "ENUM_NAME_OVERRIDES": {"TitleEnum": "players.models.Title", "NormTitleEnum": "ratings.engine.norms.NORM_TITLES"},
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "public.api.ratings.calculator_schema_hook",
    ],
}

# --- Security (see `manage.py check --deploy`) ----------------------------------------------------------
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", False)
SESSION_COOKIE_SECURE = env_bool("SESSION_COOKIE_SECURE", not DEBUG)
CSRF_COOKIE_SECURE = env_bool("CSRF_COOKIE_SECURE", not DEBUG)
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 0, minimum=0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", SECURE_HSTS_SECONDS > 0)
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", False)
if env_bool("BEHIND_TLS_PROXY", False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
X_FRAME_OPTIONS = "DENY"
# e.g. "security.W021" where the domain must not be HSTS-preloaded (docs/operations.md §1.1).
SILENCED_SYSTEM_CHECKS = [
    *env_list("SILENCED_SYSTEM_CHECKS", []),
    # The player name index carries merged_into and id for PostgreSQL's index-only counts (players 0004);
    # SQLite builds it as a plain name index, which is all it needs there: not a problem to report.
    "models.W040",
]
# Admin sign-in throttling: django-axes with the policy of core/security.py. After LOGIN_FAILURE_LIMIT failures
# for one username (any letter case), or LOGIN_FAILURE_IP_LIMIT from one address, sign-in is refused until
# LOGIN_FAILURE_WINDOW_SECONDS have passed since those failures. Failures are database rows (every web
# process sees them); a success clears the username's failures.
AUTHENTICATION_BACKENDS = ["axes.backends.AxesStandaloneBackend", "core.security.SignInModelBackend"]
LOGIN_FAILURE_LIMIT = env_int("LOGIN_FAILURE_LIMIT", 5, minimum=1)
LOGIN_FAILURE_IP_LIMIT = env_int("LOGIN_FAILURE_IP_LIMIT", 20, minimum=1)
LOGIN_FAILURE_WINDOW_SECONDS = env_int("LOGIN_FAILURE_WINDOW_SECONDS", 15 * 60, minimum=1)
AXES_HANDLER = "core.security.SignInThrottleHandler"
AXES_LOCKOUT_PARAMETERS = ["username", "ip_address"]
AXES_FAILURE_LIMIT = "core.security.username_failure_limit"
AXES_COOLOFF_TIME = "core.security.sign_in_window"
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False  # refusals while locked do not prolong the lock
AXES_RESET_ON_SUCCESS = True
AXES_USERNAME_CALLABLE = "core.security.sign_in_username"
AXES_CLIENT_IP_CALLABLE = "core.security.client_ip"
AXES_LOCKOUT_CALLABLE = "core.security.sign_in_refused_response"
AXES_DISABLE_ACCESS_LOG = True  # successful sign-ins are not logged (the table would only grow)
AXES_ENABLE_ADMIN = False  # audit/admin.py shows the attempts to officials
AXES_VERBOSE = False

# --- Federation policy defaults (officials change these per rating type in the admin) --------------------
FEDERATION_CODE = env_str("FEDERATION_CODE", "")
RATING_LIST_MONTHS = [int(m) for m in env_list("RATING_LIST_MONTHS", ["1", "3", "5", "7", "9", "11"])]
if not all(1 <= m <= 12 for m in RATING_LIST_MONTHS):
    raise ImproperlyConfigured(f"RATING_LIST_MONTHS: months must be 1..12, got {RATING_LIST_MONTHS}")
RATING_LIST_CLOSING_DAYS = env_int("RATING_LIST_CLOSING_DAYS", 7, minimum=0)
RATING_RULES_PRESET = env_str("RATING_RULES_PRESET", "fide-2024")

# One JSON object per request on the "federation.request" logger (core/request_log.py); REQUEST_LOG=0 silences it.
REQUEST_LOG = env_bool("REQUEST_LOG", True)
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"message": {"format": "%(message)s"}},
    "handlers": {
        "console": {"class": "logging.StreamHandler"},
        "requests": {"class": "logging.StreamHandler", "formatter": "message"},
    },
    "loggers": {
        "federation.request": {"handlers": ["requests"], "level": "INFO", "propagate": False},
        # Each request is logged once, as JSON, by core.request_log; Django's own line would repeat it.
        "django.server": {"level": "WARNING"},
    },
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
}
