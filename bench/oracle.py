"""Whether the time of an answer tells what exists (issue 27): a real `trainboard serve` team server with two users,
timed on a sample of routes for (a) an experiment that does not exist, (b) another user's private experiment, (c) a
pin that does not exist and (d) a pin of another experiment, all asked by one user, interleaved in a random order.

    .venv/bin/python -m bench.oracle [--rounds 300] [--backend sqlite|postgres|both]

It needs SciPy (in .venv from requirements-tsvis.txt; not a dependency of trainboard).

The route-policy matrix test (tests/http/test_route_policies.py) checks that the four answer alike byte for byte
(status, body, headers); this checks their time. It prints each case's median time per request and the p-value of a
two-sided Mann-Whitney U test (and of a Kolmogorov-Smirnov test) between forbidden and missing, and between a wrong
and a missing pin: a small p-value (below 0.01, say) means the times differ, so an attacker could tell the cases
apart. Each route's times are ranked against its own (the routes differ in cost); the first rounds warm up and are
not counted.
"""

from __future__ import annotations

import argparse
import random
import secrets
import statistics
import tempfile
import time
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
from scipy import stats  # type: ignore[import-untyped]

from tests.cli.logs import write_run
from tests.commands import in_process_command as cli
from tests.pgserver import postgres_server
from tests.servers import store_serving

# The routes timed: read routes of TensorBoard's and trainboard's APIs, and routes of the write and admin policies
# (those only unpinned: a pinned view has none).
READ_ROUTES = (
    "data/runs",
    "data/environment",
    "data/plugin/scalars/tags",
    "data/plugin/scalars/scalars?run=train&tag=loss",
    "data/plugin/histograms/tags",
)
UNPINNED_ROUTES = (*READ_ROUTES, "pins", "upload/files", "admin/access")
WARMUP_ROUNDS = 20


@contextmanager
def team_server(db: str, scratch: Path) -> Iterator[tuple[str, dict[str, str], dict[str, str]]]:
    """`trainboard serve` of a store with alice's and bob's private experiments, each with a pin; its URL, alice's
    token and the ids: alice's experiment, bob's, and the pins of each."""
    for name in ("alices", "bobs"):
        write_run(scratch / name / "train", steps=50)
        cli("ingest", f"--db={db}", f"--experiment={name}", f"--logdir={scratch / name}")
    tokens = {}
    for user, experiment in (("alice", "alices"), ("bob", "bobs")):
        cli("users", "add", user, f"--db={db}")
        # A token limited to the experiment gives the user the role there; the one used is not limited.
        cli("tokens", "create", f"--db={db}", f"--user={user}", f"--experiment={experiment}", "--role=admin")
        tokens[user] = cli("tokens", "create", f"--db={db}", f"--user={user}").strip()
    with store_serving(db, scratch / "serve", "--upload_rate=0") as url, httpx.Client(base_url=url) as client:
        ids = {}
        for user, experiment in (("alice", "alices"), ("bob", "bobs")):
            headers = {"Authorization": f"Bearer {tokens[user]}"}
            (listed,) = client.get("/data/experiments", headers=headers).raise_for_status().json()
            assert listed["name"] == experiment
            ids[experiment] = listed["id"]
            pin = client.post(f"/experiment/{listed['id']}/pins", headers=headers).raise_for_status().json()
            ids[f"{experiment} pin"] = pin["pin"]
        yield url, {"Authorization": f"Bearer {tokens['alice']}"}, ids


def requests(ids: dict[str, str]) -> list[tuple[str, str, str]]:
    """(case, route, path) of every request of one round."""
    missing_experiment, missing_pin = secrets.token_urlsafe(9), secrets.token_urlsafe(9)
    alices, bobs, wrong_pin = ids["alices"], ids["bobs"], ids["bobs pin"]
    found: list[tuple[str, str, str]] = []
    for route in UNPINNED_ROUTES:
        found.append(("missing experiment", route, f"/experiment/{missing_experiment}/{route}"))
        found.append(("forbidden experiment", route, f"/experiment/{bobs}/{route}"))
    for route in READ_ROUTES:
        found.append(("missing pin", route, f"/experiment/{alices}/at/{missing_pin}/{route}"))
        found.append(("wrong pin", route, f"/experiment/{alices}/at/{wrong_pin}/{route}"))
    return found


