"""The event's status and timeline in the API (issue 15): ``status`` and ``timeline`` on /api/v1/events/<pk>/."""

from rest_framework import serializers

from public.selectors.event_status import status_change_actor


class StatusChangeListSerializer(serializers.Serializer):
    list_date = serializers.DateField()
    rating_type = serializers.CharField()
    version = serializers.IntegerField()


class StatusChangeSerializer(serializers.Serializer):
    at = serializers.DateTimeField(help_text="When the step was made")
    by = serializers.SerializerMethodField(help_text="Who made it (empty: a scheduled job)")
    from_status = serializers.CharField(allow_blank=True, help_text="Status before")
    to_status = serializers.CharField(help_text="Status after")
    reason = serializers.CharField(allow_blank=True)
    rating_list = StatusChangeListSerializer(allow_null=True, help_text="The list the event was rated on")

    def get_by(self, change) -> str:
        return status_change_actor(change)
