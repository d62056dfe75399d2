"""``POST /api/v1/events/check-trf/``: check a TRF file before submitting it, for pairing programs (issue 15).

An authenticated arbiter (a personal token, ``Authorization: Token <key>``, managed in the admin; or a signed-in
session) sends the TRF as the request body or as the ``file`` field of a multipart form. The answer is the
report of ``events.trf_services.event_import_trf(check_only=True)``: problems by line and column, players
matched / to be created / likely duplicates, games rated and not rated with why. Nothing is written.
"""

from django.conf import settings
from django.core.files.uploadedfile import UploadedFile
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.authentication import SessionAuthentication, TokenAuthentication
from rest_framework.exceptions import ParseError
from rest_framework.permissions import BasePermission
from rest_framework.response import Response
from rest_framework.views import APIView

from events.trf_services import event_import_trf, trf_check_report


class IsArbiter(BasePermission):
    """Signed in (token or session) with the right to upload events (the Arbiters and Rating officers groups)."""

    message = "Checking a TRF file needs an arbiter's token (Authorization: Token <key>)."

    def has_permission(self, request, view) -> bool:
        user = request.user
        return bool(user and user.is_authenticated and user.is_active and user.has_perm("events.add_event"))


class _ProblemSerializer(serializers.Serializer):
    line = serializers.IntegerField(allow_null=True, help_text="Line of the file; null: the file as a whole")
    column = serializers.IntegerField(allow_null=True)
    message = serializers.CharField()


class _PlayerSerializer(serializers.Serializer):
    id_number = serializers.IntegerField()
    name = serializers.CharField()


class _DuplicateSerializer(_PlayerSerializer):
    reason = serializers.CharField()


class _MatchSerializer(serializers.Serializer):
    start_rank = serializers.IntegerField()
    name = serializers.CharField(allow_blank=True, help_text="As the file writes it")
    id_number = serializers.IntegerField(allow_null=True, help_text="The file's ID number column")
    status = serializers.ChoiceField(choices=["matched", "new"])
    player = _PlayerSerializer(allow_null=True, help_text="The registered player (matched)")
    likely_duplicates = _DuplicateSerializer(many=True, help_text="Registered players a new one may be")


class _UnratedGameSerializer(serializers.Serializer):
    round = serializers.IntegerField()
    white = serializers.IntegerField(help_text="Start rank")
    black = serializers.IntegerField(allow_null=True, help_text="Start rank; null: a bye")
    result = serializers.CharField()
    why = serializers.CharField()


# "errors" is also a Serializer attribute, so the report's schema is built with inline_serializer.
CheckTrfReportSerializer = inline_serializer(
    name="CheckTrfReport",
    fields={
        "errors": _ProblemSerializer(many=True, help_text="Any error: the file would be refused"),
        "warnings": _ProblemSerializer(many=True),
        "players": serializers.IntegerField(),
        "games": serializers.IntegerField(),
        "rated_games": serializers.IntegerField(),
        "matches": _MatchSerializer(many=True),
        "not_rated": _UnratedGameSerializer(many=True),
        "version": serializers.CharField(allow_blank=True),
    },
)


class _DetailSerializer(serializers.Serializer):
    detail = serializers.CharField()


# What the server requires, said by the schema (issue 32: an empty body was valid by the schema and answered
# 400): a body of at least one byte, or a multipart form with a non-empty "file". A blank file is a file: its
# report says it has no player.
TRF_BODY = {"type": "string", "format": "binary", "minLength": 1, "description": "The TRF file"}
TRF_FORM = {"type": "object", "properties": {"file": TRF_BODY}, "required": ["file"]}


class _RequiredBodySchema(AutoSchema):
    """The request body is required (drf-spectacular marks a body given as a raw schema optional)."""

    def _get_request_body(self, direction="request"):
        body = super()._get_request_body(direction)
        if body is not None:
            body["required"] = True
        return body


class CheckTrfAPI(APIView):
    """Check a TRF file without importing anything: {"errors", "warnings", "players", "games", "rated_games",
    "matches", "not_rated", "version"}. ``?submit=0`` checks it as a draft instead of as a submission."""

    authentication_classes = [TokenAuthentication, SessionAuthentication]
    permission_classes = [IsArbiter]
    schema = _RequiredBodySchema()

    @extend_schema(
        request={"text/plain": TRF_BODY, "multipart/form-data": TRF_FORM},
        parameters=[OpenApiParameter("submit", OpenApiTypes.STR, description="0: check as a draft")],
        responses={
            200: CheckTrfReportSerializer,
            400: OpenApiResponse(_DetailSerializer, description="No file sent (an empty body or file)"),
            401: OpenApiResponse(_DetailSerializer, description="No valid token"),
            403: OpenApiResponse(_DetailSerializer, description="Not an arbiter"),
            413: OpenApiResponse(_DetailSerializer, description="File too large"),
        },
    )
    def post(self, request):
        upload, name, size = self._file(request)
        limit = settings.TRF_UPLOAD_MAX_BYTES
        if size > limit:
            return Response(
                {"detail": f"{name} is {size:,} bytes; a TRF file may have at most {limit:,} bytes."},
                status=status.HTTP_413_REQUEST_ENTITY_TOO_LARGE,
            )
        data = upload.read() if upload is not None else request.body
        if not data:  # the schema's minLength 1; a blank file is reported like any other
            raise ParseError("Send the TRF file as the request body or as the 'file' field of a multipart form.")
        outcome = event_import_trf(
            data,
            file_name=name,
            user=request.user,
            submit=request.query_params.get("submit", "1") != "0",
            check_only=True,
        )
        return Response(trf_check_report(outcome))

    def _file(self, request) -> tuple[UploadedFile | None, str, int]:
        """The uploaded file (None: the body is the file), its name and size, before reading it."""
        if (request.content_type or "").startswith("multipart/form-data"):
            upload = request.FILES.get("file")
            if upload is None:
                raise ParseError("The multipart form has no 'file' field.")
            return upload, upload.name or "file", upload.size or 0
        return None, "The request body", int(request.META.get("CONTENT_LENGTH") or 0)
