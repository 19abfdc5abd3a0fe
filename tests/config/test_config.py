"""The configuration tree: every field documented, nothing heavy imported, thresholds keyed by embedding space,
and one resolution of the memory, models and configuration folders that every command honours."""

from __future__ import annotations

import json
import math
import subprocess
import sys
import tempfile
import typing
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel, TypeAdapter, ValidationError

from edge_agent.config import (
    AssociationConfig,
    Config,
    ConfigError,
    FaceThresholds,
    Thresholds,
    home_dir,
    load_config,
    models_dir,
)
from edge_agent.config.sinks import SINK_CONFIG


def _models(annotation, seen):
    """Every pydantic model reachable from a field's type (unions, lists, dicts, Annotated)."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        if annotation not in seen:
            seen.add(annotation)
            for field in annotation.model_fields.values():
                _models(field.annotation, seen)
        return
    for arg in typing.get_args(annotation):
        _models(arg, seen)


def test_every_field_has_a_description():
    seen: set[type] = set()
    _models(Config, seen)
    for model in SINK_CONFIG.values() if isinstance(SINK_CONFIG, dict) else []:
        _models(model, seen)
    assert len(seen) > 20
    missing = [f"{m.__name__}.{name}" for m in seen for name, f in m.model_fields.items() if not f.description]
    assert not missing, f"fields without a description: {missing}"


def test_the_configuration_imports_nothing_heavy(tmp_path):
    code = (
        "import sys, edge_agent.config; heavy = ['edge_agent._native', 'edge_agent.memory', 'edge_agent.rules', "
        "'paho', 'numpy', 'cv2', 'onnxruntime', 'fastapi']; print([m for m in heavy if m in sys.modules])"
    )
    # run outside the checkout: the installed package is under test, not the source tree
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=tmp_path)
    assert done.stdout.strip() == "[]"


def test_thresholds_belong_to_an_embedding_space():
    config = AssociationConfig()
    assert config.thresholds_for("person", "reid:osnet_x0_25_msmt17") == Thresholds(0.60, 0.80)
    # a person described by colour and texture (no OSNet file) never gets OSNet's thresholds
    assert config.thresholds_for("person", "color-texture-v2") == config.thresholds["person"] != Thresholds(0.60, 0.80)
    assert config.thresholds_for("object", "color-texture-v2") == Thresholds(0.75, 0.88)
    tuned = load_config(
        None, association={"spaces": {"color-texture-v2": {"tau_low": 0.7, "tau_high": 0.9}}}
    ).association
    assert tuned.thresholds_for("animal", "color-texture-v2") == Thresholds(0.7, 0.9)
    with pytest.raises(ConfigError, match=r"association.spaces.x: .*tau_low <= tau_high"):
        load_config(None, association={"spaces": {"x": {"tau_low": 0.9, "tau_high": 0.1}}})


def test_tracker_parameters_are_defined_once():
    from edge_agent.config import TrackerConfig
    from edge_agent.native import ByteTracker
    from edge_agent.native_reference import ByteTrackerReference

    defaults = TrackerConfig()
    reference = ByteTrackerReference()
    assert reference.minimum_iou_threshold == defaults.minimum_iou_threshold == 0.1
    signature = typing.get_type_hints(ByteTracker.__init__)
    assert "minimum_iou_threshold" in signature
    import inspect

    assert (
        inspect.signature(ByteTracker.__init__).parameters["minimum_iou_threshold"].default
        == defaults.minimum_iou_threshold
    )


def test_a_removed_tracker_key_says_what_replaced_it(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text("[tracker]\nlink_gate = 1.5\n")
    with pytest.raises(ConfigError, match=r"link_gate was removed.*appearance_gate.*delete the key"):
        load_config(path)


def test_folders_resolve_in_one_order(tmp_path, monkeypatch):
    monkeypatch.setenv("EDGE_AGENT_HOME", str(tmp_path / "env-home"))
    monkeypatch.delenv("EDGE_AGENT_MODELS", raising=False)
    assert home_dir(None, None) == tmp_path / "env-home"
    assert home_dir(None, tmp_path / "configured") == tmp_path / "configured"
    assert home_dir(tmp_path / "option", tmp_path / "configured") == tmp_path / "option"
    assert models_dir(None, None, tmp_path / "h") == tmp_path / "h" / "models"
    assert models_dir(None, tmp_path / "m", tmp_path / "h") == tmp_path / "m"
    monkeypatch.setenv("EDGE_AGENT_MODELS", str(tmp_path / "env-models"))
    assert models_dir(None, tmp_path / "m", tmp_path / "h") == tmp_path / "env-models"
    assert models_dir(tmp_path / "option", tmp_path / "m", tmp_path / "h") == tmp_path / "option"


def _edge_agent(*argv, module="edge_agent"):
    """``python -m edge_agent ...`` run outside the checkout (the installed package, not the source tree)."""
    return subprocess.run(
        [sys.executable, "-m", module, *map(str, argv)], capture_output=True, text=True, cwd=Path(tempfile.gettempdir())
    )


def test_every_command_honours_the_configured_home(tmp_path):
    from helpers.memory import filled_memory

    home = filled_memory(tmp_path / "configured-home", clips=2)
    config = tmp_path / "edge-agent.toml"
    config.write_text(f'home = "{home}"\n')
    for argv in (
        ["entities", "list", "--json"],
        ["memory", "stats", "--json"],
        ["memory", "check", "--json"],
        ["rules", "list", "--json"],
        ["alerts", "list", "--json"],
    ):
        done = _edge_agent("--config", config, *argv)
        assert done.returncode == 0, (argv, done.stderr)
    assert len(json.loads(_edge_agent("entities", "list", "--json", "--config", config).stdout)) == 3
    assert json.loads(_edge_agent("memory", "stats", "--json", "--config", config).stdout)["home"] == str(home)
    done = _edge_agent("memory", "backup", tmp_path / "b", "--config", config)
    assert done.returncode == 0 and str(home) in done.stdout


def test_global_options_go_before_or_after_the_subcommand(tmp_path):
    from helpers.memory import filled_memory

    home = filled_memory(tmp_path / "home", clips=1)
    before = _edge_agent("--home", home, "entities", "list", "--json")
    after = _edge_agent("entities", "list", "--home", home, "--json")
    assert before.returncode == after.returncode == 0 and json.loads(before.stdout) == json.loads(after.stdout)
    assert len(json.loads(after.stdout)) == 3
    done = _edge_agent("rules", "list", "--home", home, module="edge_agent.cli")
    assert done.returncode == 0 and done.stdout.strip() == "no rules"


def _numeric_fields():
    """(model, field name, int or float) of every number field reachable from the configuration, its
    pydantic dataclasses (thresholds) included."""
    seen: set[type] = set()
    _models(Config, seen)
    for model in SINK_CONFIG.values() if isinstance(SINK_CONFIG, dict) else []:
        _models(model, seen)
    seen |= {Thresholds, FaceThresholds}
    found = []
    for model in seen:
        fields = model.model_fields if issubclass(model, BaseModel) else model.__pydantic_fields__
        for name, field in fields.items():
            kinds = {field.annotation} | set(typing.get_args(field.annotation))
            for kind in (float, int):
                if kind in kinds:
                    found.append(pytest.param(model, name, kind, id=f"{model.__name__}.{name}"))
                    break
    return found


@pytest.mark.parametrize(("model", "name", "kind"), _numeric_fields())
def test_every_number_in_the_configuration_is_finite_and_in_range(model, name, kind):
    bad = [math.inf, -math.inf, math.nan] + ([2**63, -(2**63) - 1] if kind is int else [])
    for value in bad:
        with pytest.raises(ValidationError) as refused:
            TypeAdapter(model).validate_python({name: value})
        assert any(e["loc"][:1] == (name,) for e in refused.value.errors()), (name, value, refused.value.errors())


@pytest.mark.parametrize(
    ("toml", "key"),
    [
        ("[capture]\nclip_seconds = inf\n", "capture.clip_seconds"),
        ("[capture]\nclip_seconds = nan\n", "capture.clip_seconds"),
        ("[capture]\nclip_seconds = 1e-300\n", "capture.clip_seconds"),
        ("[capture]\nclip_seconds = 1e300\n", "capture.clip_seconds"),
        ("[capture]\nimage_fps = 1e-300\n", "capture.image_fps"),
        ("[retrieval]\nlexical_window = 1180591620717411303424\n", "retrieval.lexical_window"),
        ("[detector]\ntype = 'gt'\nseed = -1\n", "detector.gt.seed"),
        ("[tracker]\nlost_track_buffer = 4294967296\n", "tracker.lost_track_buffer"),
        ("[zones.kitchen]\nsink = [0, 0, inf, 10]\n", "zones.kitchen.sink"),
        ("[embedders.object]\ntype = 'onnx'\nmodel = 'm.onnx'\nstd = [0.2, 0.0, 0.2]\n", "embedders.object.onnx.std"),
        ("[embedders.object]\ntype = 'onnx'\nmodel = 'm.onnx'\nmean = [0.2, nan, 0.2]\n", "embedders.object.onnx.mean"),
        ("[faces.default]\nsame = 0.9\ndifferent = 0.8\nmargin = inf\n", "faces.default.margin"),
        ("[embedders.described]\nobject = nan\n", "embedders.described.object"),
    ],
)
def test_a_number_out_of_range_names_its_key(tmp_path, toml, key):
    path = tmp_path / "edge-agent.toml"
    path.write_text(toml)
    with pytest.raises(ConfigError) as refused:
        load_config(path)
    message = str(refused.value)
    assert message.startswith(f"{path}: {key}") and "\n" not in message, message


@pytest.mark.parametrize("seconds", [0.5, 10, 3600])
def test_a_sensible_clip_length_is_taken(seconds):
    assert load_config(None, capture={"clip_seconds": seconds}).capture.clip_seconds == seconds


@pytest.mark.parametrize("what", ["utf-16 bytes", "a folder", "not UTF-8"])
def test_a_configuration_file_that_cannot_be_read_is_named(tmp_path, what):
    path = tmp_path / "edge-agent.toml"
    if what == "a folder":
        path.mkdir()
    elif what == "utf-16 bytes":
        path.write_bytes(b"\xff\xfe" + "[capture]\nclip_seconds = 5\n".encode("utf-16-le"))
    else:
        path.write_bytes(b"[capture]\n# caf\xe9\nclip_seconds = 5\n")
    with pytest.raises(ConfigError) as refused:
        load_config(path)
    message = str(refused.value)
    assert str(path) in message and "\n" not in message, message
    done = _edge_agent("--config", path, "--home", tmp_path / "home", "memory", "stats")
    assert done.returncode == 1 and done.stderr.count("\n") == 1 and str(path) in done.stderr, done.stderr
    assert done.stderr.startswith("edge-agent: error: ")


def test_the_question_limit_is_one_setting():
    assert load_config(None).qa.max_question_chars == 500
    assert load_config(None, qa={"max_question_chars": 2000}).qa.max_question_chars == 2000
    for bad in (0, -1, 10**9):
        with pytest.raises(ConfigError, match="qa.max_question_chars"):
            load_config(None, qa={"max_question_chars": bad})


@given(
    st.sampled_from(
        [
            "capture.clip_seconds",
            "capture.image_fps",
            "retrieval.lexical_window",
            "retrieval.around_seconds",
            "backup.every_hours",
            "tracker.lost_track_buffer",
            "rules.cooldown_s",
            "qa.max_question_chars",
        ]
    ),
    st.one_of(st.floats(), st.integers(), st.integers(min_value=2**62, max_value=2**80)),
)
def test_any_number_in_the_configuration_is_taken_finite_or_refused_naming_its_key(key, value):
    area, name = key.split(".")
    try:
        config = load_config(None, **{area: {name: value}})
    except ConfigError as refused:
        assert str(refused).startswith(f"{key}: ") and "\n" not in str(refused)
        return
    taken = getattr(getattr(config, area), name)
    assert math.isfinite(taken) and (isinstance(taken, float) or abs(taken) < 2**63)
