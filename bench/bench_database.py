"""The throwaway database a benchmark runs on: DATABASE_URL if set (a PostgreSQL database is created when
missing), otherwise a fresh SQLite file under /tmp; migrated before use."""

import os
import sys
import tempfile
from pathlib import Path
from urllib.parse import urlparse

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def prepare_database(prefix: str) -> str:
    """Point Django at the benchmark's database, set it up and migrate it; returns its URL."""
    if "DATABASE_URL" not in os.environ:
        folder = Path(tempfile.mkdtemp(prefix=prefix))
        os.environ["DATABASE_URL"] = f"sqlite:///{folder / 'bench.sqlite3'}"
        os.environ.setdefault("FEDERATION_VAR_DIR", str(folder / "var"))
    os.environ.setdefault("SECRET_KEY", "bench-only-secret-key-not-for-production")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "federation.settings")
    url = os.environ["DATABASE_URL"]
    if url.startswith(("postgres://", "postgresql://")):
        create_postgres_database(url)
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0)
    return url


def create_postgres_database(url: str) -> None:
    """CREATE DATABASE for ``url`` unless it exists (connecting to the server's ``postgres`` database)."""
    import psycopg

    parts = urlparse(url)
    name = parts.path.lstrip("/")
    admin_url = parts._replace(path="/postgres").geturl()
    with psycopg.connect(admin_url, autocommit=True) as connection:
        exists = connection.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone()
        if not exists:
            connection.execute(f'CREATE DATABASE "{name}"')
