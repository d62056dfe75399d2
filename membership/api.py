"""Membership's read-only API: an event's fee statement and the public licence directories (issue 35).

Routed in public/urls.py (``api/v1/``); thin: the services and selectors compute, these answer.
"""

from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import generics, serializers
from rest_framework.response import Response

from core.api import PublicReadMixin
from events.models import Event
from membership.selectors import licence_directory
from membership.services.fees import event_fee_statement
from membership.services.status import FEE_STATUSES


def _amount(help_text: str = "") -> serializers.DecimalField:
    return serializers.DecimalField(max_digits=12, decimal_places=2, help_text=help_text)


class FeeLineSerializer(serializers.Serializer):
    description = serializers.CharField()
    rule = serializers.CharField(help_text="The schedule's rule this line applies")
    quantity = serializers.IntegerField()
    unit_price = _amount()
    amount = _amount()
    currency = serializers.CharField()
    schedule = serializers.CharField(help_text="The fee schedule's code (fide, ...); membership: sold memberships")


class FeeStatementSerializer(serializers.Serializer):
    event = serializers.IntegerField()
    lines = FeeLineSerializer(many=True)
    total = _amount("The total in ``currency`` (the first schedule's)")
    currency = serializers.CharField()
    totals = serializers.DictField(child=_amount(), help_text="The total per currency")


class EventFeesAPI(PublicReadMixin, generics.GenericAPIView):
    """The rating-fee statement of a submitted or rated event: each line with what it charges and the rule of
    its schedule (FIDE's and the federation's), and the total."""

    serializer_class = FeeStatementSerializer
    pagination_class = None

    @extend_schema(
        responses=FeeStatementSerializer,
        parameters=[OpenApiParameter("id", OpenApiTypes.INT, OpenApiParameter.PATH, description="The event's id")],
    )
    def get(self, request, pk: int):
        event = get_object_or_404(Event.objects.filter(status__in=FEE_STATUSES), pk=pk)
        return Response(event_fee_statement(event).to_dict())


class LicenceSerializer(serializers.Serializer):
    id_number = serializers.IntegerField()
    name = serializers.CharField()
    federation = serializers.CharField(allow_null=True)
    grade = serializers.CharField()
    valid_from = serializers.DateField()
    valid_to = serializers.DateField(allow_null=True)
    events = serializers.IntegerField(help_text="Events directed as chief arbiter (arbiters)")


class _DirectoryAPI(PublicReadMixin, generics.ListAPIView):
    serializer_class = LicenceSerializer
    kind = ""

    def get_queryset(self):
        return licence_directory(self.kind)  # rows (a list): the serializer reads their attributes


class ArbiterDirectoryAPI(_DirectoryAPI):
    """Arbiters with a licence valid today (IA, FA, NA) and the number of events they directed."""

    kind = "arbiter"


class TrainerDirectoryAPI(_DirectoryAPI):
    """Trainers with a licence valid today."""

    kind = "trainer"
