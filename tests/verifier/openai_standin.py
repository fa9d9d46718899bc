"""A stand-in OpenAI-compatible server on 127.0.0.1: checks every request, scripts answers.

Every request is checked against `../shared/openai-chat/openai-chat-subset.json`: the
official `CreateChatCompletionRequest` and the authored `portable-chat-request` (the subset
OpenAI, Ollama, vLLM and llama.cpp all accept), plus what the verifier promises beyond the
schema (temperature always sent, structured output nested under `json_schema.schema`, one
JSON object as the user message). A request that fails is answered 599 and kept in
`errors`, so that the test fails on it.

Answers are scripted by finding id (`verdicts`), in the full OpenAI shape (which is checked
against `CreateChatCompletionResponse`) or, with `shape="ollama"`, in Ollama's reduced one
(no `logprobs`, no `refusal`). `faults` is a queue of faults for the next requests: `429`
(with `Retry-After`), `429-late` (Retry-After longer than any budget), `500`, `reset` (the
connection closed without an answer), `length` (a truncated answer), `refusal`,
`invalid-json`, `slow` (an answer later than the client's timeout), `trickle` (an answer
sent in pieces `TRICKLE_S` apart, each in time for a read, the whole late), `no-schema` (400: the
server does not do json_schema), `bad-request` (another 400). `always` applies one fault
to every request.
"""

from __future__ import annotations

import json
import socket
import struct
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import jsonschema

SLOW_S = 1.5
TRICKLE_S = 0.1  # between the pieces of a trickled answer: 20 pieces, 2 s in all


class Contract:
    """The shared contract's request and response validators."""

    def __init__(self, path: Path) -> None:
        document = json.loads(path.read_text(encoding="utf-8"))

        def validator(ref: str) -> jsonschema.Draft202012Validator:
            root = dict(document)
            root["$ref"] = ref
            return jsonschema.Draft202012Validator(root)

        self.request = validator("#/schemas/CreateChatCompletionRequest")
        self.portable = validator("#/extra_schemas/portable-chat-request")
        self.response = validator("#/schemas/CreateChatCompletionResponse")
        self.portable_read = validator("#/extra_schemas/portable-chat-response-read")


def default_verdict(finding_id: str) -> dict[str, Any]:
    return {
        "id": finding_id,
        "verdict": "LIKELY",
        "severity": "medium",
        "evidence_strength": "circumstantial",
        "context_completeness": "partial",
        "in_changed_code": True,
        "cited_lines": [],
        "reason": "scripted default",
    }


