"""The event admin's own views as URL patterns, written once for the lifecycle, round entry and TRF modules.

Each view is ``view(model_admin, request, **url_kwargs)``, served inside the admin's sign-in and CSRF wrapper
(``AdminSite.admin_view``) and named ``<app>_<model>_<name>`` like the admin's own patterns, so templates reverse
``admin:events_event_<name>``.
"""

from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

from django.urls import URLPattern, path

AdminRoute = tuple[str, Callable[..., Any], str]


def admin_view_urls(model_admin: Any, routes: Sequence[AdminRoute]) -> list[URLPattern]:
    """One pattern per (route, view, name), the view bound to ``model_admin``."""
    prefix = f"{model_admin.opts.app_label}_{model_admin.opts.model_name}"
    site = model_admin.admin_site
    return [
        path(route, site.admin_view(partial(view, model_admin)), name=f"{prefix}_{name}")
        for route, view, name in routes
    ]
