"""Performance helpers for programs that run the pipeline (the CLI, the benchmarks).

`paused_gc` suspends the cyclic garbage collector while a program allocates millions of
acyclic objects (findings, tuples, dicts): the collector would otherwise rescan the young
heap thousands of times for nothing, which costs about as much as the work itself.
Reference counting still frees everything; the collector resumes afterwards. The collector
is process-wide, so only a program decides this (`quorum` pauses it for a whole command);
library functions never switch it off behind their caller's back.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def paused_gc(*, freeze: bool = False) -> Iterator[None]:
    """Disable the cyclic collector for the duration, restoring its previous state.

    Everything allocated meanwhile waits in the youngest generation, so the collector's
    next pass would scan it all once. With `freeze`, for a program about to exit, what
    is alive moves to the permanent generation instead and is never scanned.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if freeze:
            gc.freeze()
        if was_enabled:
            gc.enable()
