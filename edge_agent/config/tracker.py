"""The within-clip tracker (ByteTrack in the native core) and what makes a tracklet an observation. These
fields are the tracker's parameters everywhere: the native ``ByteTracker`` and its NumPy reference take
their defaults from here."""

from __future__ import annotations

import fnmatch

from pydantic import Field

from edge_agent.config.base import StrictModel

__all__ = ["TrackerConfig"]


class TrackerConfig(StrictModel):
    high_conf_det_threshold: float = Field(
        0.5,
        ge=0,
        le=1,
        description="detections scoring at least this take part in the first association pass and may start tracks",
    )
    low_conf_det_threshold: float = Field(
        0.1,
        ge=0,
        le=1,
        description="detections scoring in [low, high) only keep existing tracks alive (second pass); "
        "lower ones are ignored",
    )
    new_track_threshold: float = Field(
        0.6, ge=0, le=1, description="an unmatched high detection starts a track only if it scores at least this"
    )
    minimum_iou_threshold: float = Field(
        0.1,
        ge=0,
        le=1,
        description="first-pass matches need IoU x detection score above this (ByteTrack's score fusion; "
        "low because at 2 fps boxes move between frames; ByteTrack uses 0.2 at 30 fps)",
    )
    lost_track_buffer: int = Field(
        30, ge=0, description="frames, counted at 30 fps, that a lost track waits to be found again"
    )
    min_frames: int = Field(
        2, ge=1, description="sampled frames a tracklet needs to become an observation (fewer: likely a false positive)"
    )
    crops_per_observation: int = Field(
        3, ge=1, description="best crops kept per tracklet for its embedding and description"
    )
    moving_cameras: list[str] = Field(
        default_factory=list,
        description="cameras whose view moves (worn, handheld, panning), by name or shell pattern ('wearable*', "
        "'*'): their tracker follows the camera's motion between frames (edge_agent.perception.motion, BoT-SORT's "
        "compensation); a fixed camera needs none",
    )
    link_gate: float = Field(
        0.0,
        ge=0,
        description="> 0 (e.g. 1.5): join a tracklet to one of its category that ended on the "
        "frame before, within this many box sizes of where it was heading: people walking past a fixed "
        "camera at 2 fps; off by default, it merges look-alikes in crowds and on a moving camera",
    )

    def moves(self, camera: str) -> bool:
        """Whether ``camera``'s view moves (its tracker compensates the camera's motion)."""
        return any(fnmatch.fnmatchcase(camera, pattern) for pattern in self.moving_cameras)
