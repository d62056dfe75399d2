"""The benchmarks at a small size, so that they cannot rot: bench/load.py (gunicorn serving real requests idle
and during a real publication: no error, no request waiting on a lock), bench/publication_kills.py (a
publication killed at random points: no partial list, identical retries) and bench/history.py (list 1 and the
last list of a history compared: every figure printed, the build resumable) on PostgreSQL;
bench/import_fide_list.py (a generated FIDE list imported twice) on the database the tests run on."""

import contextlib
import os
import re
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlparse

import psycopg
import pytest

ROOT = Path(__file__).resolve().parents[2]

ON_POSTGRESQL = os.environ.get("DATABASE_URL", "").startswith(("postgres://", "postgresql://"))
postgresql_only = pytest.mark.skipif(
    not ON_POSTGRESQL,
    reason="these benchmarks measure PostgreSQL (they copy the benchmark database with CREATE DATABASE ... "
    "TEMPLATE, sample pg_stat_activity and terminate backends); the SQLite default has none of that",
)


@contextlib.contextmanager
def scratch_database(kind: str):
    url = urlparse(os.environ["DATABASE_URL"])
    name = f"bench_{kind}_ci_{os.getpid()}"
    admin_url = url._replace(path="/postgres").geturl()
    kept = (
        name,
        f"{name}_load",
        f"{name}_kill",
        f"{name}_list1",
        f"{name}_list3",
    )  # and the copies the benchmarks make
    drops = [f'DROP DATABASE IF EXISTS "{n}" WITH (FORCE)' for n in kept]
    try:
        with psycopg.connect(admin_url, autocommit=True) as admin:
            admin.execute(drops[0])
            admin.execute(f'CREATE DATABASE "{name}"')
        yield url._replace(path=f"/{name}").geturl()
    finally:
        with psycopg.connect(admin_url, autocommit=True) as admin:
            for drop in drops:
                admin.execute(drop)


def bench(script: str, url: str | None, *args: str, more_env: dict[str, str] | None = None) -> list[str]:
    """The script's output lines; ``url`` None: no DATABASE_URL (a benchmark's own SQLite file)."""
    env = {key: value for key, value in os.environ.items() if key != "DATABASE_URL"} | (more_env or {})
    result = subprocess.run(
        [sys.executable, f"bench/{script}", *args],
        env=env if url is None else dict(env, DATABASE_URL=url),
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-3000:]
    return result.stdout.splitlines()


def line(lines: list[str], start: str) -> list[str]:
    return next(text for text in lines if text.strip().startswith(start)).split()


@postgresql_only
def test_load_benchmark_runs_small_with_no_errors_and_no_lock_waits():
    with scratch_database("load") as url:
        lines = bench("load.py", url, "--players", "1500", "--games", "800", "--seconds", "2", "--clients", "3")
        # the idle figures alone, on the database already built, with a connection per request
        idle_only = bench(
            "load.py", url, "--idle-only", "--seconds", "2", "--clients", "3", more_env={"DATABASE_CONN_MAX_AGE": "0"}
        )
    assert "created: True" in " ".join(line(lines, "publication:")), lines
    assert line(lines, "errors (both phases)")[3] == "0", lines
    assert line(lines, "samples with a session waiting on a lock")[8] == "0", lines
    assert int(line(lines, "idle ")[1].replace(",", "")) > 0, lines
    assert int(line(idle_only, "idle ")[1].replace(",", "")) > 0, idle_only
    assert line(idle_only, "errors")[1] == "0", idle_only
    assert not [text for text in idle_only if text.startswith(("publication", "during"))], idle_only


@postgresql_only
def test_publication_kills_benchmark_runs_small_with_no_partial_list_and_identical_retries():
    with scratch_database("kills") as url:
        lines = bench("publication_kills.py", url, "--kills", "2", "--players", "1500", "--games", "800")
    assert line(lines, "publication killed at random points")[-1] == "2", lines
    assert line(lines, "partial lists left")[3] == "0", lines
    assert line(lines, "retries identical to the undisturbed run")[6] == "2", lines


