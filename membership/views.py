"""The public directories of licence holders (issue 35: "public directories of arbiters and trainers with their
events, like FIDE's"). Thin: selectors read, templates render; routed in public/urls.py."""

from django.http import Http404
from django.shortcuts import render
from django.utils.cache import patch_cache_control, patch_vary_headers
from django.utils.translation import gettext_lazy as _

from membership.models import LicenceKind
from membership.selectors import licence_directory, licence_holder

# As every public page (public/views/base.py): cacheable a few minutes, per language.
PAGE_MAX_AGE = 300
TITLES: dict[str, object] = {LicenceKind.ARBITER: _("Arbiters"), LicenceKind.TRAINER: _("Trainers")}


def _cacheable(response):
    patch_cache_control(response, public=True, max_age=PAGE_MAX_AGE)
    patch_vary_headers(response, ("Cookie",))
    return response


def licence_directory_page(request, kind: str):
    rows = licence_directory(kind)
    context = {"kind": kind, "title": TITLES[kind], "rows": rows, "shows_events": kind == LicenceKind.ARBITER}
    return _cacheable(render(request, "membership/directory.html", context))


def arbiter_page(request, id_number: int):
    licences, events = licence_holder(LicenceKind.ARBITER, id_number)
    if not licences:
        raise Http404("No arbiter with this ID number")
    context = {"holder": licences[0].player, "licences": licences, "events": events}
    return _cacheable(render(request, "membership/arbiter.html", context))
