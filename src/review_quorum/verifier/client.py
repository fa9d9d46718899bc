"""The transport: one OpenAI-compatible Chat Completions client, or a command.

`ChatClient` posts to `{url}/chat/completions` (OpenAI, Azure OpenAI, vLLM, Ollama,
llama.cpp server, gateways) the portable request subset: system and user messages,
`temperature: 0`, a seed, `stream: false`, one token limit (`max_completion_tokens` for
OpenAI's own endpoints, `max_tokens` elsewhere: it is the only one Ollama reads) and
structured output in the nesting every server reads (`response_format.json_schema.schema`).
A server that refuses `json_schema` gets one retry in JSON mode with the schema in the
system message. The answer is read through the fields all four servers send.

It fails closed and bounded: a 429 or 5xx is retried at most `MAX_ATTEMPTS` times,
waiting what `Retry-After` says (or backing off), never past the time budget; a
connection that keeps failing opens the circuit breaker and nothing more is sent; a
refusal, a truncated or filtered answer is no verdict. The API key is read from the
environment variable the user names, never from a flag.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import msgspec
import orjson

from review_quorum.verifier.request import ANSWER_SCHEMA, SCHEMA_NAME, SYSTEM_PROMPT

if TYPE_CHECKING:  # httpx is imported when a verifier is asked, not by every review
    import httpx

MAX_ATTEMPTS = 3
BREAKER_FAILURES = 3  # consecutive failed clusters that open the circuit
BACKOFF_S = 0.5
MAX_WAIT_S = 30.0
MAX_ANSWER_TOKENS = 800
SEED = 7


class Reply(msgspec.Struct, frozen=True):
    """What came back for one request: the answer's text, or why there is none."""

    content: str | None = None
    failure: str | None = None
    tokens_in: int = 0
    tokens_out: int = 0
    seconds: float = 0.0
    attempts: int = 0  # HTTP requests made (retries included)


