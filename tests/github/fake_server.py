"""A stand-in (`FakeGitHub`, `FakeGitLab`) served over real HTTP on 127.0.0.1, in a thread.

Tests that run `quorum` as a separate process (the Action's steps) point `GITHUB_API_URL`
at `serve(...)`'s URL. Each request is turned into an `httpx.Request` and answered by the
same `FakeGitHub.handle` the in-process tests use through `httpx.MockTransport`, so both
paths share one state and one set of GitHub's rules. A request the fake rejects as
malformed (a `SpecViolation` or a failed assertion) is answered 599 and kept in `errors`,
so that the test can fail on it rather than the client retrying a 5xx it cannot read.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, HTTPServer
from typing import Protocol, TypeVar

import httpx

UNANSWERABLE = 599


class StandIn(Protocol):
    """What the server needs of a stand-in: its API root, and its answer to a request."""

    @property
    def api_url(self) -> str: ...

    def handle(self, request: httpx.Request) -> httpx.Response: ...


Fake = TypeVar("Fake", bound=StandIn)


class _Server(HTTPServer):
    fake: StandIn
    errors: list[str]


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def _answer(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        headers = {name: value for name, value in self.headers.items() if name.lower() != "host"}
        request = httpx.Request(
            self.command, self.server.fake.api_url + self.path, headers=headers, content=body
        )
        try:
            response = self.server.fake.handle(request)
        except Exception as err:  # the fake refusing a request must fail the test, visibly
            self.server.errors.append(f"{self.command} {self.path}: {err!r}")
            response = httpx.Response(UNANSWERABLE, text=repr(err))
        content = response.read()
        self.send_response(response.status_code)
        for name, value in response.headers.items():
            if name.lower() not in ("content-length", "content-encoding", "transfer-encoding"):
                self.send_header(name, value)
        self.send_header("Content-Length", str(len(content)))
        self.end_headers()
        self.wfile.write(content)

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _answer

    def log_message(self, format: str, *args: object) -> None:
        """Silent: the fake keeps its own log of what was asked."""


@contextmanager
def serve(build: Callable[[str], Fake]) -> Iterator[tuple[Fake, list[str]]]:
    """A fake built for the server's URL, served until the block ends; and its errors."""
    server = _Server(("127.0.0.1", 0), _Handler)
    try:  # `build` may fail or skip (no ../shared): the socket is closed all the same
        fake = server.fake = build(f"http://127.0.0.1:{server.server_address[1]}")
        server.errors = []
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        try:
            yield fake, server.errors
        finally:
            server.shutdown()
            thread.join()
    finally:
        server.server_close()
