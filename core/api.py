"""What every public API view shares: read-only access, pagination, cache headers, the schema and its docs.

The routes are in public/urls.py (``api/v1/``); the API views live in ``public/api/``.
"""

from collections.abc import Sequence

from django.templatetags.static import static
from django.utils.cache import patch_cache_control
from django.utils.translation import gettext
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView, SpectacularSwaggerView
from rest_framework.exceptions import ValidationError
from rest_framework.pagination import BasePagination, PageNumberPagination
from rest_framework.permissions import SAFE_METHODS, BasePermission, OperandHolder, SingleOperandHolder

from core.pagination import KnownCountPaginator, whole_number, with_known_count

# Published data changes only when a list is published (every two months) or an event is submitted, so a
# few minutes of caching by browsers and proxies costs nothing and absorbs bursts.
PUBLIC_MAX_AGE = 300


class ReadOnly(BasePermission):
    """The public API is read-only (the calculator is the one POST and says so itself).

    A method the view does not have at all is let through, so that DRF answers it 405 Method Not Allowed with
    ``Allow`` (permissions are checked before the method is looked up; refusing here would be a 403)."""

    def has_permission(self, request, view) -> bool:
        return request.method in SAFE_METHODS or not hasattr(view, request.method.lower())


class PublicPagination(PageNumberPagination):
    """Pages of 100 by default. ``page`` and ``page_size`` are positive integers (anything else is a 400
    naming the parameter; DRF alone would answer 404 or silently use the default); ``page_size`` above 500
    is served as 500; a page past the last one is a 404."""

    page_size = 100
    page_size_query_param = "page_size"
    max_page_size = 500

    def paginate_queryset(self, queryset, request, view=None):
        for name in (self.page_query_param, self.page_size_query_param):
            raw = request.query_params.get(name)
            # digits of a number at least 1, read without int(): thousands of digits are a ValueError, and so
            # were a 500 (issue 32); a page that large is past the last one (404), a page_size that large 500
            if raw is not None and not (raw.isascii() and raw.isdigit() and raw.strip("0")):
                message = gettext("expected a whole number of at least 1, got %(value)r") % {"value": raw[:40]}
                raise ValidationError({name: [message]})
        return super().paginate_queryset(queryset, request, view)

    def get_page_size(self, request):
        raw = request.query_params.get(self.page_size_query_param, "")
        if whole_number(raw) is None and raw.isascii() and raw.isdigit():  # more digits than any count
            return self.max_page_size
        return super().get_page_size(request)

    def get_schema_operation_parameters(self, view):
        parameters = super().get_schema_operation_parameters(view)
        for parameter in parameters:
            parameter["schema"] = {"type": "integer", "minimum": 1}
            if parameter["name"] == self.page_size_query_param:
                parameter["description"] = (
                    f"Results per page (default {self.page_size}; "
                    f"above {self.max_page_size} served as {self.max_page_size})"
                )
        return parameters


class WindowedPagination(PublicPagination):
    """Pages over the first ``window`` results of a query (as search engines do: Elasticsearch's 10,000).

    Counting every match of a two-million-row register costs 100 ms a request and a deep OFFSET more; a
    count stopped at ``window`` + 1 rows costs a few milliseconds. ``count`` is the number of results that
    can be paged (at most ``window``); ``capped`` says more matched: narrow the query to see them."""

    window = 10_000
    django_paginator_class = KnownCountPaginator

    def paginate_queryset(self, queryset, request, view=None):
        matched = queryset.order_by()[: self.window + 1].count()  # stops counting at window + 1
        self.capped = matched > self.window
        queryset = queryset[: self.window]
        queryset = with_known_count(queryset, min(matched, self.window))
        return super().paginate_queryset(queryset, request, view)

    def get_paginated_response(self, data):
        response = super().get_paginated_response(data)
        response.data["capped"] = self.capped
        return response

    def get_paginated_response_schema(self, schema):
        schema = super().get_paginated_response_schema(schema)
        schema["properties"]["capped"] = {
            "type": "boolean",
            "description": f"More than {self.window:,} results matched; count and pages cover the first "
            f"{self.window:,}: narrow the query to reach the others",
        }
        return schema


class PublicReadMixin:
    """Read-only, paginated, and cacheable by anyone for ``PUBLIC_MAX_AGE`` seconds when it succeeded."""

    # Typed as GenericAPIView declares them, so that views may set other permissions or no pagination.
    permission_classes: Sequence[type[BasePermission] | OperandHolder | SingleOperandHolder] = [ReadOnly]
    pagination_class: type[BasePagination] | None = PublicPagination
    cache_max_age = PUBLIC_MAX_AGE

    def finalize_response(self, request, response, *args, **kwargs):
        response = super().finalize_response(request, response, *args, **kwargs)
        if request.method in ("GET", "HEAD") and response.status_code == 200:
            patch_cache_control(response, public=True, max_age=self.cache_max_age)
        return response


class SchemaView(SpectacularAPIView):
    permission_classes = [ReadOnly]


def _sidecar(path: str) -> str:
    # drf-spectacular-sidecar ships Swagger UI and ReDoc as static files: nothing is loaded from a CDN.
    return static(f"drf_spectacular_sidecar/{path}")


class DocsView(SpectacularSwaggerView):
    permission_classes = [ReadOnly]
    template_name = "public/api_docs.html"  # Swagger UI under a bar linking back to the site (issue 32)
    url_name = "api-schema"

    @staticmethod
    def _swagger_ui_resource(filename: str) -> str:
        return _sidecar(f"swagger-ui-dist/{filename}")

    @staticmethod
    def _swagger_ui_favicon() -> str:
        return _sidecar("swagger-ui-dist/favicon-32x32.png")


class RedocView(SpectacularRedocView):
    permission_classes = [ReadOnly]
    url_name = "api-schema"

    @staticmethod
    def _redoc_standalone() -> str:
        return _sidecar("redoc/bundles/redoc.standalone.js")
