"""The disk holding the memory: how much of it the write path leaves free."""

from __future__ import annotations

from pydantic import Field

from edge_agent.config.base import StrictModel

__all__ = ["DEFAULT_RESERVE_BYTES", "StorageConfig"]

#: Enough for `memory prune` to delete clips in small steps on a disk that is otherwise full (its journal and a
#: vector table rebuilt to a smaller chunk), small beside any disk a camera records to.
DEFAULT_RESERVE_BYTES = 8 << 20


class StorageConfig(StrictModel):
    reserve_bytes: int = Field(
        DEFAULT_RESERVE_BYTES,
        ge=0,
        description="bytes ingest leaves free on the disk holding the memory, for `memory prune` to work with (at most "
        "an eighth of that disk): a clip that would go below is refused, saying how much it needs (default 8 MiB)",
    )