class StandIn:
    """The server's state: what it was asked, what it answers, what went wrong."""

    def __init__(self, contract: Contract, shape: str = "openai") -> None:
        self.contract = contract
        self.shape = shape
        self.verdicts: dict[str, dict[str, Any]] = {}  # by finding id, or by file:line
        self.faults: list[str] = []
        self.always: str | None = None
        self.requests: list[dict[str, Any]] = []
        self.errors: list[str] = []
        self.in_flight = 0  # slow answers being made now, and the most at once
        self.most_in_flight = 0
        self.lock = threading.Lock()
        self.url = ""

    def check(self, path: str, headers: dict[str, str], body: bytes) -> dict[str, Any]:
        """The request body, after every check (AssertionError or ValidationError)."""
        assert path == "/v1/chat/completions", f"unexpected path {path}"
        assert headers.get("content-type", "").startswith("application/json")
        document: dict[str, Any] = json.loads(body)
        self.contract.request.validate(document)
        self.contract.portable.validate(document)
        assert "temperature" in document, "temperature must always be sent (Ollama: 1.0)"
        assert document.get("stream") in (None, False)
        fmt = document["response_format"]
        if fmt["type"] == "json_schema":
            assert isinstance(fmt["json_schema"]["schema"], dict), "schema must be nested"
            jsonschema.Draft202012Validator.check_schema(fmt["json_schema"]["schema"])
        user = [m for m in document["messages"] if m["role"] == "user"]
        assert len(user) == 1, "one user message"
        assert isinstance(json.loads(user[0]["content"]), dict), "the user message is JSON"
        assert document["messages"][0]["role"] == "system"
        return document

    def answer(self, document: dict[str, Any]) -> dict[str, Any]:
        payload = json.loads(document["messages"][-1]["content"])
        key = payload.get("id", "")
        place = f"{payload.get('file')}:{payload.get('line')}"
        scripted = self.verdicts.get(key) or self.verdicts.get(place)
        verdict = {**default_verdict(key), **(scripted or {}), "id": key}
        return {"verdicts": [verdict]}

    def body(self, content: str | None, finish: str, refusal: str | None = None) -> bytes:
        message: dict[str, Any] = {"role": "assistant", "content": content}
        choice: dict[str, Any] = {"index": 0, "message": message, "finish_reason": finish}
        if self.shape == "openai":
            message["refusal"] = refusal
            choice["logprobs"] = None
        elif refusal:
            message["refusal"] = refusal
        answer = {
            "id": "chatcmpl-standin",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": "m",
            "choices": [choice],
            "usage": {"prompt_tokens": 120, "completion_tokens": 30, "total_tokens": 150},
        }
        if self.shape == "openai":
            self.contract.response.validate(answer)
        self.contract.portable_read.validate(answer)
        return json.dumps(answer).encode()

    def next_fault(self) -> str | None:
        with self.lock:
            if self.faults:
                return self.faults.pop(0)
            return self.always


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    standin: StandIn


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: object) -> None:
        """Silent: the stand-in keeps its own record."""

    def _send(
        self,
        status: int,
        body: bytes,
        headers: dict[str, str] | None = None,
        pieces: int = 1,
    ) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        size = -(-len(body) // pieces)
        try:
            self.end_headers()
            for start in range(0, len(body), size):
                if start:
                    time.sleep(TRICKLE_S)
                self.wfile.write(body[start : start + size])
                self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up first (a slow answer past its timeout)

    def do_POST(self) -> None:
        standin = self.server.standin
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        headers = {name.lower(): value for name, value in self.headers.items()}
        try:
            document = standin.check(self.path, headers, raw)
        except Exception as err:  # a malformed request must fail the test
            standin.errors.append(f"{self.path}: {err}")
            self._send(599, json.dumps({"error": {"message": str(err)}}).encode())
            return
        with standin.lock:
            standin.requests.append({"body": document, "headers": headers})
        fault = standin.next_fault()
        if fault == "reset":
            linger = struct.pack("ii", 1, 0)  # close with RST, not FIN
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, linger)
            self.close_connection = True
            return
        if fault in ("429", "429-late"):
            wait = "1" if fault == "429" else "3600"
            error = {"error": {"message": "Rate limit reached", "type": "requests"}}
            self._send(429, json.dumps(error).encode(), {"Retry-After": wait})
            return
        if fault == "500":
            self._send(500, b'{"error": {"message": "server error", "type": "api_error"}}')
            return
        if fault == "bad-request":
            self._send(400, b'{"error": {"message": "messages: too long"}}')
            return
        if fault == "no-schema":
            message = "This response_format type is unavailable now"
            self._send(400, json.dumps({"error": {"message": message}}).encode())
            return
        if fault == "slow":
            with standin.lock:
                standin.in_flight += 1
                standin.most_in_flight = max(standin.most_in_flight, standin.in_flight)
            time.sleep(SLOW_S)
            with standin.lock:
                standin.in_flight -= 1
        content = json.dumps(standin.answer(document))
        if fault == "length":
            self._send(200, standin.body(content[: len(content) // 2], "length"))
        elif fault == "refusal":
            self._send(200, standin.body(None, "stop", refusal="I can't help with that."))
        elif fault == "invalid-json":
            self._send(200, standin.body("{'verdicts': [oops", "stop"))
        elif fault == "trickle":
            self._send(200, standin.body(content, "stop"), pieces=20)
        else:
            self._send(200, standin.body(content, "stop"))


@contextmanager
def serve(contract: Contract, shape: str = "openai") -> Iterator[StandIn]:
    """A stand-in served on 127.0.0.1 until the block ends; its `url` ends in /v1."""
    standin = StandIn(contract, shape)
    server = _Server(("127.0.0.1", 0), _Handler)
    server.standin = standin
    standin.url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    thread = threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    )
    thread.start()
    try:
        yield standin
    finally:
        server.shutdown()
        thread.join()
        server.server_close()
