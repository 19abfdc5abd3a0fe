"""GEB section 3.3: conservative cross-clip identity association. A candidate entity qualifies iff the
observation's cosine similarity is >= ``tau_low`` to every reference and >= ``tau_high`` to one, no
reference shows separation evidence on shared frames, and its category is compatible with the
observation's (edge_agent.memory.categories). Thresholds belong to an embedding space (what a similarity
means depends on the embedder), with per-kind fallbacks for a space not listed, so thresholds measured
for a person re-identification model never apply to colour-texture vectors."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

from pydantic import Field, model_validator
from pydantic.dataclasses import dataclass

from edge_agent.config.base import FINITE, StrictModel

__all__ = ["DEFAULT_SPACE_THRESHOLDS", "DEFAULT_THRESHOLDS", "ENTITY_KINDS", "AssociationConfig", "Thresholds"]

ENTITY_KINDS = ("person", "animal", "object")


@dataclass(frozen=True, config=FINITE)
class Thresholds:
    """Cosine similarity thresholds of association in one embedding space (or one kind's fallback)."""

    tau_low: float = Field(description="every reference of the entity must be at least this similar")
    tau_high: float = Field(description="at least one reference must be at least this similar")

    def __post_init__(self) -> None:
        if not (-1.0 <= self.tau_low <= self.tau_high <= 1.0):
            raise ValueError(f"thresholds need -1 <= tau_low <= tau_high <= 1, got {self.tau_low}, {self.tau_high}")


#: Per embedding space, measured. OSNet x0.25 (MSMT17): on MOT17-mini the same person in the next clip scores
#: >= 0.90 while different, small, partly hidden pedestrians reach 0.78, so one reference must reach 0.80 (0.70
#: let two of them merge); `edge-agent eval identity --mot ../shared/data/mot17-mini/*` (in-sample).
DEFAULT_SPACE_THRESHOLDS: Mapping[str, Thresholds] = {
    "reid:osnet_x0_25_msmt17": Thresholds(tau_low=0.60, tau_high=0.80),
}

#: Per kind, for a space not listed above: appearance embeddings (colour-texture, a CLIP/DINOv2-style export)
#: where look-alikes sit close, so the bar is high, highest for objects (the kitchen look-alike worlds).
DEFAULT_THRESHOLDS: Mapping[str, Thresholds] = {
    "person": Thresholds(tau_low=0.70, tau_high=0.85),
    "animal": Thresholds(tau_low=0.70, tau_high=0.85),
    "object": Thresholds(tau_low=0.75, tau_high=0.88),
}


class AssociationConfig(StrictModel):
    spaces: dict[str, Thresholds] = Field(
        default_factory=lambda: dict(DEFAULT_SPACE_THRESHOLDS),
        description="thresholds per embedding space, by the name its embedder gives it (e.g. reid:osnet_x0_25_msmt17)",
    )
    thresholds: dict[str, Thresholds] = Field(
        default_factory=lambda: dict(DEFAULT_THRESHOLDS),
        description="thresholds per entity kind (person, animal, object) for an embedding space not in `spaces`",
    )
    still_iou: float = Field(
        0.5,
        ge=0,
        le=1,
        description="> 0: an object that GEB's rule would start a new biography for, first seen on a fixed camera "
        "where a candidate was last seen (that candidate's latest sighting, on this camera; the boxes' IoU at least "
        "this), is that thing when still like it (mean similarity >= tau_low, greatest >= still_tau_high), of a "
        "compatible category and never seen apart from it: things stay where they were put while the light on "
        "them changes; 0: off",
    )
    still_tau_high: float = Field(
        0.80, ge=-1, le=1, description="the greatest similarity to its references an object still in place needs"
    )
    reference_set_size: int = Field(4, ge=1, description="references each entity keeps, its most recent observations")
    candidate_entities: int = Field(8, ge=1, description="entities examined per observation (the top of a KNN search)")
    separation_iou_threshold: float = Field(
        0.8,
        ge=0,
        le=1,
        description="IoU below this on a shared frame counts as apart: frames are shared only by two "
        "tracks of one camera at the same time, and people standing one behind the other "
        "overlap up to IoU 0.77 on MOT17 (at 0.3 they merged)",
    )
    separation_min_shared_frames: int = Field(2, ge=1, description="fewer shared frames than this are no evidence")
    separation_min_fraction: float = Field(
        0.5, ge=0, le=1, description="fraction of shared frames apart that proves two instances"
    )
    use_separation: bool = Field(True, description="the separation veto (False only for the no-veto ablation)")
    possibly_same: bool = Field(
        True,
        description="record 'possibly the same' between the entity an observation goes to and a candidate of a "
        "compatible category similar to it on average (mean >= tau_low) with no separation evidence; an "
        "observation later qualifying for two such entities joins them (a recorded, undoable merge)",
    )
    join_similarity: float = Field(
        0.92,
        ge=0,
        le=1,
        description="an observation joins two possibly-same entities only when every reference of both is at least "
        "this similar to it (and both were most often described alike)",
    )
    index: Literal["matrix", "sqlite-vec"] = Field(
        "matrix", description="candidate search: an in-memory matrix scanned natively, or sqlite-vec KNN"
    )
    matrix_precision: Literal["float16", "float32"] = Field(
        "float16",
        description="the matrix's numbers: float16 holds twice the references in the same RAM (a similarity off by "
        "about 1e-3 at most); a decision that close to a threshold is taken again on memory's float32 vectors",
    )
    refine_margin: float = Field(
        0.01,
        ge=0,
        le=1,
        description="with a float16 matrix, candidates are scored again on the float32 vectors when one's least or "
        "greatest similarity is within this of tau_low or tau_high, or the two likest are within this of each other",
    )

    @model_validator(mode="after")
    def _every_kind(self) -> AssociationConfig:
        missing = [k for k in ENTITY_KINDS if k not in self.thresholds]
        if missing:
            raise ValueError(f"thresholds missing for kind(s): {', '.join(missing)}")
        return self

    def thresholds_for(self, kind: str, space: str) -> Thresholds:
        """The thresholds of an embedding space, else of the entity kind."""
        return self.spaces.get(space) or self.thresholds[kind]
