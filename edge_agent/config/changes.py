"""Things found by what changed on a fixed camera (edge_agent.perception.changes): which cameras, and the
background models' times and thresholds. Times are in seconds, so they hold whatever the sampling rate."""

from __future__ import annotations

import fnmatch

from pydantic import Field, model_validator

from edge_agent.config.base import StrictModel

__all__ = ["ChangesConfig"]


class ChangesConfig(StrictModel):
    enabled: bool = Field(
        False,
        description="find things the detector has no class for by what changed in a fixed camera's view "
        "(category 'object'); moving cameras ([tracker] moving_cameras) never are",
    )
    cameras: list[str] = Field(
        default_factory=lambda: ["*"],
        description="the cameras it applies to, by name or shell pattern (moving cameras are left out whatever "
        "this says)",
    )
    long_seconds: float = Field(
        600.0,
        gt=0,
        le=86_400,
        description="history of the long background model: what the scene usually is (MOG2 takes a change in "
        "after about a tenth of its history: a thing left is new for about a minute)",
    )
    short_seconds: float = Field(
        10.0,
        gt=0,
        le=3_600,
        description="history of the short background model: what the scene is now (MOG2 takes a change into a "
        "history of under about 10 frames at once, so at 2 fps this needs several seconds)",
    )
    persist_seconds: float = Field(
        2.0,
        ge=0,
        le=3_600,
        description="a region must stay changed (new to the long model, settled in the short one) this long to "
        "be a thing left there",
    )
    handled_seconds: float = Field(
        1.0,
        ge=0,
        le=3_600,
        description="a changed region moving beside a person must be there this long to be a thing in their hands",
    )
    width: int = Field(160, ge=32, le=4096, description="pixels wide the background models see (downscaled, in colour)")
    min_area: float = Field(
        0.002, gt=0, le=1, description="smallest region reported, as a fraction of the frame's area"
    )
    max_area: float = Field(0.5, gt=0, le=1, description="largest region reported, as a fraction of the frame's area")
    max_changed: float = Field(
        0.5,
        gt=0,
        le=1,
        description="when more than this fraction of the frame changes at once (a light change, the camera "
        "knocked), nothing is reported and both models start again from the frame",
    )
    person_overlap: float = Field(
        0.3,
        ge=0,
        le=1,
        description="a region with more than this fraction of its pixels inside a person's or an animal's box "
        "is them, not a thing",
    )
    detected_iou: float = Field(
        0.3, ge=0, le=1, description="a region overlapping a detected box by at least this IoU is the detector's"
    )
    handled_reach: float = Field(
        0.3,
        ge=0,
        le=2,
        description="a thing in someone's hands lies within this many box sizes outside their box",
    )
    unsure_score: float = Field(
        0.3,
        ge=0,
        le=1,
        description="a box the detector is unsure of (at least this score, below [tracker] new_track_threshold, "
        "so it starts no track), beside a person and found again in consecutive frames for handled_seconds, is a "
        "thing in their hands (category 'object': the detector's class is a guess); 1: off",
    )
    undecided: float = Field(
        0.33,
        gt=0,
        le=1,
        description="a box the detector is unsure of is a thing it has no class for once, over the frames it was "
        "followed, its second guess (a class not confusable with the first) sums to at least this fraction of its "
        "first",
    )
    handled_overlap: float = Field(
        0.75,
        ge=0,
        le=1,
        description="a thing in someone's hands may have up to this fraction of its box inside their box (the hand "
        "holding it)",
    )
    keep: bool = Field(
        True,
        description="a thing left there is followed after the long model has taken it in (about a minute later, "
        "or between recordings) while it still looks as it did when found and not as the surface it lies on; "
        "where it looks like that surface again, it is gone",
    )
    keep_contrast: float = Field(
        12.0,
        ge=0,
        le=255,
        description="a thing left there is followed so only when it differs from the surface it lies on by at "
        "least this much (mean per colour channel, 0-255): less is too faint to tell it is still there",
    )
    keep_unclear_seconds: float = Field(
        30.0,
        ge=0,
        le=86_400,
        description="a followed thing that looks neither as it did nor as the surface (with no person in front) "
        "for this long is let go",
    )
    score: float = Field(
        0.7,
        gt=0,
        le=1,
        description="the confidence given to a found region (at least the tracker's new_track_threshold, so it "
        "starts a track)",
    )

    @model_validator(mode="after")
    def _short_within_long(self) -> ChangesConfig:
        if self.short_seconds >= self.long_seconds:
            raise ValueError(
                f"short_seconds ({self.short_seconds}) must be less than long_seconds ({self.long_seconds})"
            )
        return self

    def applies(self, camera: str, moving: bool) -> bool:
        """Whether ``camera`` (``moving``: its view moves) gets a change finder."""
        return self.enabled and not moving and any(fnmatch.fnmatchcase(camera, p) for p in self.cameras)