HISTORY_FIGURES = (
    "publication wall time (s)",
    "publication / bare COPY I/O",
    "publication peak memory (MB)",
    "entries: bytes per entry, all lists",
    "entries: the list's storage (MB)",
    "entries: the list's bytes per entry",
    "rating changes: the list's storage (MB)",
    "games: the list's storage (MB)",
)
HISTORY_TABLES = ("entries", "rating changes", "games", "participants", "events")


# a row's "met?" at its end: yes, or NO and, for a page that showed more at the later list, how much more
VERDICT = r"(?P<met>yes|NO)(?: \(shows \d+\.\dx\))?$"
# a page's row in the second table: name, list K's and list N's medians, their ratio, the bytes ratio, met?
PAGE_ROW = re.compile(r"^  \S.*? +[\d.]+ +(?P<time>[\d.]+) +[\d.]+ +[\d.]+  " + VERDICT)


def verdict_of_row(text: str) -> str:
    found = re.search(" " + VERDICT, text)
    assert found, text
    return found.group("met")


def figure_rows(lines: list[str]) -> dict[str, list[str]]:
    """The comparison table: figure -> [list 1, list N, ratio, met?] (figure names hold spaces, values do not)."""
    start = next(i for i, text in enumerate(lines) if text.startswith("figure "))
    rows = {}
    for text in lines[start + 1 :]:
        if not text.strip():
            break
        name, values = text[:58].strip(), text[58:].split()
        rows[name] = [values[0], values[1], values[2], verdict_of_row(text)]
    return rows


@postgresql_only
def test_history_benchmark_runs_small_prints_every_figure_and_resumes_from_the_database():
    with scratch_database("history") as url:
        # list 3 stands for list 13, where a player's pages are full: kept, and its pages compared with list 5's
        args = ("--players", "2000", "--lists", "5", "--web-requests", "4", "--web-rounds", "2", "--full-at", "3")
        first = bench("history.py", url, *args)
        again = bench("history.py", url, *args)
        # the pages measured again, and against another built history (here the one kept after list 1)
        compared = bench("history.py", url, *args, "--web-again", "--web-against", f"{url}_list1")
    rows = figure_rows(first)
    for name in HISTORY_FIGURES:
        assert name in rows, (name, first)
    web = [name for name in rows if name.startswith("web median (ms): ")]
    assert len(web) >= 10, first
    for name, (list_1, list_n, ratio, met) in rows.items():
        assert float(list_1.replace(",", "")) >= 0, (name, first)
        assert float(list_n.replace(",", "")) >= 0, (name, first)
        assert float(ratio) >= 0, (name, first)
        assert met in ("yes", "NO"), (name, first)
    assert float(rows["entries: bytes per entry, all lists"][0].replace(",", "")) > 0, first
    assert float(rows["publication wall time (s)"][0]) > 0, first
    assert any(text.startswith("list 2 (2027-01-01): cloned") for text in first), first
    assert any(text.startswith("list 3 (2027-03-01): cloned") for text in first), first
    for table in HISTORY_TABLES:  # the tables that grow with history, at list 1's moment and at list 5's
        at = [text.split()[-8] for text in first if text.startswith(f"{table:16} ")]
        assert at == ["2026-11-01", "2027-07-01"], (table, first)
    # the second run finds everything in the database: nothing published or cloned again, the same figures
    assert not [text for text in again if text.startswith("list ")], again  # "list 2 (...): cloned ...", etc.
    assert figure_rows(again) == rows
    assert not [text for text in compared if text.startswith("list ") and "): " in text], compared  # no list made
    # what each page answered at either end, beside its time
    shown = first.index(next(text for text in first if text.startswith("what each page answered")))
    sizes = [text.split() for text in first[shown + 2 : shown + 2 + len(web)]]
    assert len(sizes) == len(web), first
    assert all(int(row[-3].replace(",", "")) > 0 for row in sizes), first
    assert any(text.startswith("  kept the history after list 3 as bench_history_ci_") for text in first), first
    # kept as after a real list, with events awaiting rating (the next clone rates them), and the last list's
    # period still simulated for real
    awaiting = next(text for text in first if text.endswith(" events awaiting rating after list 3")).split()[0]
    assert int(awaiting.replace(",", "")) > 0, first
    assert any(text.startswith("list 5 (2027-07-01): ") and " events simulated in " in text for text in first), first
    for run in (first, again, compared):  # every page after list 3 against list 5, in the same rounds
        full = run.index(next(text for text in run if text.startswith("web medians (ms) once a player's pages")))
        assert run[full + 1].split()[1:5] == ["list", "3", "2027-03-01", "list"], run[full + 1]
        pages = [PAGE_ROW.match(text) for text in run[full + 2 : full + 2 + len(web)]]
        assert len(pages) == len(web), run
        assert all(page and float(page.group("time")) > 0 for page in pages), run
    heading = next(i for i, text in enumerate(compared) if text.startswith("web medians (ms), bench_history_ci_"))
    pages = [text.split() for text in compared[heading + 2 :] if text.strip()]
    assert len(pages) == len(web), compared
    assert all(page[-1] in ("yes", "NO") and float(page[-2]) > 0 for page in pages), compared


