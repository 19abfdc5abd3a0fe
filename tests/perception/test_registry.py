"""The backend registry: every ``type`` the configuration's discriminated unions name has exactly one builder
(a new type without one fails here), ``auto`` resolves to a section with its own defaults, and the runtime's
speech and image-text models are built by the same functions as the write path's."""

from __future__ import annotations

import typing
from pathlib import Path

import pytest

import edge_agent.perception.backends  # noqa: F401 - registers every backend
from edge_agent.config import (
    DescriberConfig,
    DetectorConfig,
    EmbedderConfig,
    OpenCVDetectorConfig,
    YOLOXDetectorConfig,
    load_config,
    union_types,
)
from edge_agent.perception.backends import build_backends
from edge_agent.perception.detect import ModelError
from edge_agent.perception.detectors import auto
from edge_agent.perception.registry import DESCRIBERS, DETECTORS, EMBEDDERS, BuildContext, Registry
from edge_agent.runtime import Runtime


@pytest.mark.parametrize(
    ("registry", "union"),
    [(DETECTORS, DetectorConfig), (EMBEDDERS, EmbedderConfig), (DESCRIBERS, DescriberConfig)],
    ids=["detector", "embedder", "describer"],
)
def test_every_configured_type_has_exactly_one_builder(registry: Registry[object], union: object) -> None:
    types = union_types(union)
    assert len(types) == len(set(types)) == len(typing.get_args(typing.get_args(union)[0]))  # one per member
    assert registry.types() == set(types), (
        f"{registry.area}: builders for {sorted(registry.types())}, config {sorted(types)}"
    )


def test_a_type_registers_once() -> None:
    registry: Registry[object] = Registry("thing")
    registry.register("a")(lambda section, context: "built")
    with pytest.raises(ValueError, match="thing type 'a' is registered twice"):
        registry.register("a")(lambda section, context: "again")


def test_a_type_without_a_builder_is_a_model_error(tmp_path: Path) -> None:
    class Section:
        type = "new"

    with pytest.raises(ModelError, match=r"detector type 'new' has no backend; expected one of auto, gt"):
        DETECTORS.build(Section(), BuildContext(load_config(None), tmp_path))


def test_auto_is_yolox_where_its_file_is_else_opencv_with_their_sections_defaults(tmp_path: Path) -> None:
    context = BuildContext(load_config(None), tmp_path)
    section = load_config(None).detector
    assert auto.resolve(section, context) == OpenCVDetectorConfig(type="opencv")
    (tmp_path / "yolox_nano.onnx").write_bytes(b"")
    assert auto.resolve(section, context) == YOLOXDetectorConfig(type="yolox")
    with pytest.raises(ModelError, match="cannot load .*yolox_nano.onnx"):  # auto builds what it resolved to
        build_backends(load_config(None, faces={"enabled": False}), tmp_path)


def test_defaults_without_model_files_are_the_built_ins(tmp_path: Path) -> None:
    summary = build_backends(load_config(None, faces={"enabled": False}), tmp_path).summary()
    assert summary["detector"] == "opencv (hog-people, haarcascade_frontalcatface)"
    assert {summary[f"embedder.{kind}"] for kind in ("person", "animal", "object")} == {"color-texture-v4"}
    assert (summary["describer"], summary["speech"]) == ("template", "none")


def test_the_runtime_builds_image_text_and_speech_through_the_registry(tmp_path: Path, monkeypatch) -> None:
    runtime = Runtime(load_config(None, speech={"model": "whisper-folder"}), tmp_path, tmp_path / "models")
    with pytest.raises(ModelError, match=r"^image-text model file not found: .*nowhere"):
        runtime.image_text(tmp_path / "nowhere")
    built = []
    monkeypatch.setattr(
        "edge_agent.perception.speech.WhisperTranscriber", lambda model, **options: built.append((model, options))
    )
    runtime.transcriber()
    assert built == [(tmp_path / "models" / "whisper-folder", {"compute_type": "int8", "language": "en"})]
