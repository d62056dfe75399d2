from django.contrib import admin
from django.urls import include, path
from django.views.decorators.csrf import csrf_exempt
from django.views.generic import RedirectView
from django.views.i18n import set_language

from federation.health import HealthView

urlpatterns = [
    path("", include("public.urls")),
    # The language switch only sets a cookie; exempt from CSRF so that public pages carry no token and can be
    # cached by browsers and proxies (they vary on Accept-Language and Cookie).
    path("i18n/", csrf_exempt(set_language), name="set_language"),
    # the entries' changelist moved with their composite key (ratings 0017, RatingListEntryRow): old links still work
    path(
        "admin/ratings/ratinglistentry/",
        RedirectView.as_view(pattern_name="admin:ratings_ratinglistentryrow_changelist", query_string=True),
    ),
    path("admin/", admin.site.urls),
    # For load balancers: 200 healthy, 503 naming what failed (database, broker, pending migrations).
    path("health/", HealthView.as_view(), name="health"),
]
