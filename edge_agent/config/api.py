"""The HTTP API (`edge-agent serve`)."""

from __future__ import annotations

from pydantic import Field

from edge_agent.config.base import StrictModel

__all__ = ["ApiConfig"]


class ApiConfig(StrictModel):
    require_token: bool = Field(
        False,
        description="serve: require the API token on a loopback bind too (any other bind always "
        "requires it); other users of this machine can reach loopback",
    )
    warm_every_s: float = Field(
        30.0,
        ge=0,
        description="serve: how often, between questions, retrieval takes in what memory gained (new records "
        "embedded, the vector index and the graph brought up to date; 0: at start only); watch and hub: how often, "
        "between clips, new records are embedded and the vector index brought up to date (0: never)",
    )
