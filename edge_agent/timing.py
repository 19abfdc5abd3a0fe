"""Stage timings (issue 42): ``with timed(timings, "seeds"):`` adds the milliseconds the block took to
``timings["seeds"]``. One helper instead of a bare ``t = time.perf_counter()`` per stage, whose name a loop
variable could take (a question naming a time made retrieval's "seeds" figure the current time minus that moment)."""

from __future__ import annotations

import time
from collections.abc import Iterator, MutableMapping
from contextlib import contextmanager

__all__ = ["timed"]


@contextmanager
def timed(timings: MutableMapping[str, float], stage: str) -> Iterator[None]:
    """Adds the block's wall time in milliseconds to ``timings[stage]`` (0 when absent), also when it raises."""
    start = time.perf_counter()
    try:
        yield
    finally:
        timings[stage] = timings.get(stage, 0.0) + (time.perf_counter() - start) * 1000
