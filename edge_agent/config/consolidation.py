"""ReflectWorld-MM's consolidation: traces (an entity in one state over time) and semantic facts with
bounded importance, learnt as clips commit."""

from __future__ import annotations

from pydantic import Field

from edge_agent.config.base import StrictModel

__all__ = ["ConsolidationConfig"]


class ConsolidationConfig(StrictModel):
    enabled: bool = Field(
        True, description="fold repeated sightings into traces and learn facts (False: keep every sighting)"
    )
    max_gap_s: float = Field(30.0, ge=0, description="a trace continues across gaps up to this long (seconds)")
    keep_first_s: float = Field(
        300.0,
        ge=0,
        description="every sighting of a stay's first seconds is kept (questions are about arrivals and moves)",
    )
    min_iou: float = Field(0.5, ge=0, le=1, description="a trace continues while the boxes overlap at least this much")
    gamma: float = Field(
        0.2, gt=0, le=1, description="reinforcement rate of a fact's importance: w <- w + (1 - w) gamma"
    )
    contradiction: float = Field(
        0.3, ge=0, le=1, description="fraction of importance a contradicting sighting takes away"
    )
    min_importance: float = Field(0.05, ge=0, lt=1, description="below this importance a fact is deleted")
    schema_days: int = Field(
        3, ge=1, description="distinct days a place must recur at one part of the day to become a habit"
    )
