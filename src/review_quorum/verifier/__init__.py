"""The verifier stage (SPEC section 12): seed 000's verifier, run by quorum itself.

Only clusters whose placement a verdict can change are sent (`select`), one request per
cluster holding the diff hunks, a numbered window of the file at head and the same region
at base, and the members' messages as quoted data (`request`). The answer is read and
checked locally (`answer`: unknown ids ignored, a dismissal must cite code lines of the
window sent), then attached as a verdict that `scoring.confidence` scores unchanged. The
transport (`client`) speaks OpenAI-compatible Chat Completions over httpx, or runs a
command (`--verifier-cmd`); it fails closed: a cluster without an answer keeps its
consensus placement. `cache` keeps answers by the SHA-256 of what was asked, and `stage`
runs the whole step and counts what happened for the summary and the JSON report.
"""

from __future__ import annotations
