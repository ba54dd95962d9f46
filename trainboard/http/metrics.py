"""Prometheus metrics of a server (`--metrics_port`), in a registry of their own, served by a second small HTTP
server on their own port, at loopback unless `--metrics_host` says otherwise. prometheus-client costs ~90 ms to
import: only a server with metrics imports this module.

Counted as requests pass (`CountRequests`, the app's outermost middleware): requests and their latency per route
template (the route's path as declared, the same at / and under /experiment/<id>/), method and status; upload bytes
and chunks; event streams open; authentication failures (a 401 to a request that presented a token, or a refused
sign-in). Read from the store at each scrape (`StoreCollector`): points and ingest lag per experiment, and the use of
the database's connection pool (PostgreSQL).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from wsgiref.simple_server import WSGIServer

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, start_http_server
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector
from starlette.routing import BaseRoute, Mount, Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from trainboard.store.store import Store

# The routes counted on their own: by their paths as declared (trainboard.http.app, trainboard.http.trainboard_api,
# trainboard.http.sessions).
UPLOAD_ROUTE = "/upload/file"
EVENT_STREAM_ROUTE = "/data/trainboard/events"
SIGN_IN_ROUTE = "/auth/session"
# A request that matched no route.
UNMATCHED = "unmatched"
# Latency buckets (seconds): TensorBoard's data routes answer in milliseconds, downloads and uploads take seconds.
LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)


class Metrics:
    """The metrics of one server, and the registry they are served from."""

    def __init__(self, store: Store) -> None:
        self.registry = CollectorRegistry()
        self.requests = Histogram(
            "trainboard_http_request_duration_seconds",
            "Requests and their latency until the response ended, per route template, method and status.",
            ["route", "method", "status"],
            buckets=LATENCY_BUCKETS,
            registry=self.registry,
        )
        self.upload_bytes = Counter(
            "trainboard_upload_bytes", "Bytes of upload bodies received (trainboard upload).", registry=self.registry
        )
        self.upload_chunks = Counter(
            "trainboard_upload_chunks", "Upload chunks accepted (trainboard upload).", registry=self.registry
        )
        self.event_streams = Gauge(
            "trainboard_event_streams_open", "Server-sent event streams open now.", registry=self.registry
        )
        self.authentication_failures = Counter(
            "trainboard_authentication_failures",
            "Requests refused with 401 although they presented a token (invalid, revoked or expired), and refused"
            " sign-ins.",
            registry=self.registry,
        )
        self.registry.register(StoreCollector(store))


class StoreCollector(Collector):
    """Read from the store at each scrape, so that every replica reports what the shared store holds."""

    def __init__(self, store: Store) -> None:
        self._store = store

    def collect(self) -> Iterator[GaugeMetricFamily]:
        points = GaugeMetricFamily(
            "trainboard_experiment_points", "Points the store holds, per experiment.", labels=["experiment"]
        )
        lag = GaugeMetricFamily(
            "trainboard_ingest_lag_seconds",
            "Seconds since the wall time of the experiment's newest point (how far behind training its data is).",
            labels=["experiment"],
        )
        now = time.time()
        for experiment in self._store.experiments():
            series = self._store.series(experiment.id)
            points.add_metric([experiment.id], sum(row.point_count for row in series))
            newest = max((row.max_wall_time for row in series if row.max_wall_time is not None), default=None)
            if newest is not None:
                lag.add_metric([experiment.id], max(0.0, now - newest))
        pool = GaugeMetricFamily(
            "trainboard_database_pool",
            "The database's connection pool (PostgreSQL; psycopg_pool's counters by name: pool_size,"
            " pool_available, requests_waiting, ...).",
            labels=["stat"],
        )
        for stat, value in sorted(self._store.database.pool_stats().items()):
            pool.add_metric([stat], value)
        yield from (points, lag, pool)


class CountRequests:
    """Every HTTP request counted as it ends, refusals included (outermost middleware)."""

    def __init__(self, app: ASGIApp, metrics: Metrics) -> None:
        self.app = app
        self.metrics = metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        metrics = self.metrics
        started = time.perf_counter()
        status = 500
        received = 0
        streaming = False

        async def counting() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
            return message

        async def recording(message: Message) -> None:
            nonlocal status, streaming
            if message["type"] == "http.response.start":
                status = message["status"]
                if _template(scope) == EVENT_STREAM_ROUTE and status == 200:
                    streaming = True
                    metrics.event_streams.inc()
            await send(message)

        try:
            await self.app(scope, counting, recording)
        finally:
            if streaming:
                metrics.event_streams.dec()
            route = _template(scope)
            metrics.requests.labels(route, scope["method"], str(status)).observe(time.perf_counter() - started)
            if route == UPLOAD_ROUTE:
                metrics.upload_bytes.inc(received)
                if status == 200:
                    metrics.upload_chunks.inc()
            if status == 401 and (_presented_token(scope) or route == SIGN_IN_ROUTE):
                metrics.authentication_failures.inc()


def _template(scope: Scope) -> str:
    """The path of the route the request matched, as declared (Starlette's router notes it in the scope)."""
    route: BaseRoute | None = scope.get("route")
    return route.path if isinstance(route, Route | Mount) else UNMATCHED


def _presented_token(scope: Scope) -> bool:
    return any(name == b"authorization" for name, _ in scope["headers"])


class MetricsServer:
    """The metrics served at http://host:port/metrics (and at any other path) from a thread of their own."""

    def __init__(self, metrics: Metrics, host: str, port: int) -> None:
        """Listen now, so that a port in use fails the command before the server starts (raises OSError)."""
        self._server: WSGIServer
        self._thread: threading.Thread
        self._server, self._thread = start_http_server(port, host, metrics.registry)

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)
