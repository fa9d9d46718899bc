"""What the verifier stage is told: `VerifyOptions`, light enough for the command line to
read its flags into without loading the stage (the stage loads only when it runs)."""

from __future__ import annotations

import msgspec

CACHE_NAME = ".quorum-verifier-cache.json"


class VerifyOptions(msgspec.Struct, frozen=True):
    """How to verify: the endpoint or command, the limits, where code and cache live."""

    url: str | None = None
    model: str | None = None
    key_env: str | None = None
    command: str | None = None
    max_clusters: int = 10
    concurrency: int = 2
    timeout: float = 60.0
    budget_s: float = 300.0
    checkout: str = "."
    cache: str | None = None
    gate_on_verified: bool = False

    @property
    def wanted(self) -> bool:
        return bool(self.url or self.command)
