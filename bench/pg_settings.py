"""Benchmark: PostgreSQL settings for publication, each measured against PostgreSQL's defaults.

Run from the repository root, as root (the server programs then run as the postgres account, through
``runuser``) or as the account that owns PostgreSQL, with PostgreSQL's server binaries installed
(/usr/lib/postgresql/<version>/bin, or --bin):

    python bench/pg_settings.py                                    # small: 20,000 players, 10,000 games
    python bench/pg_settings.py --players 200000 --games 100000    # the size docs/operations.md reports
    python bench/pg_settings.py --only shared_buffers,wal_level --rounds 5
    python bench/pg_settings.py --keep-cluster                     # keep the cluster's directory (see --cluster)

The settings need server restarts, so the benchmark never touches the server of DATABASE_URL: it creates a
private cluster of its own (initdb under /tmp, listening on 127.0.0.1 only, on a free port), builds
bench/publish.py's federation in it ONCE (its ``build``: a starting list, four months of events, every list but
the last published), and then, for each candidate setting, publishes the last list the way bench/publish.py
measures it (``publish_in_copy``: a copy of the built database, the real ``rating_list_publish`` in a process
of its own, then the bare COPY of the same rows) alternately without and with the setting: baseline, setting,
baseline, setting ... (--rounds pairs, 3 by default), restarting the server before every run, so that the
drift of a shared, loaded machine falls on both sides alike. It prints every run and then one table:

    setting | baseline median | with the setting median | with / baseline | pairs won | ratio to the bare
    I/O (both) | peak memory | verdict

Verdict (on the publication's wall time): "faster" or "slower" when the medians differ by more than 5 % and a
one-sided Mann-Whitney U test puts the two sets of runs apart at p <= 0.05 (with 3 runs each: every run on
one side beats every run on the other); otherwise "no clear effect".

The cluster is stopped and removed at the end unless --keep-cluster is given; ``--cluster DIR`` uses (and
keeps) DIR, reusing the federation already built there when --players and --games match.
"""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench import publish  # noqa: E402 (needs the repository on sys.path)

# A candidate changes the publication's wall time when the medians differ by more than NOISE and the runs
# with it rank below (or above) the baseline's beyond what noise gives 1 time in 20 (Mann-Whitney U, one-sided;
# with 3 runs each: every run with the setting faster, or slower, than every baseline run). Counting only the
# pairs that agree was too lenient on this machine: with 3 pairs it called 8 GB of max_wal_size "slower".
NOISE = 0.05
SIGNIFICANCE = 0.05
MIN_PAIRS = 3
SETTING_FILE = "bench_setting.conf"


def memory_setting(megabytes: int) -> str:
    """A size as SHOW prints it back (2GB, 1536MB), so that the applied value can be checked."""
    return f"{megabytes // 1024}GB" if megabytes % 1024 == 0 else f"{megabytes}MB"


