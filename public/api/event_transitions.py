"""``POST /api/v1/events/<pk>/transitions/``: move an event along its lifecycle from other software (issue 15).

Authenticated by a personal token (or session). The body names the ``action``: ``check``, ``submit``,
``return_to_draft`` (arbiters of the event, as in the admin; an official submits an incomplete event with a
``reason``, issue 32), ``refuse`` (with a ``reason``),
``approve_registration`` (officials). The same rules as the admin (events/roles.py): an event the user may not
see is a 404, an action they may not take a 403, a refused transition a 400 naming why. The answer is the
event's ``status`` and ``timeline``.
"""

from django.core.exceptions import ValidationError
from django.http import Http404
from drf_spectacular.utils import OpenApiResponse, extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.authentication import SessionAuthentication, TokenAuthentication
from rest_framework.exceptions import PermissionDenied
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from events.roles import (
    event_checkable_by,
    event_refusable_by,
    event_registration_approvable_by,
    event_returnable_to_draft_by,
    event_submittable_by,
    events_visible_to,
)
from events.services import (
    event_check,
    event_refuse,
    event_registration_approve,
    event_return_to_draft,
    event_submit,
)
from public.serializers.event_status import StatusChangeSerializer

ACTIONS = {
    "check": (event_checkable_by, lambda event, user, reason: event_check(event, user=user)),
    # An official's reason submits an event whose play is incomplete (issue 32); an arbiter's is refused.
    "submit": (
        event_submittable_by,
        lambda event, user, reason: event_submit(event, user=user, override_reason=reason),
    ),
    "return_to_draft": (
        event_returnable_to_draft_by,
        lambda event, user, reason: event_return_to_draft(event, user=user),
    ),
    "refuse": (event_refusable_by, lambda event, user, reason: event_refuse(event, user=user, reason=reason)),
    "approve_registration": (
        event_registration_approvable_by,
        lambda event, user, reason: event_registration_approve(event, user=user),
    ),
}


class TransitionSerializer(serializers.Serializer):
    action = serializers.ChoiceField(choices=list(ACTIONS))
    reason = serializers.CharField(
        required=False,
        allow_blank=True,
        default="",
        help_text=(
            "refuse: why (required). submit: an official's reason for submitting an event whose play is "
            "incomplete (declared rounds without pairings, games without a result); without it such a submission "
            "is refused with every missing round and game named."
        ),
    )


class EventTransitionAPI(APIView):
    """Move an event: check, submit, return to draft (its arbiters); refuse, approve a registration (officials)."""

    authentication_classes = [TokenAuthentication, SessionAuthentication]
    permission_classes = [IsAuthenticated]

    @extend_schema(
        request=TransitionSerializer,
        responses={
            200: inline_serializer(
                name="EventTransitionResult",
                fields={
                    "status": serializers.CharField(),
                    "problems": serializers.ListField(child=serializers.CharField()),
                    "timeline": StatusChangeSerializer(many=True),
                },
            ),
            400: OpenApiResponse(description="The transition was refused; the messages say why"),
            401: OpenApiResponse(description="No valid token"),
            403: OpenApiResponse(description="Not allowed to take this action on this event"),
            404: OpenApiResponse(description="No such event, or not one of yours"),
        },
    )
    def post(self, request, pk: int):
        event = events_visible_to(request.user).filter(pk=pk).first()
        if event is None:
            raise Http404("no such event")
        form = TransitionSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        allowed, run = ACTIONS[form.validated_data["action"]]
        if not allowed(event, request.user):
            raise PermissionDenied(f"You may not {form.validated_data['action'].replace('_', ' ')} {event.name}.")
        try:
            outcome = run(event, request.user, form.validated_data["reason"])
        except ValidationError as exc:
            return Response({"errors": exc.messages}, status=status.HTTP_400_BAD_REQUEST)
        problems = outcome if isinstance(outcome, list) else []  # a check answers with what is missing
        timeline = event.status_changes.select_related("user", "rating_list").order_by("at", "id")
        return Response(
            {
                "status": event.status,
                "problems": problems,
                "timeline": StatusChangeSerializer(timeline, many=True).data,
            }
        )
