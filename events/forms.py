"""Forms for entering events, participants and games in the admin.

Games are entered by starting rank (the pairing numbers arbiters work with), not by picking from a list of
every participant. Every rule the database enforces (migration 0003 triggers, the check constraints) is
checked here first, with a message naming the round, board and players, so a mistake is a form error and
never an IntegrityError; the database stays the last line of defence.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from functools import cached_property
from typing import TYPE_CHECKING, Any

from django import forms
from django.contrib.admin.widgets import ForeignKeyRawIdWidget
from django.core.exceptions import ValidationError
from django.db.models import Q
from django.urls import NoReverseMatch, reverse
from django.utils.functional import Promise
from django.utils.text import Truncator
from django.utils.translation import gettext, gettext_lazy

from events.models import BYE_RESULTS, Event, Game, Participant, Result
from events.rounds import paired_twice
from events.services import GameEdit

# --- descriptions used in messages ---------------------------------------------------------------------


def participant_label(participant: Participant) -> str:
    return gettext("%(name)s (rank %(rank)s)") % {"name": participant.player.name, "rank": participant.start_rank}


def place_label(round_: int | None, board: int | None) -> str:
    place = gettext("Round %(round)s") % {"round": round_} if round_ else gettext("Game")
    return gettext("%(place)s, board %(board)s") % {"place": place, "board": board} if board else place


# --- events --------------------------------------------------------------------------------------------


class EventForm(forms.ModelForm):
    class Meta:
        model = Event
        fields = [
            "name",
            "city",
            "federation",
            "start_date",
            "end_date",
            "rating_type",
            "system",
            "rounds",
            "time_control",
            "organiser",
            "chief_arbiter",
            "chief_arbiter_name",
            "arbiters",
        ]  # what an arbiter fills in; the record (status, file name, timestamps) is the system's (issue 32)
        labels = {  # the model's field names are English only; the form speaks the user's language (issue 32)
            "name": gettext_lazy("Name"),
            "city": gettext_lazy("City"),
            "federation": gettext_lazy("Federation"),
            "start_date": gettext_lazy("Start date"),
            "end_date": gettext_lazy("End date"),
            "rating_type": gettext_lazy("Rating type"),
            "system": gettext_lazy("System"),
            "rounds": gettext_lazy("Rounds"),
            "time_control": gettext_lazy("Time control"),
            "organiser": gettext_lazy("Organiser"),
            "chief_arbiter": gettext_lazy("Chief arbiter"),
            "chief_arbiter_name": gettext_lazy("Chief arbiter as the report names them"),
            "arbiters": gettext_lazy("Arbiters"),
        }
        help_texts = {
            "time_control": gettext_lazy("e.g. 90 min + 30 s from move 1"),
            "chief_arbiter_name": gettext_lazy("As the tournament report names them (TRF record 102)"),
        }

    def clean(self):
        data = super().clean()
        start, end = data.get("start_date"), data.get("end_date")
        if start and end and end < start:
            self.add_error("end_date", f"The event ends ({end:%Y-%m-%d}) before it starts ({start:%Y-%m-%d}).")
        rounds = data.get("rounds")
        if rounds is not None and rounds < 1:
            self.add_error("rounds", "An event has at least one round.")
        return data


# --- participants --------------------------------------------------------------------------------------


class CachedModelChoiceField(forms.ModelChoiceField):
    """A model choice that resolves primary keys from a dict loaded once per page, not one query per row."""

    def __init__(self, *args, cache: dict[str, object], **kwargs):
        super().__init__(*args, **kwargs)
        self.cache = cache

    def to_python(self, value):
        if value in self.empty_values:
            return None
        cached = self.cache.get(str(value))
        return cached if cached is not None else super().to_python(value)


class CachedRawIdWidget(ForeignKeyRawIdWidget):
    """The admin's raw-id widget, labelled from the same dict instead of a query per rendered row."""

    def __init__(self, rel, admin_site, *, cache: dict[str, object], **kwargs):
        super().__init__(rel, admin_site, **kwargs)
        self.cache = cache

    def label_and_url_for_value(self, value):
        obj = self.cache.get(str(value))
        if obj is None:
            return super().label_and_url_for_value(value)
        opts = obj._meta
        try:
            url = reverse(f"{self.admin_site.name}:{opts.app_label}_{opts.model_name}_change", args=(obj.pk,))
        except NoReverseMatch:
            url = ""
        return Truncator(obj).words(14), url


