"""Loaded with `-p` (pyproject addopts) before pytest-django reads the settings.

Tests get their own var/ folder (SQLite test database, filesystem broker) so that a running dev server never
consumes their Celery messages, and a throwaway SECRET_KEY unless the environment provides one.
"""
import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
os.environ.setdefault("FEDERATION_VAR_DIR", str(ROOT / "var" / "test"))
os.environ.setdefault("SECRET_KEY", "test-only-secret-key-not-for-production")