def measure(url: str, headers: dict[str, str], ids: dict[str, str], rounds: int) -> dict[tuple[str, str], list[float]]:
    """(case, route) -> seconds per request, of `rounds` rounds after the warm-up, each in a random order."""
    times: dict[tuple[str, str], list[float]] = defaultdict(list)
    answers: dict[str, set[tuple[int, bytes]]] = defaultdict(set)
    with httpx.Client(base_url=url, headers=headers) as client:
        for round_ in range(WARMUP_ROUNDS + rounds):
            batch = requests(ids)
            random.shuffle(batch)
            for case, route, path in batch:
                started = time.perf_counter()
                answer = client.get(path)
                elapsed = time.perf_counter() - started
                answers[route].add((answer.status_code, answer.content))
                if round_ >= WARMUP_ROUNDS:
                    times[case, route].append(elapsed)
    # The answers themselves are compared byte for byte by the route-policy matrix test: here, a sanity check.
    differing = {route: found for route, found in answers.items() if len(found) != 1}
    assert not differing, differing
    return times


def centred(times: dict[tuple[str, str], list[float]], case: str) -> list[float]:
    """The case's times, each less the median of its route over every case compared: the routes differ in cost."""
    routes = {route for (found, route) in times if found == case}
    out: list[float] = []
    for route in routes:
        pooled = statistics.median([t for (c, r), ts in times.items() if r == route for t in ts])
        out += [t - pooled for t in times[case, route]]
    return out


def compare(times: dict[tuple[str, str], list[float]], first: str, second: str) -> str:
    routes = {route for (case, route) in times if case == first} & {route for (case, route) in times if case == second}
    subset = {(case, route): found for (case, route), found in times.items() if route in routes}
    a, b = centred(subset, first), centred(subset, second)
    mann_whitney = stats.mannwhitneyu(a, b, alternative="two-sided").pvalue
    kolmogorov_smirnov = stats.ks_2samp(a, b).pvalue
    per_route = {
        route: stats.mannwhitneyu(times[first, route], times[second, route], alternative="two-sided").pvalue
        for route in sorted(routes)
    }
    lowest = min(per_route.items(), key=lambda item: item[1])
    return (
        f"  {first} vs {second}: Mann-Whitney p = {mann_whitney:.3f}, KS p = {kolmogorov_smirnov:.3f}"
        f" ({len(a)} and {len(b)} requests over {len(routes)} routes; lowest per route: p = {lowest[1]:.3f},"
        f" {lowest[0]}, of {len(routes)} tests)"
    )


def report(backend: str, times: dict[tuple[str, str], list[float]]) -> None:
    print(f"{backend}:")
    for case in ("missing experiment", "forbidden experiment", "missing pin", "wrong pin"):
        found = [t for (c, _), ts in times.items() if c == case for t in ts]
        print(f"  {case:22} median {statistics.median(found) * 1e6:8.0f} µs  ({len(found)} requests)")
    print(compare(times, "forbidden experiment", "missing experiment"))
    print(compare(times, "wrong pin", "missing pin"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=300)
    parser.add_argument("--backend", choices=("sqlite", "postgres", "both"), default="both")
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="oracle-"))
    if args.backend in ("sqlite", "both"):
        with team_server(f"sqlite:{scratch / 'team.sqlite'}", scratch / "sqlite") as (url, headers, ids):
            report("sqlite", measure(url, headers, ids, args.rounds))
    if args.backend in ("postgres", "both"):
        with postgres_server() as server:
            db = server.create_database("oracle")
            with team_server(db, scratch / "postgres") as (url, headers, ids):
                report("postgresql", measure(url, headers, ids, args.rounds))


if __name__ == "__main__":
    main()
