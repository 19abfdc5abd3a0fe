"""The root of the configuration tree and its loading from one TOML file: every area validated by pydantic,
every field documented with its default, unknown keys refused, backends chosen by a ``type`` field. A
mistake is reported with the key, the value and what was expected."""

from __future__ import annotations

import sys
from pathlib import Path

from pydantic import Field, ValidationError

from edge_agent.config.alerts import AlertsConfig
from edge_agent.config.api import ApiConfig
from edge_agent.config.association import AssociationConfig
from edge_agent.config.backup import BackupConfig
from edge_agent.config.base import ConfigError, StrictModel, describe_validation_error
from edge_agent.config.capture import CaptureConfig
from edge_agent.config.changes import ChangesConfig
from edge_agent.config.consolidation import ConsolidationConfig
from edge_agent.config.describer import DescriberConfig, TemplateDescriberConfig
from edge_agent.config.detector import AutoDetector, DetectorConfig
from edge_agent.config.embedders import EmbeddersConfig
from edge_agent.config.episodes import EpisodesConfig
from edge_agent.config.faces import FacesConfig
from edge_agent.config.mqtt import FrigateConfig, MqttConfig
from edge_agent.config.places import PlacesConfig
from edge_agent.config.qa import QaConfig
from edge_agent.config.retrieval import RetrievalConfig
from edge_agent.config.rules import RulesConfig
from edge_agent.config.speech import SpeechConfig
from edge_agent.config.storage import StorageConfig
from edge_agent.config.tracker import TrackerConfig

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

__all__ = ["Config", "load_config"]


class Config(StrictModel):
    """The whole configuration: one area per table of the TOML file, every key optional."""

    home: Path | None = Field(
        None, description="memory folder (--home wins; without either: $EDGE_AGENT_HOME, else the per-user folder)"
    )
    models: Path | None = Field(
        None, description="models folder (--models and $EDGE_AGENT_MODELS win; without any: <home>/models)"
    )
    capture: CaptureConfig = Field(default_factory=CaptureConfig, description="clip length and sampling")
    detector: DetectorConfig = Field(default_factory=AutoDetector, description="the detector backend")
    tracker: TrackerConfig = Field(default_factory=TrackerConfig, description="the within-clip tracker")
    changes: ChangesConfig = Field(
        default_factory=ChangesConfig, description="things found by what changed on fixed cameras"
    )
    embedders: EmbeddersConfig = Field(default_factory=EmbeddersConfig, description="appearance embedders per kind")
    describer: DescriberConfig = Field(
        default_factory=TemplateDescriberConfig, description="who describes observations"
    )
    speech: SpeechConfig = Field(default_factory=SpeechConfig, description="speech-to-text of recordings")
    episodes: EpisodesConfig = Field(default_factory=EpisodesConfig, description="episode summaries")
    rules: RulesConfig = Field(default_factory=RulesConfig, description="user rules and their reader")
    alerts: AlertsConfig = Field(default_factory=AlertsConfig, description="where alerts go")
    api: ApiConfig = Field(default_factory=ApiConfig, description="the HTTP API")
    association: AssociationConfig = Field(default_factory=AssociationConfig, description="cross-clip identity")
    qa: QaConfig = Field(default_factory=QaConfig, description="questions: how long one may be")
    retrieval: RetrievalConfig = Field(
        default_factory=RetrievalConfig, description="seeds, PPR and the evidence budget"
    )
    consolidation: ConsolidationConfig = Field(default_factory=ConsolidationConfig, description="traces and facts")
    places: PlacesConfig = Field(default_factory=PlacesConfig, description="places of cameras without zones")
    faces: FacesConfig = Field(
        default_factory=FacesConfig, description="faces as evidence of who a person is (and the switch to turn it off)"
    )
    backup: BackupConfig = Field(default_factory=BackupConfig, description="scheduled backups")
    storage: StorageConfig = Field(
        default_factory=StorageConfig, description="the disk holding the memory: the room ingest leaves free"
    )
    mqtt: MqttConfig = Field(default_factory=MqttConfig, description="camera nodes and the memory hub over MQTT")
    frigate: FrigateConfig = Field(default_factory=FrigateConfig, description="following a Frigate install")
    zones: dict[str, dict[str, tuple[float, float, float, float]]] = Field(
        default_factory=dict,
        description="per camera, named places drawn in image pixels: {camera: {name: [x1, y1, x2, y2]}}",
    )


def _text(path: Path) -> str:
    """The configuration file's text (UTF-8, as TOML is); :class:`ConfigError` names the file when it cannot be read."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise ConfigError(f"configuration file not found: {path}") from None
    except IsADirectoryError:
        raise ConfigError(f"{path} is a folder: give the configuration file (TOML) itself") from None
    except OSError as exc:
        raise ConfigError(f"cannot read the configuration file {path}: {exc.strerror or exc}") from None
    try:
        return raw.decode("utf-8-sig")  # a byte order mark some editors write is no reason to refuse the file
    except UnicodeDecodeError as exc:
        utf16 = raw[:2] in (b"\xff\xfe", b"\xfe\xff")
        found = "UTF-16, by its byte order mark" if utf16 else f"byte {raw[exc.start]:#04x} at offset {exc.start}"
        raise ConfigError(f"{path}: not UTF-8 text ({found}): save the configuration file as UTF-8") from None


def load_config(path: str | Path | None = None, **overrides: object) -> Config:
    """The configuration from a TOML file (or defaults), with command-line overrides applied."""
    data: dict[str, object] = {}
    if path is not None:
        path = Path(path)
        try:
            data = tomllib.loads(_text(path))
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
