"""A URLconf for the audit tests: the admin plus one plain view that changes a game's result, so a change goes
through the project's real middleware stack (HistoryRequestMiddleware records the signed-in user) without
depending on how the arbiters' admin screens are laid out."""

from django.contrib import admin
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.urls import path
from django.views.decorators.http import require_POST

from events.models import Game


@login_required
@require_POST
def change_result(request, pk):
    game = Game.objects.get(pk=pk)
    game.result = request.POST["result"]
    game.version += 1
    game.save()
    return HttpResponse("saved")


urlpatterns = [
    path("admin/", admin.site.urls),
    path("change-result/<int:pk>/", change_result),
]