class ParticipantForm(forms.ModelForm):
    class Meta:
        model = Participant
        fields = ["start_rank", "player", "rating"]
        labels = {
            "start_rank": gettext_lazy("Starting rank"),
            "player": gettext_lazy("Player"),
            "rating": gettext_lazy("Rating"),
        }
        help_texts = {"start_rank": gettext_lazy("Empty for a new participant: the next free starting rank")}

    # Set by the participants' formset: the next free starting rank of the event (None outside a formset).
    next_start_rank: Callable[[], int] | None = None

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["start_rank"].required = False  # filled in clean() for a new participant

    def clean(self):
        cleaned = super().clean()
        if cleaned.get("start_rank") is None and cleaned.get("player") is not None:
            if self.instance.pk is None and self.next_start_rank is not None:
                cleaned["start_rank"] = self.next_start_rank()
            else:
                self.add_error("start_rank", "Enter a starting rank.")
        return cleaned

    def clean_start_rank(self):
        start_rank = self.cleaned_data["start_rank"]
        if start_rank is not None and start_rank < 1:
            raise ValidationError("Starting ranks start at 1.")
        return start_rank

    def clean_player(self):
        player = self.cleaned_data["player"]
        if player is not None and player.merged_into_id:
            raise ValidationError(
                gettext("%(player)s was merged into another record (player #%(other)s); enter that player.")
                % {"player": player, "other": player.merged_into_id}
            )
        return player

    def validate_unique(self):
        # The formset checks "once per event" and "rank unique" over the whole event with clearer messages.
        pass


def marked_for_deletion(formset: forms.BaseFormSet[Any], form: forms.BaseForm) -> bool:
    """Whether ``form`` is ticked "delete" — the formset's own rule, BaseFormSet._should_delete_form."""
    # The method is private, so django-stubs leaves it out.
    return bool(formset._should_delete_form(form))  # type: ignore[attr-defined]


class BaseParticipantFormSet(forms.BaseInlineFormSet):
    def clean(self) -> None:
        if any(self.errors):
            return
        by_player, by_rank, deleted_ids = self._entered()
        problems = self._entered_twice(by_player, by_rank)
        if deleted_ids:
            problems.extend(self._removed_with_games(deleted_ids))
        if problems:
            raise ValidationError(problems)

    def _entered(self) -> tuple[dict[int, list[int]], dict[int, list[str]], list[int]]:
        """The starting ranks entered per player, the player names per rank, and the participants deleted."""
        by_player: dict[int, list[int]] = defaultdict(list)
        by_rank: dict[int, list[str]] = defaultdict(list)
        deleted_ids = []
        for form in self.forms:
            if not hasattr(form, "cleaned_data") or not form.cleaned_data:
                continue
            if marked_for_deletion(self, form):
                if form.instance.pk:
                    deleted_ids.append(form.instance.pk)
                continue
            player, rank = form.cleaned_data.get("player"), form.cleaned_data.get("start_rank")
            if player is None or rank is None:
                continue
            by_player[player.pk].append(rank)
            by_rank[rank].append(player.name)
        return by_player, by_rank, deleted_ids

    def _entered_twice(self, by_player: dict[int, list[int]], by_rank: dict[int, list[str]]) -> list[str]:
        """A player entered twice, or a starting rank given twice."""
        names = {
            form.cleaned_data["player"].pk: str(form.cleaned_data["player"])
            for form in self.forms
            if getattr(form, "cleaned_data", None) and form.cleaned_data.get("player")
        }
        problems = []
        for player_pk, ranks in by_player.items():
            if len(ranks) > 1:
                problems.append(
                    gettext(
                        "%(player)s is entered twice (starting ranks %(ranks)s); a player takes part in an event once."
                    )
                    % {"player": names[player_pk], "ranks": ", ".join(map(str, sorted(ranks)))}
                )
        for rank, players in sorted(by_rank.items()):
            if len(players) > 1:
                problems.append(
                    gettext("Starting rank %(rank)s is given to %(players)s; ranks are unique.")
                    % {"rank": rank, "players": gettext(" and ").join(players)}
                )
        return problems

    def _removed_with_games(self, deleted_ids: list[int]) -> list[str]:
        """Deleted participants who still have games in the event."""
        played: dict[int, set[int]] = defaultdict(set)
        games = Game.objects.filter(event=self.instance).filter(
            Q(white_id__in=deleted_ids) | Q(black_id__in=deleted_ids)
        )
        for white, black, round_ in games.values_list("white_id", "black_id", "round"):
            for participant_id in (white, black):
                if participant_id in deleted_ids:
                    played[participant_id].add(round_)
        labels = {form.instance.pk: participant_label(form.instance) for form in self.deleted_forms}
        return [
            gettext("%(player)s has games in round %(rounds)s; delete those games before removing the participant.")
            % {"player": labels[participant_id], "rounds": ", ".join(map(str, sorted(rounds)))}
            for participant_id, rounds in played.items()
        ]