class TimeBudget:
    """The wall-clock seconds the whole verification may take."""

    def __init__(self, seconds: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.deadline = clock() + seconds

    def remaining(self) -> float:
        return self.deadline - self.clock()


class Breaker:
    """Opens after `limit` consecutive failures; a success closes the count again."""

    def __init__(self, limit: int = BREAKER_FAILURES) -> None:
        self.limit = limit
        self.failures = 0
        self.lock = threading.Lock()

    @property
    def open(self) -> bool:
        return self.failures >= self.limit

    def record(self, ok: bool) -> None:
        with self.lock:
            self.failures = 0 if ok else self.failures + 1


_LOOPBACK = ("localhost", "127.0.0.1", "::1")


def key_may_go_to(url: str) -> bool:
    """Whether an API key may be sent to `url`: over https, or to this machine."""
    parts = urlsplit(url)
    return parts.scheme == "https" or (parts.hostname or "").lower() in _LOOPBACK


def valid_url(url: str) -> bool:
    """Whether `url` can address a request: urllib and httpx both take it apart."""
    import httpx

    try:
        urlsplit(url)
        httpx.URL(url)
    except (ValueError, httpx.InvalidURL):
        return False
    return True


def endpoint_kind(url: str) -> str:
    """`openai` for OpenAI's and Azure OpenAI's endpoints, else `compatible`."""
    try:
        host = (urlsplit(url).hostname or "").lower()
    except ValueError:  # no URL at all: nothing is sent to it (`valid_url`)
        return "compatible"
    if host == "api.openai.com" or host.endswith((".openai.com", ".openai.azure.com")):
        return "openai"
    return "compatible"


class ChatClient:
    """Asks one OpenAI-compatible endpoint about one cluster at a time (thread-safe)."""

    def __init__(
        self,
        url: str,
        model: str,
        *,
        key: str | None,
        timeout: float,
        budget: TimeBudget,
        breaker: Breaker,
        sleep: Callable[[float], None] = time.sleep,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self.url = url.rstrip("/") + "/chat/completions"
        self.model = model
        self.kind = endpoint_kind(url)
        self.timeout = timeout
        self.budget = budget
        self.breaker = breaker
        self.sleep = sleep
        self.json_mode = False  # set once a server refused json_schema
        import httpx

        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if key:
            headers["Authorization"] = f"Bearer {key}"
        self.http = httpx.Client(headers=headers, transport=transport, follow_redirects=False)

    def close(self) -> None:
        self.http.close()

    def body(self, user: str) -> dict[str, Any]:
        """The request body, inside the portable subset of the contract."""
        system = SYSTEM_PROMPT
        response_format: dict[str, Any]
        if self.json_mode:
            schema = orjson.dumps(ANSWER_SCHEMA).decode()
            system = f"{SYSTEM_PROMPT}\nThe JSON object must follow this JSON schema: {schema}"
            response_format = {"type": "json_object"}
        else:
            response_format = {
                "type": "json_schema",
                "json_schema": {"name": SCHEMA_NAME, "schema": ANSWER_SCHEMA, "strict": True},
            }
        limit = "max_completion_tokens" if self.kind == "openai" else "max_tokens"
        return {
            "model": self.model,
            "messages": [
                {"role": "system", "content": system},
                {"role": "user", "content": user},
            ],
            "temperature": 0,
            "seed": SEED,
            limit: MAX_ANSWER_TOKENS,
            "stream": False,
            "response_format": response_format,
        }

    def ask(self, user: str) -> Reply:
        """The answer to one request, retried within bounds; never raises for the server.

        Only a request actually sent counts for the breaker: one that the open breaker or
        the spent budget held back neither opens nor closes it.
        """
        started = time.monotonic()
        sent: list[int] = []
        reply = self._attempts(user, sent)
        if sent:
            self.breaker.record(reply.failure is None or not _is_transport(reply.failure))
        return msgspec.structs.replace(
            reply, seconds=time.monotonic() - started, attempts=len(sent)
        )

    def _attempts(self, user: str, sent: list[int]) -> Reply:
        import httpx

        from review_quorum.retrying import retry_after  # with httpx: only when asking

        failure = "not sent"
        for attempt in range(MAX_ATTEMPTS):
            if self.breaker.open:
                return Reply(failure="circuit open")
            remaining = self.budget.remaining()
            if remaining <= 0:
                return Reply(failure="time budget")
            sent.append(attempt)
            try:
                status, headers, content = self._post(user, min(self.timeout, remaining))
            except httpx.TimeoutException:
                return Reply(failure="timeout")
            except httpx.TransportError:
                failure = "connection error"
                wait = BACKOFF_S * 2**attempt
            else:
                if status == 429 or status >= 500:
                    failure = f"HTTP {status}"
                    asked = retry_after(headers.get("retry-after"), time.time())
                    wait = asked if asked is not None else BACKOFF_S * 2**attempt
                elif status == 400 and not self.json_mode and _no_schema(content):
                    self.json_mode = True
                    continue
                elif status != 200:
                    return Reply(failure=f"HTTP {status}")
                else:
                    return read_reply(content)
            if attempt + 1 == MAX_ATTEMPTS:
                break
            if wait > min(MAX_WAIT_S, self.budget.remaining()):
                return Reply(failure=f"{failure} (retry later than the time budget)")
            self.sleep(wait)
        return Reply(failure=failure)

    def _post(self, user: str, limit: float) -> tuple[int, httpx.Headers, bytes]:
        """The status, headers and body of the answer to one request, read whole within
        `limit` seconds: httpx's timeout bounds each read, which an answer sent a piece at
        a time outlasts (then httpx.ReadTimeout)."""
        import httpx

        deadline = time.monotonic() + limit
        content = orjson.dumps(self.body(user))
        with self.http.stream("POST", self.url, content=content, timeout=limit) as response:
            body = bytearray()
            for piece in response.iter_bytes():
                body += piece
                if time.monotonic() > deadline:
                    raise httpx.ReadTimeout(
                        "answer slower than the timeout", request=response.request
                    )
            return response.status_code, response.headers, bytes(body)


def _is_transport(failure: str) -> bool:
    return failure.startswith(("HTTP", "connection", "timeout"))


def _no_schema(content: bytes) -> bool:
    text = content.decode("utf-8", "replace").lower()
    return "response_format" in text or "json_schema" in text


def read_reply(content: bytes) -> Reply:
    """The answer text of a 200 response, read through the portable response fields."""
    try:
        document = orjson.loads(content)
        choice = document["choices"][0]
        message = choice["message"]
    except (orjson.JSONDecodeError, KeyError, IndexError, TypeError):
        return Reply(failure="unreadable response")
    usage = document.get("usage") if isinstance(document, dict) else None
    usage = usage if isinstance(usage, dict) else {}
    base = Reply(
        tokens_in=_count(usage.get("prompt_tokens")),
        tokens_out=_count(usage.get("completion_tokens")),
    )
    failure = _failure(choice, message)
    if failure:
        return msgspec.structs.replace(base, failure=failure)
    return msgspec.structs.replace(base, content=message["content"])


def _failure(choice: object, message: object) -> str | None:
    """Why a choice gives no answer: a refusal, a cut or filtered answer, no text."""
    if not isinstance(message, dict) or not isinstance(choice, dict):
        return "unreadable response"
    if message.get("refusal"):
        return "refused"
    finish = choice.get("finish_reason")
    if finish == "length":
        return "truncated answer"
    if finish == "content_filter":
        return "filtered answer"
    text = message.get("content")
    if not isinstance(text, str) or not text.strip():
        return "empty answer"
    return None


def _count(value: object) -> int:
    return value if type(value) is int and value >= 0 else 0