def quarter_of_memory_capped() -> str:
    """shared_buffers' usual advice: 25 % of the machine's memory, at most 2 GB here (a database server shares
    the machine with nothing; this one shares it with the workers and other agents)."""
    total_mb = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") // (1024 * 1024)
    return memory_setting(min(total_mb // 4, 2048))


@dataclass(frozen=True)
class Candidate:
    name: str
    baseline: str
    change: str
    server: dict[str, str] = field(default_factory=dict)  # postgresql.conf, for the runs with the setting
    session: dict[str, str] = field(default_factory=dict)  # the publication's connection only


def candidates() -> list[Candidate]:
    buffers = quarter_of_memory_capped()
    return [
        Candidate("shared_buffers", "128MB", buffers, {"shared_buffers": buffers}),
        Candidate("max_wal_size", "1GB", "8GB", {"max_wal_size": "8GB"}),
        Candidate("checkpoint_timeout", "5min", "30min", {"checkpoint_timeout": "30min"}),
        Candidate("wal_compression", "off", "lz4", {"wal_compression": "lz4"}),
        Candidate("synchronous_commit", "on", "off (publication only)", session={"synchronous_commit": "off"}),
        Candidate("maintenance_work_mem", "64MB", "512MB", {"maintenance_work_mem": "512MB"}),
        Candidate("work_mem", "4MB", "256MB", {"work_mem": "256MB"}),
        Candidate(
            "wal_level",
            "replica, 10 senders",
            "minimal, 0 senders",
            {"wal_level": "minimal", "max_wal_senders": "0"},
        ),
    ]


# --------------------------------------------------------------------------------------------------------
# The private cluster
# --------------------------------------------------------------------------------------------------------
def default_binaries() -> Path | None:
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"), key=lambda p: int(p.parts[-3]), reverse=True)
    return found[0].parent if found else None


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Cluster:
    """A PostgreSQL cluster of the benchmark's own under ``base``: data in base/data, its socket in base."""

    def __init__(self, binaries: Path, base: Path, port: int) -> None:
        self.binaries, self.base, self.port = binaries, base, port
        self.data = base / "data"
        self.running = False

    @property
    def url(self) -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/bench_publish"

    def run(self, program: str, *arguments: str) -> None:
        """PostgreSQL's server programs refuse to run as root: run them as the postgres account."""
        prefix = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        done = subprocess.run(
            [*prefix, str(self.binaries / program), *arguments], capture_output=True, text=True, timeout=300
        )
        if done.returncode != 0:
            log = self.base / "server.log"
            tail = log.read_text()[-2000:] if log.exists() else ""
            raise SystemExit(f"{program} {' '.join(arguments)} failed:\n{done.stdout}{done.stderr}{tail}")

    def create(self) -> None:
        self.base.mkdir(parents=True, exist_ok=True)
        if os.geteuid() == 0:
            shutil.chown(self.base, "postgres", "postgres")
        self.run("initdb", "-D", str(self.data), "-U", "postgres", "--auth=trust", "-E", "UTF8")
        with open(self.data / "postgresql.conf", "a") as conf:
            # Last, so that the candidate's lines win over initdb's.
            conf.write(
                f"\nlisten_addresses = '127.0.0.1'\nunix_socket_directories = '{self.base}'\n"
                f"include_if_exists = '{SETTING_FILE}'\n"
            )

    def start(self, settings: dict[str, str]) -> None:
        """(Re)start the server with ``settings`` on top of the defaults, and check that they took effect."""
        self.stop()
        (self.data / SETTING_FILE).write_text("".join(f"{name} = '{value}'\n" for name, value in settings.items()))
        self.run("pg_ctl", "-D", str(self.data), "-l", str(self.base / "server.log"), "-o", f"-p {self.port}", "-w",
                 "start")  # fmt: skip
        self.running = True
        import psycopg

        with psycopg.connect(publish.server_url(self.url), autocommit=True) as connection:
            for name, value in settings.items():
                shown = connection.execute(f"SHOW {name}").fetchone()[0]
                if shown != value:
                    raise SystemExit(f"{name}: the server runs with {shown!r}, not {value!r}")

    def stop(self) -> None:
        if self.running:
            self.run("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "stop")
            self.running = False


# --------------------------------------------------------------------------------------------------------
# Measurement
# --------------------------------------------------------------------------------------------------------
@dataclass
class Run:
    seconds: float
    bare_seconds: float
    memory_mb: float

    @property
    def io_ratio(self) -> float:
        return self.seconds / self.bare_seconds


def measure_once(cluster: Cluster, marker: dict, candidate: Candidate, with_setting: bool) -> Run:
    cluster.start(candidate.server if with_setting else {})
    session = " ".join(f"-c {name}={value}" for name, value in candidate.session.items()) if with_setting else ""
    result, io = publish.publish_in_copy(cluster.url, marker, keep=False, session_options=session)
    if not result["created"]:
        raise SystemExit("the list was already published in the copy: build again (a new --cluster)")
    return Run(result["seconds"], io["games_out_seconds"] + io["entries_in_seconds"], result["maxrss_kb"] / 1024)


def one_sided_p(changed: list[Run], baseline: list[Run], alternative: str) -> float:
    """Mann-Whitney U (exact): the chance that noise alone ranks the runs with the setting this far below
    (``less``) or above (``greater``) the baseline's. Its smallest value is 1/20 with 3 runs each."""
    from scipy.stats import mannwhitneyu

    test = mannwhitneyu([r.seconds for r in changed], [r.seconds for r in baseline], alternative=alternative)
    return float(test.pvalue)


def verdict(baseline: list[Run], changed: list[Run]) -> str:
    if len(baseline) < MIN_PAIRS:
        return f"none (fewer than {MIN_PAIRS} pairs)"
    ratio = statistics.median(r.seconds for r in changed) / statistics.median(r.seconds for r in baseline)
    if ratio <= 1 - NOISE and one_sided_p(changed, baseline, "less") <= SIGNIFICANCE:
        return "faster"
    if ratio >= 1 + NOISE and one_sided_p(changed, baseline, "greater") <= SIGNIFICANCE:
        return "slower"
    return "no clear effect"


def print_table(results: list[tuple[Candidate, list[Run], list[Run]]], rounds: int) -> None:
    print()
    print(f"median of {rounds} interleaved runs each (baseline, setting, baseline, setting ...); wall time of")
    print("rating_list_publish; faster = pairs where the run with the setting was faster; p = one-sided")
    print("Mann-Whitney U of the wall times; ratio = publication / bare COPY I/O of the same rows; peak = ru_maxrss")
    header = (
        f"{'setting':22} {'baseline':>20} {'with setting':>24} {'base s':>8} {'with s':>8} {'with/base':>9} "
        f"{'faster':>7} {'p':>5} {'ratio base':>10} {'ratio with':>10} {'peak MB':>12}  verdict"
    )
    print(header)
    print("-" * len(header))
    for candidate, baseline, changed in results:
        base_s = statistics.median(r.seconds for r in baseline)
        with_s = statistics.median(r.seconds for r in changed)
        faster = sum(b.seconds < a.seconds for a, b in zip(baseline, changed, strict=True))
        p = min(one_sided_p(changed, baseline, side) for side in ("less", "greater"))
        peaks = [statistics.median(r.memory_mb for r in runs) for runs in (baseline, changed)]
        peak = f"{peaks[0]:,.0f}/{peaks[1]:,.0f}"
        print(
            f"{candidate.name:22} {candidate.baseline:>20} {candidate.change:>24} {base_s:>8.2f} {with_s:>8.2f} "
            f"{with_s / base_s:>9.3f} {f'{faster}/{len(baseline)}':>7} {p:>5.2f} "
            f"{statistics.median(r.io_ratio for r in baseline):>10.2f} "
            f"{statistics.median(r.io_ratio for r in changed):>10.2f} {peak:>12}  {verdict(baseline, changed)}"
        )


def prepare(cluster: Cluster, players: int, games: int) -> dict:
    """The built federation: reused when the cluster already holds one of this size, built otherwise."""
    cluster.start({})
    # The build's COPYs of a large federation run longer than the connections' default statement timeout.
    os.environ.setdefault("DATABASE_STATEMENT_TIMEOUT", "0")
    return publish.ensure_built(cluster.url, players, games)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=20_000, help="registered players (default 20,000)")
    parser.add_argument("--games", type=int, default=10_000, help="rated games in the list's period (default 10,000)")
    parser.add_argument("--rounds", type=int, default=3, help="baseline/setting pairs per candidate (default 3)")
    names = [c.name for c in candidates()]
    parser.add_argument("--only", help=f"comma-separated candidates (default all: {','.join(names)})")
    parser.add_argument("--bin", type=Path, default=default_binaries(), help="PostgreSQL's server binaries")
    parser.add_argument("--port", type=int, default=0, help="the private cluster's port (default a free one)")
    parser.add_argument("--cluster", type=Path, help="the cluster's directory, kept (reused when built already)")
    parser.add_argument("--keep-cluster", action="store_true", help="keep the cluster's directory at the end")
    args = parser.parse_args()
    if args.bin is None or not (args.bin / "initdb").exists():
        raise SystemExit("PostgreSQL's server binaries (initdb, pg_ctl) not found: give --bin DIRECTORY")
    if os.geteuid() == 0 and shutil.which("runuser") is None:
        raise SystemExit("running as root needs runuser (util-linux) to start PostgreSQL as postgres")
    if args.rounds < 1:
        raise SystemExit(f"--rounds must be at least 1, not {args.rounds}")
    chosen = candidates()
    if args.only:
        wanted = [name.strip() for name in args.only.split(",") if name.strip()]
        unknown = sorted(set(wanted) - set(names))
        if unknown:
            raise SystemExit(f"--only: unknown candidate(s) {', '.join(unknown)}; choose among {', '.join(names)}")
        chosen = [c for c in chosen if c.name in wanted]

    base = args.cluster or Path(tempfile.mkdtemp(prefix="federation-pgsettings-"))
    keep = args.keep_cluster or args.cluster is not None
    cluster = Cluster(args.bin, base, args.port or free_port())
    began = time.perf_counter()
    try:
        if not (cluster.data / "PG_VERSION").exists():
            cluster.create()
        print(f"private cluster: {cluster.data} on 127.0.0.1:{cluster.port} ({args.bin})")
        marker = prepare(cluster, args.players, args.games)
        results = []
        for candidate in chosen:
            baseline: list[Run] = []
            changed: list[Run] = []
            for number in range(1, args.rounds + 1):
                for with_setting, runs in ((False, baseline), (True, changed)):
                    run = measure_once(cluster, marker, candidate, with_setting)
                    runs.append(run)
                    side = candidate.change if with_setting else candidate.baseline
                    print(
                        f"  {candidate.name} = {side}, run {number}/{args.rounds}: {run.seconds:.2f} s, "
                        f"ratio {run.io_ratio:.2f}, {run.memory_mb:,.0f} MB",
                        flush=True,
                    )
            results.append((candidate, baseline, changed))
        print(
            f"\nfederation: {marker['players']:,} players, {args.games:,} rated games in the period "
            f"(list {marker['list_date']}); measured in {(time.perf_counter() - began) / 60:.1f} min"
        )
        print_table(results, args.rounds)
    finally:
        cluster.stop()
        if keep:
            print(f"cluster kept in {base} (--cluster {base} reuses it)")
        else:
            shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
