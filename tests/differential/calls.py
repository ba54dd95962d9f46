"""One HTTP request of the differential suite, sent alike to TensorBoard and to the candidate, under any prefix."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

import httpx

from tests.differential.compare import Answer, answer

# Fetches a path (with its query string) from the same server, under the same prefix.
Fetch = Callable[[str], Answer]
# Replaces the opaque blob tokens of a JSON body with the answers they fetch.
Resolve = Callable[[Any, Fetch], Any]


@dataclass(frozen=True, slots=True)
class Call:
    path: str
    query: tuple[tuple[str, str], ...] = ()
    form: tuple[tuple[str, str], ...] | None = None  # a form POST when set
    body: str | None = None  # a JSON POST when set

    def __str__(self) -> str:
        method = "GET" if self.form is None and self.body is None else "POST"
        query = f"?{urlencode(self.query)}" if self.query else ""
        sent = f" {urlencode(self.form)}" if self.form else f" {self.body}" if self.body else ""
        return f"{method} {self.path}{query}{sent}"

    def send(self, client: httpx.Client, prefix: str) -> httpx.Response:
        url, params = prefix + self.path, self.query
        if self.body is not None:
            return client.post(url, params=params, content=self.body, headers={"content-type": "application/json"})
        if self.form is not None:
            return client.post(url, params=params, data=_form(self.form))
        return client.get(url, params=params)

    def exchange(self, client: httpx.Client, prefix: str, resolve: Resolve | None = None) -> Answer:
        """The answer, with blob tokens in a 200 JSON body replaced by what they fetch."""
        result = answer(self.send(client, prefix))
        if resolve is None or result.status != 200 or result.media_type != "application/json":
            return result
        return Answer(
            result.status, result.content_type, resolve(result.body, lambda path: fetch(client, prefix, path))
        )


@dataclass(frozen=True, slots=True)
class TensorBoardAnswers:
    """The real TensorBoard's answers, each call asked once for every candidate: it loaded the logdir once, before
    listening (tests.servers.tensorboard_server), and answers a call alike each time."""

    client: httpx.Client
    answers: dict[tuple[Call, str, Resolve | None], Answer] = field(default_factory=dict)

    def exchange(self, call: Call, prefix: str, resolve: Resolve | None = None) -> Answer:
        key = (call, prefix, resolve)
        if key not in self.answers:
            self.answers[key] = call.exchange(self.client, prefix, resolve)
        return self.answers[key]


def fetch(client: httpx.Client, prefix: str, path: str) -> Answer:
    return answer(client.get(prefix + path))


def _form(pairs: tuple[tuple[str, str], ...]) -> dict[str, list[str]]:
    """Form fields with repeated names (such as `runs`) as httpx takes them."""
    fields: dict[str, list[str]] = {}
    for name, value in pairs:
        fields.setdefault(name, []).append(value)
    return fields
