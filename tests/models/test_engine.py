"""models build-engine: the TensorRT builder flow with a fake ``tensorrt`` module (flags, profile, output
path, parse failure), trtexec as the fallback (a fake script on PATH), INT8 refused without Q/DQ nodes,
a clear message where neither exists, and a real build where TensorRT is installed."""

from __future__ import annotations

import importlib.util
import json
import sys
import types

import pytest
from helpers.shared import SHARED, need

from edge_agent.cli import main
from edge_agent.modelfiles import engine as engine_module
from edge_agent.modelfiles.engine import EngineBuildError, build_engine, engine_file, find_engines


class _Tensor:
    def __init__(self, name, shape):
        self.name, self.shape = name, shape


def fake_tensorrt(
    *, parses: bool = True, input_shape=(1, 3, 416, 416), version: str = "10.3.0", fast_fp16: bool = True
):
    """A stand-in for the tensorrt module that records what the builder was asked."""
    calls: dict = {"flags": [], "profile": [], "parsed": None, "network_flags": None, "workspace": None}
    trt = types.ModuleType("tensorrt")
    trt.__version__ = version
    trt.calls = calls

    class Logger:
        WARNING = "warning"

        def __init__(self, level):
            self.level = level

    class Network:
        num_inputs = 1

        def get_input(self, i):
            return _Tensor("images", input_shape)

    class Parser:
        num_errors = 0 if parses else 1

        def __init__(self, network, logger):
            pass

        def parse(self, data):
            calls["parsed"] = len(data)
            return parses

        def get_error(self, i):
            return "In node 3 (Conv): unsupported attribute"

    class Config:
        def set_memory_pool_limit(self, pool, size):
            calls["workspace"] = (pool, size)

        def set_flag(self, flag):
            calls["flags"].append(flag)

        def add_optimization_profile(self, profile):
            calls["profile"].append(profile.shapes)

    class Profile:
        def __init__(self):
            self.shapes = {}

        def set_shape(self, name, low, opt, high):
            self.shapes[name] = (low, opt, high)

    class Builder:
        platform_has_fast_fp16 = fast_fp16

        def __init__(self, logger):
            pass

        def create_network(self, flags):
            calls["network_flags"] = flags
            return Network()

        def create_builder_config(self):
            return Config()

        def create_optimization_profile(self):
            return Profile()

        def build_serialized_network(self, network, config):
            return b"fake serialized engine"

    trt.Logger, trt.Builder, trt.OnnxParser = Logger, Builder, Parser
    trt.BuilderFlag = types.SimpleNamespace(FP16="FP16", INT8="INT8")
    trt.MemoryPoolType = types.SimpleNamespace(WORKSPACE="WORKSPACE")
    trt.NetworkDefinitionCreationFlag = types.SimpleNamespace(EXPLICIT_BATCH=0)
    return trt


def test_the_python_builder_sets_fp16_and_writes_the_named_engine(tmp_path, monkeypatch):
    trt = fake_tensorrt()
    monkeypatch.setitem(sys.modules, "tensorrt", trt)
    onnx = tmp_path / "yolox_nano.onnx"
    onnx.write_bytes(b"not really onnx")
    out = tmp_path / engine_file(onnx.name, "fp16")
    result = build_engine(onnx, out, precision="fp16", workspace_mb=512)
    assert out.name == "yolox_nano.fp16.engine" and out.read_bytes() == b"fake serialized engine"
    assert result.tool == "tensorrt 10.3.0" and result.precision == "fp16"
    assert trt.calls["flags"] == ["FP16"] and trt.calls["workspace"] == ("WORKSPACE", 512 << 20)
    assert trt.calls["parsed"] == len(b"not really onnx") and trt.calls["network_flags"] == 0
    assert trt.calls["profile"] == []  # static input: no optimisation profile
    assert not (tmp_path / "yolox_nano.fp16.engine.part").exists()
    assert find_engines(onnx.name, tmp_path) == [out]


def test_dynamic_batch_gets_a_batch_1_profile_and_tensorrt_8_asks_for_explicit_batch(tmp_path, monkeypatch):
    trt = fake_tensorrt(input_shape=(-1, 3, 256, 128), version="8.6.2")
    monkeypatch.setitem(sys.modules, "tensorrt", trt)
    onnx = tmp_path / "osnet.onnx"
    onnx.write_bytes(b"x")
    result = build_engine(onnx, tmp_path / "osnet.fp32.engine", precision="fp32")
    assert trt.calls["flags"] == [] and trt.calls["network_flags"] == 1
    assert trt.calls["profile"] == [{"images": ((1, 3, 256, 128),) * 3}]
    assert "input images fixed at 1x3x256x128" in result.notes
    trt = fake_tensorrt(input_shape=(1, 3, -1, -1))
    monkeypatch.setitem(sys.modules, "tensorrt", trt)
    with pytest.raises(EngineBuildError, match="dynamic dimensions .* give --shape"):
        build_engine(onnx, tmp_path / "yunet.fp16.engine")
    build_engine(onnx, tmp_path / "yunet.fp16.engine", shape=(1, 3, 480, 640))
    assert trt.calls["profile"] == [{"images": ((1, 3, 480, 640),) * 3}]


