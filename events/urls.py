from django.urls import path

from events import views

app_name = "events"

urlpatterns = [
    path("", views.event_list, name="list"),
    path("<key:pk>/", views.event_detail, name="detail"),
]
