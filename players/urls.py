from django.urls import path

from players import views

app_name = "players"

urlpatterns = [
    path("", views.player_search, name="search"),
    path("<key:id_number>/", views.player_profile, name="profile"),
    path(
        "<key:id_number>/calculations/<list_date:list_date>/<rating_type:rating_type>/",
        views.player_calculations,
        name="calculations",
    ),
]
