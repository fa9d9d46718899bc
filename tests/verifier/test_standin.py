"""The stand-in itself: it refuses what the contract refuses, and answers in both shapes."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from verifier.openai_standin import Contract, StandIn, serve


def good_body() -> dict[str, Any]:
    return {
        "model": "m",
        "messages": [
            {"role": "system", "content": "judge"},
            {"role": "user", "content": json.dumps({"id": "f1", "file": "a.py", "line": 3})},
        ],
        "temperature": 0,
        "seed": 7,
        "max_tokens": 100,
        "stream": False,
        "response_format": {
            "type": "json_schema",
            "json_schema": {"name": "v", "schema": {"type": "object"}, "strict": True},
        },
    }


def post(standin: StandIn, body: dict[str, Any]) -> httpx.Response:
    return httpx.post(f"{standin.url}/chat/completions", json=body, timeout=5)


@pytest.mark.parametrize(
    ("change", "why"),
    [
        ({"max_completion_tokens": 100}, "both token limits"),
        ({"tools": []}, "tools are outside the portable subset"),
        ({"temperature": None}, "temperature missing"),
        ({"response_format": {"type": "json_schema", "schema": {}}}, "llama.cpp README form"),
        ({"stream": True}, "streaming"),
        ({"messages": [{"role": "tool", "content": "x"}]}, "unknown role"),
    ],
)
def test_the_standin_refuses_requests_outside_the_contract(
    contract: Contract, change: dict[str, Any], why: str
) -> None:
    body = {**good_body(), **change}
    body = {key: value for key, value in body.items() if value is not None}
    with serve(contract) as standin:
        response = post(standin, body)
        assert response.status_code == 599, why
        assert len(standin.errors) == 1
        assert standin.requests == []


def test_the_standin_answers_a_good_request_in_openai_shape(standin: StandIn) -> None:
    standin.verdicts["f1"] = {"verdict": "CONFIRMED"}
    response = post(standin, good_body())
    assert response.status_code == 200
    choice = response.json()["choices"][0]
    assert "logprobs" in choice and "refusal" in choice["message"]
    answer = json.loads(choice["message"]["content"])
    assert answer["verdicts"][0]["verdict"] == "CONFIRMED"
    assert answer["verdicts"][0]["id"] == "f1"


def test_the_ollama_shape_lacks_what_openai_requires(ollama: StandIn, contract: Contract) -> None:
    response = post(ollama, good_body())
    answer = response.json()
    assert "logprobs" not in answer["choices"][0]
    assert "refusal" not in answer["choices"][0]["message"]
    assert not contract.response.is_valid(answer)
    assert contract.portable_read.is_valid(answer)
