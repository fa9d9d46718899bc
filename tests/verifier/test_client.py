"""The transport against the stand-in: the contract, retries, faults, the breaker, budget."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

import pytest

from review_quorum.verifier.client import (
    MAX_ATTEMPTS,
    Breaker,
    ChatClient,
    TimeBudget,
    endpoint_kind,
    read_reply,
)
from verifier.openai_standin import Contract, StandIn, serve

USER = json.dumps({"id": "f1", "file": "a.py", "line": 3})


class Sleeps(list[float]):
    def __call__(self, seconds: float) -> None:
        self.append(seconds)


OPEN: list[ChatClient] = []


@pytest.fixture(autouse=True)
def _close_clients() -> Iterator[None]:
    yield
    while OPEN:
        OPEN.pop().close()


def client(
    url: str,
    *,
    key: str | None = None,
    timeout: float = 5.0,
    budget: float = 60.0,
    breaker: Breaker | None = None,
    sleeps: Sleeps | None = None,
) -> ChatClient:
    made = ChatClient(
        url,
        "m",
        key=key,
        timeout=timeout,
        budget=TimeBudget(budget),
        breaker=breaker or Breaker(),
        sleep=sleeps if sleeps is not None else Sleeps(),
    )
    OPEN.append(made)
    return made


def test_a_good_answer_is_read_in_both_shapes(standin: StandIn, ollama: StandIn) -> None:
    for server in (standin, ollama):
        reply = client(server.url).ask(USER)
        assert reply.failure is None
        assert json.loads(reply.content or "")["verdicts"][0]["id"] == "f1"
        assert (reply.tokens_in, reply.tokens_out) == (120, 30)


def test_the_request_is_portable_deterministic_and_structured(standin: StandIn) -> None:
    client(standin.url).ask(USER)
    body = standin.requests[0]["body"]
    assert body["temperature"] == 0
    assert isinstance(body["seed"], int)
    assert body["stream"] is False
    assert "max_tokens" in body and "max_completion_tokens" not in body
    schema = body["response_format"]["json_schema"]
    assert schema["strict"] is True and schema["name"] == "quorum_verdicts"
    assert schema["schema"]["properties"]["verdicts"]["items"]["additionalProperties"] is False


def test_openai_endpoints_get_max_completion_tokens() -> None:
    body = client("https://api.openai.com/v1").body(USER)
    assert "max_completion_tokens" in body and "max_tokens" not in body
    azure = client("https://team.openai.azure.com/openai/v1").body(USER)
    assert "max_completion_tokens" in azure
    assert endpoint_kind("http://localhost:11434/v1") == "compatible"


def test_the_key_is_sent_only_when_given(standin: StandIn) -> None:
    client(standin.url, key="sk-test").ask(USER)
    client(standin.url).ask(USER)
    assert standin.requests[0]["headers"]["authorization"] == "Bearer sk-test"
    assert "authorization" not in standin.requests[1]["headers"]


def test_429_waits_what_retry_after_says_then_succeeds(standin: StandIn) -> None:
    standin.faults = ["429", "429"]
    sleeps = Sleeps()
    reply = client(standin.url, sleeps=sleeps).ask(USER)
    assert reply.failure is None
    assert sleeps == [1.0, 1.0]
    assert len(standin.requests) == reply.attempts == 3


def test_a_retry_after_past_the_budget_gives_up_at_once(standin: StandIn) -> None:
    standin.faults = ["429-late"]
    sleeps = Sleeps()
    reply = client(standin.url, sleeps=sleeps, budget=30).ask(USER)
    assert reply.failure is not None and reply.failure.startswith("HTTP 429")
    assert sleeps == []
    assert len(standin.requests) == 1


def test_500_is_retried_a_bounded_number_of_times(standin: StandIn) -> None:
    standin.always = "500"
    sleeps = Sleeps()
    reply = client(standin.url, sleeps=sleeps).ask(USER)
    assert reply.failure == "HTTP 500"
    assert len(standin.requests) == MAX_ATTEMPTS
    assert sleeps == [0.5, 1.0]  # exponential back-off without Retry-After


def test_a_reset_connection_is_retried(standin: StandIn) -> None:
    standin.faults = ["reset"]
    reply = client(standin.url).ask(USER)
    assert reply.failure is None
    assert len(standin.requests) == 2


@pytest.mark.parametrize(
    ("fault", "failure"),
    [("length", "truncated answer"), ("refusal", "refused")],
)
def test_truncated_and_refused_answers_are_no_verdict(
    standin: StandIn, fault: str, failure: str
) -> None:
    standin.faults = [fault]
    reply = client(standin.url).ask(USER)
    assert reply.failure == failure and reply.content is None
    assert len(standin.requests) == 1


def test_a_slow_answer_past_the_timeout_is_no_verdict(standin: StandIn) -> None:
    standin.faults = ["slow"]
    reply = client(standin.url, timeout=0.3).ask(USER)
    assert reply.failure == "timeout"


def test_an_answer_trickled_past_the_timeout_is_no_verdict(standin: StandIn) -> None:
    """Each piece comes in time for a read; the whole answer (2 s) does not."""
    standin.faults = ["trickle"]
    started = time.monotonic()
    reply = client(standin.url, timeout=0.3).ask(USER)
    assert reply.failure == "timeout"
    assert time.monotonic() - started < 1.0


def test_a_server_without_json_schema_gets_json_mode_with_the_schema(standin: StandIn) -> None:
    standin.faults = ["no-schema"]
    reply = client(standin.url).ask(USER)
    assert reply.failure is None
    second = standin.requests[1]["body"]
    assert second["response_format"] == {"type": "json_object"}
    assert '"cited_lines"' in second["messages"][0]["content"]


def test_the_breaker_opens_after_repeated_failures(contract: Contract) -> None:
    with serve(contract) as standin:
        standin.always = "500"
        breaker = Breaker(limit=2)
        ask = client(standin.url, breaker=breaker)
        assert ask.ask(USER).failure == "HTTP 500"
        assert ask.ask(USER).failure == "HTTP 500"
        sent = len(standin.requests)
        assert [ask.ask(USER).failure for _ in range(4)] == ["circuit open"] * 4
        assert len(standin.requests) == sent  # it stays open: held-back asks close nothing


def test_a_spent_budget_sends_nothing(standin: StandIn) -> None:
    reply = client(standin.url, budget=0).ask(USER)
    assert reply.failure == "time budget"
    assert standin.requests == []


def test_a_success_closes_the_breaker_count() -> None:
    breaker = Breaker(limit=2)
    breaker.record(False)
    breaker.record(True)
    breaker.record(False)
    assert not breaker.open


def test_unreadable_and_empty_replies_are_failures() -> None:
    assert read_reply(b"not json").failure == "unreadable response"
    assert read_reply(b'{"choices": []}').failure == "unreadable response"
    empty = b'{"choices": [{"message": {"content": ""}, "finish_reason": "stop"}]}'
    assert read_reply(empty).failure == "empty answer"
    filtered = b'{"choices": [{"message": {"content": "{}"}, "finish_reason": "content_filter"}]}'
    assert read_reply(filtered).failure == "filtered answer"


def test_a_request_never_waits_past_the_budget(standin: StandIn) -> None:
    standin.faults = ["slow"]  # the answer comes after 1.5 s
    reply = client(standin.url, timeout=30, budget=0.3).ask(USER)
    assert reply.failure == "timeout"
    assert reply.seconds < 1.0


def test_only_a_400_about_the_format_gets_json_mode(standin: StandIn) -> None:
    standin.faults = ["bad-request"]
    reply = client(standin.url).ask(USER)
    assert reply.failure == "HTTP 400"
    assert len(standin.requests) == 1


def test_bad_answers_do_not_open_the_breaker(standin: StandIn) -> None:
    standin.faults = ["refusal", "refusal", "refusal"]
    ask = client(standin.url, breaker=Breaker(limit=2))
    assert [ask.ask(USER).failure for _ in range(3)] == ["refused"] * 3
    assert ask.ask(USER).failure is None
