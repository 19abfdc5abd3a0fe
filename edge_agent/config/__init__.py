"""The one configuration tree (one module per area, as Frigate's ``config/``), loaded from one TOML file and
validated: every field documented with its default, unknown keys refused, backends chosen by a ``type``
field. It imports nothing heavy (no native code, no models, no sinks' runtime), so anything may read it.

Example (every key optional):

    [capture]
    clip_seconds = 10
    sample_fps = 2

    [detector]
    type = "yolox"            # auto | yolox | tensorrt | open-vocab | opencv | gt
    model = "yolox_nano.onnx"
    providers = ["CUDAExecutionProvider", "CPUExecutionProvider"]

    [embedders.person]
    type = "osnet"            # auto | osnet | color-texture | onnx | tensorrt

    [association.spaces."reid:osnet_x0_25_msmt17"]
    tau_low = 0.60
    tau_high = 0.80
"""

from edge_agent.config.alerts import AlertsConfig
from edge_agent.config.api import ApiConfig
from edge_agent.config.association import AssociationConfig, Thresholds
from edge_agent.config.backup import BackupConfig
from edge_agent.config.base import ConfigError, StrictModel, describe_validation_error, union_types
from edge_agent.config.capture import CaptureConfig
from edge_agent.config.consolidation import ConsolidationConfig
from edge_agent.config.describer import DescriberConfig, TemplateDescriberConfig, VLMDescriberConfig
from edge_agent.config.detector import (
    COMMAND_LINE_DETECTORS,
    AutoDetector,
    DetectorConfig,
    GroundTruthDetectorConfig,
    OpenCVDetectorConfig,
    OpenVocabDetectorConfig,
    TensorRTDetectorConfig,
    YOLOXDetectorConfig,
)
from edge_agent.config.embedders import (
    AutoEmbedder,
    ColorTextureEmbedderConfig,
    EmbedderConfig,
    EmbeddersConfig,
    ONNXEmbedderConfig,
    OSNetEmbedderConfig,
    TensorRTEmbedderConfig,
)
from edge_agent.config.episodes import EpisodesConfig
from edge_agent.config.faces import FacesConfig, FaceThresholds
from edge_agent.config.mqtt import FrigateConfig, MqttConfig
from edge_agent.config.paths import config_file, default_home, home_dir, models_dir
from edge_agent.config.places import PlacesConfig
from edge_agent.config.qa import QaConfig
from edge_agent.config.retrieval import RelationWeights, RetrievalConfig
from edge_agent.config.root import Config, load_config
from edge_agent.config.rules import RulesConfig
from edge_agent.config.speech import SpeechConfig
from edge_agent.config.storage import StorageConfig
from edge_agent.config.tracker import TrackerConfig

__all__ = [
    "COMMAND_LINE_DETECTORS",
    "AlertsConfig",
    "ApiConfig",
    "AssociationConfig",
    "AutoDetector",
    "AutoEmbedder",
    "BackupConfig",
    "CaptureConfig",
    "ColorTextureEmbedderConfig",
    "Config",
    "ConfigError",
    "ConsolidationConfig",
    "DescriberConfig",
    "DetectorConfig",
    "EmbedderConfig",
    "EmbeddersConfig",
    "EpisodesConfig",
    "FaceThresholds",
    "FacesConfig",
    "FrigateConfig",
    "GroundTruthDetectorConfig",
    "MqttConfig",
    "ONNXEmbedderConfig",
    "OSNetEmbedderConfig",
    "OpenCVDetectorConfig",
    "OpenVocabDetectorConfig",
    "PlacesConfig",
    "QaConfig",
    "RelationWeights",
    "RetrievalConfig",
    "RulesConfig",
    "SpeechConfig",
    "StorageConfig",
    "StrictModel",
    "TemplateDescriberConfig",
    "TensorRTDetectorConfig",
    "TensorRTEmbedderConfig",
    "Thresholds",
    "TrackerConfig",
    "VLMDescriberConfig",
    "YOLOXDetectorConfig",
    "config_file",
    "default_home",
    "describe_validation_error",
    "home_dir",
    "load_config",
    "models_dir",
    "union_types",
]
