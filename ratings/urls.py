from django.urls import path

from ratings import views

app_name = "ratings"

urlpatterns = [
    path("", views.list_index, name="index"),
    path("<list_date:list_date>/<rating_type:rating_type>/", views.list_detail, name="detail"),
    path("<list_date:list_date>/<rating_type:rating_type>.txt", views.list_download, {"fmt": "txt"}, name="txt"),
    path("<list_date:list_date>/<rating_type:rating_type>.csv", views.list_download, {"fmt": "csv"}, name="csv"),
    path("<list_date:list_date>/<rating_type:rating_type>.xml", views.list_download, {"fmt": "xml"}, name="xml"),
]