def test_fide_list_import_benchmark_runs_small_and_prints_its_figures_against_the_targets():
    with contextlib.ExitStack() as stack:
        url = stack.enter_context(scratch_database("fide")) if ON_POSTGRESQL else None
        lines = bench("import_fide_list.py", url, "--rows", "2000")
    target = "60 s (PostgreSQL)" if ON_POSTGRESQL else "120 s (SQLite)"
    assert f"under {target}, peak RSS under 1,024 MB" in " ".join(line(lines, "targets at 1,930,000 rows:")), lines
    first, second = line(lines, "first import"), line(lines, "second import")
    assert "(2,000" in first, lines
    assert "created," in first, lines
    assert float(first[6].replace(",", "")) > 0, lines
    assert "(0" in second, lines
    assert "2,000" in second[second.index("created,") + 1], lines
    projected = [text for text in lines if text.strip().startswith("projected at 1,930,000 rows:")]
    assert len(projected) == 2, lines
    assert all("peak RSS so far" in text for text in projected), lines


PG_SERVER_BINARIES = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"), reverse=True)
RUNUSER_FOUND = any((Path(folder) / "runuser").exists() for folder in os.environ.get("PATH", "").split(os.pathsep))


@postgresql_only
@pytest.mark.skipif(
    not PG_SERVER_BINARIES or (os.geteuid() == 0 and not RUNUSER_FOUND),
    reason="bench/pg_settings.py restarts a private PostgreSQL cluster with each setting: it needs PostgreSQL's "
    "server binaries (initdb, pg_ctl under /usr/lib/postgresql) and, as root, runuser to run them as postgres",
)
def test_pg_settings_benchmark_runs_small_and_prints_its_table():
    import re

    # One pair per candidate at a tiny size: the table's shape, not its figures (noise at this size).
    lines = bench("pg_settings.py", None, "--players", "1500", "--games", "800", "--rounds", "1")
    header = next(number for number, text in enumerate(lines) if text.startswith("setting "))
    assert lines[header].split()[-1] == "verdict", lines
    assert set(lines[header + 1]) == {"-"}, lines
    rows = {text.split()[0]: text for text in lines[header + 2 :] if text.strip()}
    assert list(rows) == [
        "shared_buffers", "max_wal_size", "checkpoint_timeout", "wal_compression", "synchronous_commit",
        "maintenance_work_mem", "work_mem", "wal_level",
    ], lines  # fmt: skip
    for row in rows.values():
        # baseline s, with s, with/base, pairs faster, p, both ratios to the bare I/O, peak MB; no verdict from 1 pair
        figures = r" \d+\.\d\d +\d+\.\d\d +\d+\.\d{3} +[01]/1 +\d\.\d\d +\d+\.\d\d +\d+\.\d\d +[\d,]+/[\d,]+  "
        assert re.search(figures + r"none \(fewer than 3 pairs\)$", row), row
    # The private cluster is removed at the end (no --keep-cluster).
    data = Path(line(lines, "private cluster:")[2])
    assert data.parent.name.startswith("federation-pgsettings-"), data
    assert not data.parent.exists(), data


