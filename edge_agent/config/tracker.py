"""The within-clip tracker (ByteTrack in the native core) and what makes a tracklet an observation. These
fields are the tracker's parameters everywhere: the native ``ByteTracker`` and its NumPy reference take
their defaults from here."""

from __future__ import annotations

import fnmatch
from typing import Any

from pydantic import Field, model_validator

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
        30, ge=0, le=100_000, description="frames, counted at 30 fps, that a lost track waits to be found again"
    )
    confusable_merge_iou_threshold: float = Field(
        0.6,
        ge=0,
        le=1,
        description="in one frame, boxes of different classes of one confusable group (edge_agent.memory.categories: "
        "car/truck/bus, chair/couch/bed/bench, ...) overlapping with at least this IoU are one thing: the best-scored "
        "box and class are kept, the next-best class goes to the describer as its runner-up, and the tracker follows "
        "a thing across such classes. Measured: a parked van's car and truck boxes overlap at 0.86-0.97, an armchair's "
        "chair and couch boxes at 0.61-0.98; 1: only identical boxes merge",
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
    follow_carried: bool = Field(
        False,
        description="on a moving camera, keep following a thing in the wearer's hand (it stays put in the image while "
        "the room moves: the tracker's held pass matches a track the camera's motion moved off every detection where "
        "it was in the image, to one that looks alike, appearance_threshold), and make what was carried a sighting of "
        "its own, at no place, apart from where the thing stood before and after; off by default: on the worn-camera "
        "worlds it records carried things but loses evidence on wearable-house (README, issue 43 item 4)",
    )
    appearance_gate: float = Field(
        1.5,
        ge=0,
        description="> 0: on a fixed camera the tracks and confident detections IoU left unmatched are matched by "
        "appearance, a detection centred within this many track sizes of where the track is heading that looks "
        "alike (appearance_threshold): at 2 fps a walker moves further than their width between frames (BoT-SORT's "
        "fusion of motion and appearance); 0: IoU only. Moving cameras (moving_cameras) are followed by motion "
        "compensation instead (and, with follow_carried, a thing in the wearer's hand by its look)",
    )
    appearance_threshold: float = Field(
        0.8,
        ge=-1,
        le=1,
        description="cosine similarity of the colour-texture vectors a match by appearance needs (a track's vector "
        "is the moving average of its detections')",
    )
    observation_recovery: bool = Field(
        False,
        description="OC-SORT: a track left unmatched tries the detections left over from its last observed box, and "
        "a track found again after missed frames is corrected along the gap. Off by default: measured, it changed "
        "nothing on the worlds and cost IDF1 on degraded TUD trajectories at 25 fps (edge-agent bench tracking)",
    )

    @model_validator(mode="before")
    @classmethod
    def _no_linking(cls, data: Any) -> Any:
        if isinstance(data, dict) and "link_gate" in data:
            raise ValueError(
                "link_gate was removed: the tracker itself now follows a thing that moved further than its width "
                "between sampled frames when it looks the same (appearance_gate, on by default); delete the key"
            )
        return data

    def moves(self, camera: str) -> bool:
        """Whether ``camera``'s view moves (its tracker compensates the camera's motion)."""
        return any(fnmatch.fnmatchcase(camera, pattern) for pattern in self.moving_cameras)
