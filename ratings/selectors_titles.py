"""Reads of titles (issue 33), each a fixed number of queries: the officers' open candidates for titles by
rating, a list's new titles, a player's titles with their progress toward the next one."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db.models import Q

from events.models import PUBLIC_STATUSES
from players.models import Player, TitleAward
from ratings.engine.classes import TitleProgress, title_covers, title_progress
from ratings.engine.norms import NormOnRecord, NormRequirementCheck, application_checks
from ratings.models import NormRecord, PlayerRating, RatingList, TitleCandidate, current_list_condition

OPEN_CANDIDATES_SHOWN = 30
_CANDIDATES_READ = 300  # newest candidacies read to find the open ones (a player is listed on every list)


def title_candidates_open(limit: int = OPEN_CANDIDATES_SHOWN) -> list[TitleCandidate]:
    """Candidates for a title by rating (B.01 1.3) on current lists, not recorded, whose player does not hold
    the title (nor a higher one) by now: the newest candidacy of each player and title. One query."""
    rows = (
        TitleCandidate.objects.filter(current_list_condition("rating_list"), award__isnull=True)
        .select_related("player", "rating_list")
        .order_by("-rating_list__list_date", "-rating", "pk")[:_CANDIDATES_READ]
    )
    seen: set[tuple[int, str]] = set()
    out = []
    for candidate in rows:
        player = candidate.player
        held = player.women_title if candidate.title.startswith("W") else player.title
        key = (candidate.player_id, candidate.title)
        if key in seen or player.merged_into_id or title_covers(held, candidate.title):
            continue
        seen.add(key)
        out.append(candidate)
    return out[:limit]


@dataclass
class ListNewTitles:
    awards: list[TitleAward]  # awards dated in the list's period
    candidates: list[TitleCandidate]  # the list's candidates for titles by rating


def list_new_titles(rating_list: RatingList) -> ListNewTitles:
    """The titles a list brings: awards dated in its period (after the previous list date, up to its list
    date; a first list: on its date) and the candidates the publication found on it. Two queries."""
    period = Q(date__lte=rating_list.list_date)
    period &= Q(date__gt=rating_list.period_start) if rating_list.period_start else Q(date=rating_list.list_date)
    awards = list(TitleAward.objects.filter(period).select_related("player").order_by("-date", "title", "player_id"))
    candidates = list(
        TitleCandidate.objects.filter(rating_list=rating_list)
        .select_related("player", "award")
        .order_by("title", "-rating", "player_id")
    )
    return ListNewTitles(awards, candidates)


def player_titles(player: Player) -> list[TitleAward]:
    """A player's title awards, newest first. One query."""
    return list(TitleAward.objects.filter(player=player).order_by("-date", "-pk"))


def best_standard_rating(ratings: list[dict[str, Any]], live_ratings: list[dict[str, Any]]) -> int | None:
    """The best of the current published and the live standard rating (B.01 1.5.3a: a rating reached between
    lists counts). No query (the profile has read both)."""
    standard = next((row for row in ratings if row.get("rating_type") == "standard"), {})
    live = next((row.get("live_rating") for row in live_ratings if row.get("rating_type") == "standard"), None)
    return max((r for r in (standard.get("rating"), live) if r is not None), default=None)


def player_title_progress(
    player: Player, ratings: list[dict[str, Any]], live_ratings: list[dict[str, Any]]
) -> list[TitleProgress]:
    """Progress toward the titles above those held, on the standard rating (titles are earned on it): the
    best of the current published rating and the live rating (B.01 1.5.3a: a rating reached between lists
    counts). No query (the profile has read both)."""
    standard = next((row for row in ratings if row.get("rating_type") == "standard"), {})
    best = best_standard_rating(ratings, live_ratings)
    return title_progress(
        player.title, player.women_title, player.sex == "F", best, int(standard.get("rated_games_total") or 0)
    )


@dataclass
class PlayerNormRecords:
    records: list[NormRecord]  # newest event first
    games: dict[str, int]  # norm title -> games the norms are worth together, toward 27 (B.01 1.5)
    applications: list[tuple[str, tuple[NormRequirementCheck, ...]]]  # (title, B.01 1.5's checks) per title


NORM_GAMES_NEEDED = 27  # B.01 1.5: norms covering at least 27 games


def player_norm_records(player: Player, rating_reached: int | None = None) -> PlayerNormRecords:
    """The norms a player made in this database's events (ratings.services.norms.event_norms_store), with the
    games they cover per title and, per title, where an application stands (B.01 1.5: ``rating_reached`` is the
    highest rating known to have been reached). One query."""
    records = list(
        NormRecord.objects.filter(player=player, event__status__in=PUBLIC_STATUSES)
        .select_related("event")
        .order_by("-event__end_date", "title")
    )
    return player_norm_status(records, rating_reached)


def player_norm_status(records: list[NormRecord], rating_reached: int | None) -> PlayerNormRecords:
    """One player's norms (with their events) summed per title, with each application's checks. No query."""
    games: dict[str, int] = {}
    for record in records:
        games[record.title] = games.get(record.title, 0) + record.games
    on_record = [
        NormOnRecord(
            title=r.title,
            games=r.games,
            end_date=r.event.end_date or r.event.start_date or r.computed_at.date(),
            one_four_one_c=r.one_four_one_c,
            exempt=r.exempt,
            one_round_a_day=r.one_round_a_day,
            qualifying=r.qualifying,
        )
        for r in records
    ]
    applications = [(title, application_checks(title, on_record, rating_reached)) for title in sorted(games)]
    return PlayerNormRecords(records, games, applications)


@dataclass
class ApplicationReady:
    player: Player
    title: str
    games: int  # the games the norms cover
    rating: int | None  # the current standard rating (the rating reached may be higher: B.01 1.5.3a)


def norm_applications_complete() -> list[ApplicationReady]:
    """Players whose norms kept here and current standard rating complete an application for a GM, IM, WGM or WIM
    title they do not hold (B.01 1.5, every check met): the officers' dashboard. Two queries."""
    records = list(
        NormRecord.objects.filter(event__status__in=PUBLIC_STATUSES, player__merged_into__isnull=True)
        .select_related("event", "player")
        .order_by("player_id")
    )
    by_player: dict[int, list[NormRecord]] = {}
    for record in records:
        by_player.setdefault(record.player_id, []).append(record)
    ratings = dict(
        PlayerRating.objects.filter(player_id__in=list(by_player), rating_type="standard").values_list(
            "player_id", "rating"
        )
    )
    ready = []
    for player_id, player_records in by_player.items():
        player = player_records[0].player
        status = player_norm_status(player_records, ratings.get(player_id))
        for title, checks in status.applications:
            held = player.women_title if title.startswith("W") else player.title
            if all(c.ok for c in checks) and not title_covers(held, title):
                ready.append(ApplicationReady(player, title, status.games[title], ratings.get(player_id)))
    return ready