def test_a_parse_failure_is_reported_and_leaves_no_engine(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "tensorrt", fake_tensorrt(parses=False))
    onnx = tmp_path / "m.onnx"
    onnx.write_bytes(b"x")
    with pytest.raises(EngineBuildError, match=r"cannot parse m.onnx: In node 3 \(Conv\): unsupported attribute"):
        build_engine(onnx, tmp_path / "m.fp16.engine")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.onnx"]


def test_int8_needs_an_already_quantized_onnx(tmp_path, monkeypatch):
    trt = fake_tensorrt()
    monkeypatch.setitem(sys.modules, "tensorrt", trt)
    onnx = tmp_path / "m.onnx"
    onnx.write_bytes(b"plain float model")
    with pytest.raises(EngineBuildError, match="not quantized .* Build with --fp16"):
        build_engine(onnx, tmp_path / "m.int8.engine", precision="int8")
    onnx.write_bytes(b"...DequantizeLinear...QuantizeLinear...")
    build_engine(onnx, tmp_path / "m.int8.engine", precision="int8")
    assert trt.calls["flags"] == ["FP16", "INT8"]


def test_without_tensorrt_or_trtexec_the_message_says_what_to_install(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "tensorrt", None)  # import tensorrt raises ImportError
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(engine_module, "TRTEXEC_JETPACK", tmp_path / "absent" / "trtexec")
    onnx = tmp_path / "m.onnx"
    onnx.write_bytes(b"x")
    with pytest.raises(EngineBuildError, match="python3-libnvinfer .* pip install tensorrt"):
        build_engine(onnx, tmp_path / "m.fp16.engine")


@pytest.mark.shared
def test_trtexec_is_used_when_the_python_module_is_absent(tmp_path, monkeypatch):
    """A fake trtexec on PATH records its arguments and writes the engine; the dynamic batch of the
    real OSNet export becomes explicit shapes, the input name read with ONNX Runtime."""
    monkeypatch.setitem(sys.modules, "tensorrt", None)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    record = tmp_path / "args.json"
    script = bin_dir / "trtexec"
    script.write_text(f"""#!{sys.executable}
import json, sys
json.dump(sys.argv[1:], open({str(record)!r}, "w"))
out = next(a.split("=", 1)[1] for a in sys.argv if a.startswith("--saveEngine="))
open(out, "wb").write(b"trtexec engine")
""")
    script.chmod(0o755)
    monkeypatch.setenv("PATH", str(bin_dir))
    onnx = need(SHARED / "models" / "osnet_x0_25_msmt17.onnx")
    out = tmp_path / "osnet_x0_25_msmt17.fp16.engine"
    result = build_engine(onnx, out, precision="fp16", workspace_mb=256)
    args = json.loads(record.read_text())
    assert out.read_bytes() == b"trtexec engine" and result.tool == str(script)
    assert f"--onnx={onnx}" in args and "--fp16" in args and "--memPoolSize=workspace:256M" in args
    assert {
        "--minShapes=images:1x3x256x128",
        "--optShapes=images:1x3x256x128",
        "--maxShapes=images:1x3x256x128",
    } <= set(args)


def test_the_cli_refuses_a_file_that_differs_from_the_manifest(models, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "tensorrt", fake_tensorrt())
    assert main(["models", "build-engine", "yolox_nano", "--fp16"]) == 1
    assert "is not there" in capsys.readouterr().err
    (models / "yolox_nano.onnx").write_bytes(b"my own export")
    assert main(["models", "build-engine", "yolox_nano", "--fp16"]) == 1
    assert "--skip-verify" in capsys.readouterr().err
    assert main(["models", "build-engine", "yolox_nano", "--fp16", "--skip-verify", "--workspace", "64"]) == 0
    out = capsys.readouterr().out
    assert f"{models / 'yolox_nano.fp16.engine'}: fp16 engine built with tensorrt 10.3.0" in out
    assert 'type = "tensorrt"\nengine = "yolox_nano.fp16.engine"' in out
    assert main(["models", "build-engine", "all-MiniLM-L6-v2"]) == 1
    assert "only ONNX files" in capsys.readouterr().err


@pytest.mark.shared
def test_a_real_engine_build(tmp_path):
    if importlib.util.find_spec("tensorrt") is None:
        pytest.skip("tensorrt is not installed")
    onnx = need(SHARED / "models" / "yolox_nano.onnx")
    result = build_engine(onnx, tmp_path / "yolox_nano.fp16.engine", precision="fp16")
    assert result.path.stat().st_size > 0