def test_each_web_measurement_starts_from_an_empty_cache_of_its_own():
    """bench/web.py's medians are cold-cache figures: neither the site's cache nor an earlier measurement in the
    same process (Django's memory caches of one location share their data) may answer for it."""
    from django.core.cache import cache

    from bench.web import empty_cache

    cache.set("bench-web-test", "the site's")
    try:
        with empty_cache():
            assert cache.get("bench-web-test") is None
            cache.set("bench-web-test", "the first measurement's")
        with empty_cache():
            assert cache.get("bench-web-test") is None
        assert cache.get("bench-web-test") == "the site's"
    finally:
        cache.delete("bench-web-test")


def test_history_report_says_how_much_more_a_page_showed_when_it_grew():
    """The main table's verdict: a page slower at list N than at list 1 says how much more it answered (its
    median bytes), so a page about a player's record that shows 24 periods where list 1 had one reads as that."""
    from bench.history import TARGET_GROWTH, grown, verdict

    web = {"sizes": {"first": {"chart": 1000, "list": 500}, "last": {"chart": 5600, "list": 510}}}
    assert grown(web, "first", "last", "chart") == 5.6
    assert grown(web, "first", "last", "missing") == 1.0
    assert verdict(False, grown(web, "first", "last", "chart")) == "NO (shows 5.6x)"
    assert verdict(False, grown(web, "first", "last", "list")) == "NO"  # grew in time only: the lists kept
    assert verdict(True, 5.6) == "yes"
    assert verdict(False, TARGET_GROWTH) == "NO"
    for text in ("x  yes", "x  NO", "x  NO (shows 5.6x)"):
        assert verdict_of_row(text) in ("yes", "NO")


def test_a_selections_first_ask_is_measured_with_the_cache_emptied_before_each_request():
    """bench/web.py measures a selection's first visitor (its COUNT not cached yet) apart from the next ones: mixed,
    the median fell between the two clusters and swung between databases that answered alike."""
    from types import SimpleNamespace

    from django.core.cache import cache

    from bench.web import empty_cache, measure

    seen: list[str | None] = []

    class Client:
        def get(self, url: str) -> SimpleNamespace:
            seen.append(cache.get("bench-web-count"))
            cache.set("bench-web-count", url)
            return SimpleNamespace(status_code=200, content=url.encode())

    with empty_cache():
        times, sizes = measure(Client(), ["/a", "/bb"], first_ask=True)
        assert seen == [None, None]
        assert sizes == [2, 3]
        assert len(times) == 2
        measure(Client(), ["/c"])  # the next visitor finds what the last one left
        assert seen[-1] == "/bb"


def test_norms_benchmark_runs_small_and_prints_both_figures():
    lines = bench("norms.py", None, "--players", "40", "--rounds", "9", "--events", "3", "--repeat", "1")
    assert "40 players, 9 rounds:" in " ".join(line(lines, "open:")), lines
    assert "target < 1 s" in " ".join(line(lines, "open:")), lines
    assert "3 events," in " ".join(line(lines, "a simulated year:")), lines


def test_trf_import_benchmark_runs_small_and_prints_its_time_per_game():
    """bench/import_trf.py (issue 36: 103,896 games under 3 s with --big) at a few games, files of two sizes:
    every import succeeds and prints its time, its games and the time per game, with the machine's loop."""
    with contextlib.ExitStack() as stack:
        url = stack.enter_context(scratch_database("trf")) if ON_POSTGRESQL else None
        lines = bench("import_trf.py", url, "--players", "40", "--rounds", "3,6", "--repeat", "1")
    assert float(line(lines, "machine:")[-2]) > 0, lines
    firsts = [text.split() for text in lines if text.startswith("first import")]
    # 19 boards and two half-point byes a round: 3 and 6 rounds
    assert [row[row.index("games") - 1] for row in firsts] == ["63", "126"], lines
    assert all(row[-1] == "µs/game" and float(row[-2]) > 0 for row in firsts), lines
    assert sum(text.startswith("event_import_trf: worst") for text in lines) == 2, lines
