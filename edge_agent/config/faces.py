"""Faces (issue 20): whether faces are looked for at all (the privacy switch), what finds and embeds them, which
faces are good enough to keep; and the thresholds that make a face evidence of who a person is, per face
embedding space (what a similarity means depends on the face model)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

from pydantic import Field
from pydantic.dataclasses import dataclass

from edge_agent.config.base import FINITE, StrictModel

__all__ = ["DEFAULT_FACE_THRESHOLDS", "FaceThresholds", "FacesConfig"]


@dataclass(frozen=True, config=FINITE)
class FaceThresholds:
    """Cosine similarities of unit face vectors in one face space."""

    same: float = Field(description="a face at least this like one of a person's faces is that person")
    different: float = Field(description="a face less like every one of a person's faces than this is someone else")
    margin: float = Field(
        0.03, ge=0, description="a match is ambiguous (abstain) when another person's faces come this close to it"
    )

    def __post_init__(self) -> None:
        if not (-1.0 <= self.different <= self.same <= 1.0):
            raise ValueError(f"face thresholds need -1 <= different <= same <= 1, got {self.different}, {self.same}")


#: dlib's face ResNet, its vectors scaled to unit length, measured on the real faces this machine has (faces found
#: by YuNet, >= 40 px, sharp, frontal unless noted): one child across the shared 1.mp4 (12 faces, 110-125 px, in
#: sunglasses) 0.933-0.988 to each other; one woman across 2.avi (9 faces, 40 px) >= 0.963; different people (the
#: child, the woman, Messi in opencv-doc's messi5.jpg at 31 px) 0.82-0.88. So a match needs 0.92 and below 0.86 is
#: another person; between the two a face says nothing and body appearance decides.
DEFAULT_FACE_THRESHOLDS: Mapping[str, FaceThresholds] = {
    "face:dlib_resnet_v1": FaceThresholds(same=0.92, different=0.86, margin=0.03),
}


class FacesConfig(StrictModel):
    enabled: bool | Literal["auto"] = Field(
        "auto",
        description="look for faces in people's crops: auto = where the face models are installed ([faces] extra and "
        "the detector file); false turns face processing off entirely (no face is detected, embedded or kept)",
    )
    detector: str = Field(
        "face_detection_yunet_2026may.onnx", description="YuNet ONNX file (in the models folder, or absolute)"
    )
    min_size: float = Field(
        32.0,
        gt=0,
        description="pixels across a face must be, at least, to be kept (measured: one woman at 39-41 px in 2.avi, "
        ">= 0.96 alike; Messi at 31 px still <= 0.88 like others)",
    )
    min_sharpness: float = Field(
        10.0,
        ge=0,
        description="Laplacian variance of the aligned 150 px face, at least (measured: sharp faces 13-15 at 40 px "
        "in 2.avi, 40-170 at 110 px in 1.mp4; 1.mp4 blurred with sigma 3: 4)",
    )
    max_turn: float = Field(
        0.35, ge=0, description="how far a face may be turned (the nose off between the eyes, in eye distances)"
    )
    crops: int = Field(
        8,
        ge=1,
        le=64,
        description="a person's crops looked at for faces per observation (evenly spread over its frames)",
    )
    per_observation: int = Field(3, ge=1, le=16, description="an observation keeps its best this many faces")
    references: int = Field(
        8, ge=1, le=64, description="faces a person keeps to be recognised by (bounded, kept diverse; enrolled first)"
    )
    spaces: dict[str, FaceThresholds] = Field(
        default_factory=lambda: dict(DEFAULT_FACE_THRESHOLDS),
        description="match thresholds per face embedding space (by the name its embedder gives it)",
    )
    default: FaceThresholds = Field(
        default_factory=lambda: DEFAULT_FACE_THRESHOLDS["face:dlib_resnet_v1"],
        description="thresholds of a face space not in `spaces`",
    )
    body_within_s: float = Field(
        8 * 3600.0,
        ge=0,
        description="a person's body appearance is compared with their references of the last this many seconds "
        "when there are any (clothes change from day to day; faces carry identity across days); 0: all references",
    )

    def thresholds(self, space: str) -> FaceThresholds:
        return self.spaces.get(space) or self.default
