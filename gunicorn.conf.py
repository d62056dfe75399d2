"""gunicorn's settings for production: `.venv/bin/gunicorn federation.wsgi` reads this file from the working
directory. Each value can be overridden on the command line or by the environment variables named below.

Workers: pages and the API spend most of their time in Python (templates, serialisation), so sync workers, one
process each, with 2 per core plus one (gunicorn's own advice): 5 on this project's 2-core reference machine.
bench/load.py measures throughput and latency with this setting, idle and during a publication.
"""

import multiprocessing
import os

bind = os.environ.get("GUNICORN_BIND", "127.0.0.1:8001")
workers = int(os.environ.get("WEB_CONCURRENCY", 2 * multiprocessing.cpu_count() + 1))
worker_class = "sync"
# A request that takes longer than this is a bug or an attack; the worker is replaced.
timeout = int(os.environ.get("GUNICORN_TIMEOUT", 30))
graceful_timeout = 30
# Restart workers now and then so that a slow leak can never grow without limit.
max_requests = 5000
max_requests_jitter = 500
# Access lines come from core.request_log (JSON, one per request); gunicorn logs only its own events.
accesslog = None
errorlog = "-"
# Bodies are limited by the application (REQUEST_MAX_BYTES); header limits stay at gunicorn's defaults.
forwarded_allow_ips = os.environ.get("FORWARDED_ALLOW_IPS", "127.0.0.1")
