"""What every public page shares."""

from django.utils.cache import patch_cache_control, patch_vary_headers

# Pages of published data: browsers and proxies may keep them a few minutes. They vary on the language
# (Accept-Language, added by LocaleMiddleware, and the language cookie).
PAGE_MAX_AGE = 300


def public_page(view):
    """Mark a public page cacheable by anyone for PAGE_MAX_AGE seconds, per language."""

    def wrapped(request, *args, **kwargs):
        response = view(request, *args, **kwargs)
        if response.status_code == 200:
            patch_cache_control(response, public=True, max_age=PAGE_MAX_AGE)
            patch_vary_headers(response, ("Cookie",))
        return response

    wrapped.__name__ = view.__name__
    wrapped.__doc__ = view.__doc__
    return wrapped
