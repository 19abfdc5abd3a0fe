"""Scheduled backups of the memory."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field

from edge_agent.config.base import StrictModel

__all__ = ["BackupConfig"]


class BackupConfig(StrictModel):
    folder: Path | None = Field(
        None, description="where scheduled backups go (memory-<time> folders); none: no scheduled backups"
    )
    every_hours: float = Field(
        24.0, gt=0, description="a backup is made by watch/ingest when the newest is this old (hours)"
    )
    keep: int = Field(7, ge=1, description="scheduled backups kept, newest first; older ones are deleted")