# --- games ---------------------------------------------------------------------------------------------


class VersionField(forms.IntegerField):
    """The version of the game the editor saw (optimistic lock). Never counts as a change by itself."""

    widget = forms.HiddenInput

    def has_changed(self, initial, data) -> bool:
        return False


class GameForm(forms.ModelForm):
    """One game: round, board, white and black by starting rank (black empty for a bye), result, date."""

    white_rank = forms.IntegerField(
        label=gettext_lazy("White"),
        min_value=1,
        help_text=gettext_lazy("Starting rank of the white player"),
        widget=forms.NumberInput(attrs={"style": "width: 5em", "min": 1}),
    )
    black_rank = forms.IntegerField(
        label=gettext_lazy("Black"),
        min_value=1,
        required=False,
        help_text=gettext_lazy("Starting rank of the black player; empty for a bye"),
        widget=forms.NumberInput(attrs={"style": "width: 5em", "min": 1}),
    )
    expected_version = VersionField(required=False)

    class Meta:
        model = Game
        fields = ["round", "board", "white_rank", "black_rank", "result", "date"]
        widgets = {
            "round": forms.NumberInput(attrs={"style": "width: 4em", "min": 1}),
            "board": forms.NumberInput(attrs={"style": "width: 4em", "min": 1}),
        }

    def __init__(self, *args, event: Event | None = None, participants: dict[int, Participant] | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.event = event
        self._participants = participants
        # The values the editor saw travel with the form, so "changed" means changed by this editor — not
        # "differs from the database", which after someone else's save would overwrite their result.
        for name in ("round", "board", "white_rank", "black_rank", "result", "date"):
            if name in self.fields:
                self.fields[name].show_hidden_initial = True
        instance = self.instance
        if instance.pk:
            self.initial.setdefault("white_rank", instance.white.start_rank)
            self.initial.setdefault("black_rank", instance.black.start_rank if instance.black_id else None)
            self.initial.setdefault("expected_version", instance.version)

    # The event and its participants: given by the formset, or (stand-alone form) from the chosen event.
    def event_for(self, data) -> Event | None:
        return self.event

    def participants_for(self, event: Event) -> dict[int, Participant]:
        if self._participants is None:
            self._participants = participants_by_rank(event)
        return self._participants

    def clean_round(self):
        round_ = self.cleaned_data.get("round")
        if round_ is not None and round_ < 1:
            raise ValidationError("Rounds are numbered from 1.")
        return round_

    def clean(self):
        data = super().clean()
        event = self.event_for(data)
        if event is None:
            return data
        participants = self.participants_for(event)
        round_, board, result = data.get("round"), data.get("board"), data.get("result")
        place = place_label(round_, board)
        white = self._participant(data, "white_rank", participants, event, place)
        black = self._participant(data, "black_rank", participants, event, place)
        pairing = " – ".join(participant_label(p) for p in (white, black) if p is not None)
        if round_ and round_ > event.rounds:
            self.add_error(
                "round",
                gettext("Round %(round)s is beyond the %(rounds)s rounds of %(event)s (%(pairing)s).")
                % {"round": round_, "rounds": event.rounds, "event": event.name, "pairing": pairing},
            )
        if white is not None and black is not None and white.pk == black.pk:
            self.add_error(
                "black_rank",
                gettext("%(place)s: %(player)s cannot play against themselves.")
                % {"place": place, "player": participant_label(white)},
            )
        if result in BYE_RESULTS and data.get("black_rank") is not None:
            opponent = participant_label(black) if black else gettext("rank %(rank)s") % {"rank": data["black_rank"]}
            self.add_error(
                "black_rank",
                gettext(
                    "%(place)s: a %(bye)s for %(player)s has no opponent — remove %(opponent)s or choose a game result."
                )
                % {
                    "place": place,
                    "bye": str(Result(result).label).lower(),
                    "player": participant_label(white) if white else gettext("white"),
                    "opponent": opponent,
                },
            )
        if result and result not in BYE_RESULTS and data.get("black_rank") is None and white is not None:
            self.add_error(
                "black_rank",
                gettext(
                    "%(place)s: %(player)s has result %(result)s but no opponent — enter black's starting rank or "
                    "choose a bye."
                )
                % {"place": place, "player": participant_label(white), "result": Result(result).label},
            )
        self._check_version(data, place, pairing)
        self.instance.white = white
        self.instance.black = black
        return data

    def _participant(self, data, field: str, participants, event: Event, place: str) -> Participant | None:
        rank = data.get(field)
        if rank is None:
            return None
        participant = participants.get(rank)
        if participant is None:
            if participants:
                known = gettext("ranks 1–%(last)s") % {"last": max(participants)}
            else:
                known = gettext("no participants yet; save them first")
            self.add_error(
                field,
                gettext("%(place)s: starting rank %(rank)s is not a participant of %(event)s (%(known)s).")
                % {"place": place, "rank": rank, "event": event.name, "known": known},
            )
        return participant

    def _check_version(self, data, place: str, pairing: str) -> None:
        """Optimistic lock: refuse to overwrite a game someone else saved since this form was loaded."""
        expected = data.get("expected_version")
        if not self.instance.pk or expected is None or expected == self.instance.version:
            return
        if not self.has_changed():
            return
        self.add_error(None, stale_game_message(self.instance, place, pairing))

    def to_edit(self, *, delete: bool = False) -> GameEdit:
        data = self.cleaned_data
        if delete:
            return GameEdit(game_id=self.instance.pk, delete=True, expected_version=data.get("expected_version"))
        return GameEdit(
            game_id=self.instance.pk,
            round=data["round"],
            board=data.get("board"),
            white_id=self.instance.white.pk,
            black_id=self.instance.black.pk if self.instance.black else None,
            result=data["result"],
            date=data.get("date"),
            expected_version=data.get("expected_version"),
        )


def stale_game_message(game: Game, place: str, pairing: str) -> str:
    return gettext(
        "%(place)s (%(pairing)s) was changed by someone else while you were editing it (now: %(result)s); "
        "your change was not saved. Reload the page and enter it again."
    ) % {"place": place, "pairing": pairing, "result": game.result}


def participants_by_rank(event: Event) -> dict[int, Participant]:
    if event.pk is None:
        return {}
    return {p.start_rank: p for p in Participant.objects.filter(event=event).select_related("player")}


def pairing_problems(event: Event, rows: dict[object, tuple], participants: dict[int, Participant]) -> list[str]:
    """Rules across games of the event: a participant plays at most once per round; no round beyond the
    event's rounds. ``rows`` maps a game key to (round, board, white_id, black_id) for the state to be saved.
    """
    labels = {p.pk: participant_label(p) for p in participants.values()}
    games = list(rows.values())
    beyond = {round_ for round_, _, _, _ in games if round_ > event.rounds}
    problems = []
    for (round_, participant_id), positions in paired_twice((r, white, black) for r, _, white, black in games).items():
        # each of the participant's games: its board and the other side (white's opponent is black, and back)
        paired = [(games[i][1], games[i][3] if games[i][2] == participant_id else games[i][2]) for i in positions]
        nobody = gettext("nobody (bye)")
        where = "; ".join(
            gettext("%(board)s against %(opponent)s")
            % {
                "board": gettext("board %(board)s") % {"board": board} if board else gettext("no board"),
                "opponent": labels.get(opponent, nobody) if opponent else nobody,
            }
            for board, opponent in paired
        )
        who = labels.get(participant_id, gettext("participant #%(id)s") % {"id": participant_id})
        problems.append(
            gettext("Round %(round)s: %(player)s is paired %(times)s times (%(where)s); a player plays once per round.")
            % {"round": round_, "player": who, "times": len(paired), "where": where}
        )
    for round_ in sorted(beyond):
        problems.append(
            gettext("Round %(round)s has games but %(event)s has only %(rounds)s rounds.")
            % {"round": round_, "event": event.name, "rounds": event.rounds}
        )
    return problems


if TYPE_CHECKING:
    _GameFormSetBase = forms.BaseInlineFormSet[Game, Event, GameForm]
else:  # not subscriptable at run time
    _GameFormSetBase = forms.BaseInlineFormSet


class BaseGameFormSet(_GameFormSetBase):
    """Games of one event (all, or one round); checks the whole event after the edits are applied."""

    entry_round: int | None = None  # set by the admin when the page shows one round

    @cached_property
    def participants(self) -> dict[int, Participant]:
        return participants_by_rank(self.instance)

    def get_form_kwargs(self, index):
        kwargs = super().get_form_kwargs(index)
        kwargs["event"] = self.instance
        kwargs["participants"] = self.participants
        return kwargs

    def _construct_form(self, i, **kwargs):
        form = super()._construct_form(i, **kwargs)
        if i >= self.initial_form_count() and self.entry_round and not form.is_bound:
            form.initial.setdefault("round", self.entry_round)
        return form

    @property
    def empty_form(self):
        form = super().empty_form
        if self.entry_round:
            form.initial.setdefault("round", self.entry_round)
        return form

    def clean(self):
        # Replaces BaseModelFormSet.validate_unique: the pairing rules below cover the unique constraints.
        if self.instance.pk is None:
            return
        rows: dict[object, tuple] = {
            pk: (round_, board, white, black)
            for pk, round_, board, white, black in Game.objects.filter(event=self.instance).values_list(
                "pk", "round", "board", "white_id", "black_id"
            )
        }
        problems = []
        for index, form in enumerate(self.forms):
            if self.can_delete and marked_for_deletion(self, form):
                if form.instance.pk:
                    rows.pop(form.instance.pk, None)
                    expected = form.cleaned_data.get("expected_version") if hasattr(form, "cleaned_data") else None
                    if expected is not None and expected != form.instance.version:
                        problems.append(
                            stale_game_message(
                                form.instance,
                                place_label(form.instance.round, form.instance.board),
                                str(form.instance),
                            )
                        )
                continue
            if form.errors or not form.has_changed():
                continue
            data = form.cleaned_data
            key = form.instance.pk or f"new-{index}"
            black = form.instance.black
            rows[key] = (
                data["round"],
                data.get("board"),
                form.instance.white.pk,
                black.pk if black else None,
            )
        problems.extend(pairing_problems(self.instance, rows, self.participants))
        if problems:
            raise ValidationError(problems)

    def edits(self) -> list[GameEdit]:
        """The changes to apply, for events.services (call after is_valid())."""
        edits = []
        for form in self.initial_forms:
            if self.can_delete and marked_for_deletion(self, form):
                edits.append(form.to_edit(delete=True))
            elif form.has_changed():
                edits.append(form.to_edit())
        for form in self.extra_forms:
            if form.has_changed() and not (self.can_delete and marked_for_deletion(self, form)):
                edits.append(form.to_edit())
        return edits


class GameAdminForm(GameForm):
    """The stand-alone game form (Game admin): the event is a field; participants come from it."""

    class Meta(GameForm.Meta):
        fields = ["event", "round", "board", "white_rank", "black_rank", "result", "date"]

    def event_for(self, data) -> Event | None:
        return self.instance.event if self.instance.pk else data.get("event")

    def clean(self):
        data = super().clean()
        event = self.event_for(data)
        if event is None or self.errors:
            return data
        rows: dict[object, tuple] = {
            pk: (round_, board, white, black)
            for pk, round_, board, white, black in Game.objects.filter(event=event).values_list(
                "pk", "round", "board", "white_id", "black_id"
            )
        }
        black = self.instance.black
        rows[self.instance.pk or "new"] = (
            data["round"],
            data.get("board"),
            self.instance.white.pk,
            black.pk if black else None,
        )
        for problem in pairing_problems(event, rows, self.participants_for(event)):
            self.add_error(None, problem)
        return data


class ReasonForm(forms.Form):
    """One required reason (a correction, a refusal): what it is for and what to say when it is empty."""

    reason_help: str | Promise = ""
    reason_missing: str | Promise = "Give the reason."
    reason = forms.CharField(widget=forms.Textarea(attrs={"rows": 3, "cols": 80}))

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["reason"].help_text = self.reason_help

    def clean_reason(self):
        reason = self.cleaned_data["reason"].strip()
        if not reason:
            raise ValidationError(self.reason_missing)
        return reason


class CorrectionForm(ReasonForm):
    reason_help = gettext_lazy(
        "Why the rated results change (e.g. 'round 4 board 2: result reported reversed by the arbiter')."
    )
    reason_missing = gettext_lazy("Give the reason for the correction.")


class ParticipantsPasteForm(forms.Form):
    """Many participants at once (events.services_participants): one player a line, by ID number or name."""

    players = forms.CharField(
        label=gettext_lazy("Players"),
        widget=forms.Textarea(attrs={"rows": 14, "cols": 60, "spellcheck": "false", "autofocus": True}),
        help_text=gettext_lazy(
            "One player a line: the ID number (FIDE ID where known) or the name as “Surname, Given names”; a line "
            "copied from a spreadsheet counts by its first cell. They get the next starting ranks in this order."
        ),
    )
