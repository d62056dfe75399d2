"""The admin's start page: the rating officer's dashboard for officials, the arbiter's desk for arbiters
(ratings.selectors_dashboard, events.selectors_desk), above the usual list of models.

Wired by pointing the default admin site's index template at templates/admin/desk_index.html: every admin URL,
permission and registered model stays as it is.
"""

from django.contrib import admin

admin.site.index_template = "admin/desk_index.html"
