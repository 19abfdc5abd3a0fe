"""ONNX -> TensorRT engine, on the machine that will run it (an engine is specific to the GPU and the
TensorRT version that built it, so none ships with edge-agent). The ``tensorrt`` Python builder API
(OnnxParser, a builder config with the precision flags and a workspace pool, serialised to
``<stem>.<precision>.engine``), else NVIDIA's ``trtexec`` where only that is installed. Both are
imported or looked up only here. Dynamic input dimensions get one fixed optimisation profile: batch 1,
or the ``shape`` given. INT8 without calibration data is refused unless the ONNX is already quantized
(explicit Q/DQ nodes); there is no calibrator here."""

from __future__ import annotations

import shutil
import subprocess
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from edge_agent.errors import EdgeAgentError

__all__ = [
    "PRECISIONS",
    "EngineBuildError",
    "EngineResult",
    "build_engine",
    "engine_file",
    "find_engines",
    "is_quantized",
]

PRECISIONS = ("fp16", "int8", "fp32")  #: also the order engines are preferred in
TRTEXEC_JETPACK = Path("/usr/src/tensorrt/bin/trtexec")  # where JetPack installs it (not on PATH)


class EngineBuildError(EdgeAgentError, RuntimeError):
    """No engine was built; the message says why and what to do."""


@dataclass(frozen=True)
class EngineResult:
    path: Path
    tool: str  #: "tensorrt <version>" or the trtexec path
    precision: str
    seconds: float
    notes: list[str] = field(default_factory=list)


def engine_file(onnx_file: str, precision: str) -> str:
    """``yolox_nano.onnx`` at fp16 -> ``yolox_nano.fp16.engine``."""
    return f"{Path(onnx_file).stem}.{precision}.engine"


def find_engines(onnx_file: str, models: Path) -> list[Path]:
    """Engines built from this ONNX in the models folder, preferred first (fp16, int8, fp32)."""
    return [p for p in (models / engine_file(onnx_file, q) for q in PRECISIONS) if p.is_file()]


def is_quantized(onnx: Path) -> bool:
    """Whether the ONNX carries explicit quantization (QuantizeLinear / DequantizeLinear nodes): their
    op names are stored as plain strings in the protobuf, so no onnx package is needed."""
    return b"QuantizeLinear" in onnx.read_bytes()


def _fixed(name: str, dims: Sequence[int], shape: Sequence[int] | None) -> tuple[int, ...]:
    """One concrete shape for an input with dynamic dimensions (-1): ``shape`` where given, else batch 1."""
    if shape is not None:
        if len(shape) != len(dims) or any(d >= 0 and d != s for d, s in zip(dims, shape)):
            raise EngineBuildError(
                f"--shape {'x'.join(map(str, shape))} does not fit input {name!r} of shape {tuple(dims)}"
            )
        return tuple(shape)
    if any(d < 0 for d in dims[1:]):
        raise EngineBuildError(f"input {name!r} has dynamic dimensions {tuple(dims)}: give --shape, e.g. 1x3x640x640")
    return (1, *dims[1:])


def _build_with_python(
    trt: Any, onnx: Path, tmp: Path, precision: str, workspace_mb: int, shape: Sequence[int] | None
) -> tuple[str, list[str]]:
    notes: list[str] = []
    logger = trt.Logger(trt.Logger.WARNING)
    builder = trt.Builder(logger)
    version = str(getattr(trt, "__version__", "?"))
    flags = 0
    if (
        version.split(".")[0].isdigit() and int(version.split(".")[0]) < 10
    ):  # TensorRT 8.x needs explicit batch asked for
        flags = 1 << int(trt.NetworkDefinitionCreationFlag.EXPLICIT_BATCH)
    network = builder.create_network(flags)
    parser = trt.OnnxParser(network, logger)
    if not parser.parse(onnx.read_bytes()):
        errors = "; ".join(str(parser.get_error(i)) for i in range(parser.num_errors)) or "no reason given"
        raise EngineBuildError(f"TensorRT {version} cannot parse {onnx.name}: {errors}")
    config = builder.create_builder_config()
    config.set_memory_pool_limit(trt.MemoryPoolType.WORKSPACE, workspace_mb << 20)
    if precision in ("fp16", "int8"):
        if getattr(builder, "platform_has_fast_fp16", True):  # deprecated in newer TensorRT, where FP16 is a given
            config.set_flag(trt.BuilderFlag.FP16)  # with int8: layers left unquantized run in fp16
        elif precision == "fp16":
            notes.append("this GPU has no fast FP16; the engine may run at FP32 speed")
    if precision == "int8":
        config.set_flag(trt.BuilderFlag.INT8)
    profile, dynamic = builder.create_optimization_profile(), False
    for i in range(network.num_inputs):
        tensor = network.get_input(i)
        dims = tuple(int(d) for d in tensor.shape)
        if any(d < 0 for d in dims):
            fixed = _fixed(tensor.name, dims, shape)
            profile.set_shape(tensor.name, fixed, fixed, fixed)
            notes.append(f"input {tensor.name} fixed at {'x'.join(map(str, fixed))}")
            dynamic = True
    if dynamic:
        config.add_optimization_profile(profile)
    serialized = builder.build_serialized_network(network, config)
    if serialized is None:
        raise EngineBuildError(
            f"TensorRT {version} could not build an engine from {onnx.name} (its log above says why)"
        )
    with open(tmp, "wb") as f:
        f.write(serialized)
    return f"tensorrt {version}", notes


def _onnx_inputs(onnx: Path) -> list[tuple[str, tuple[int, ...]]]:
    """Input names and shapes (-1 where dynamic), read with ONNX Runtime (trtexec needs the names)."""
    import onnxruntime as ort

    try:
        session = ort.InferenceSession(str(onnx), providers=["CPUExecutionProvider"])
    except Exception as exc:  # onnxruntime raises its own types for unreadable files
        raise EngineBuildError(f"cannot read {onnx.name}'s inputs with ONNX Runtime: {exc}") from exc
    return [(i.name, tuple(d if isinstance(d, int) else -1 for d in i.shape)) for i in session.get_inputs()]


def _build_with_trtexec(
    trtexec: str, onnx: Path, tmp: Path, precision: str, workspace_mb: int, shape: Sequence[int] | None
) -> tuple[str, list[str]]:
    command = [trtexec, f"--onnx={onnx}", f"--saveEngine={tmp}", f"--memPoolSize=workspace:{workspace_mb}M"]
    command += {"fp16": ["--fp16"], "int8": ["--int8", "--fp16"], "fp32": []}[precision]
    shapes = [
        f"{name}:{'x'.join(map(str, _fixed(name, dims, shape)))}"
        for name, dims in _onnx_inputs(onnx)
        if any(d < 0 for d in dims)
    ]
    if shapes:
        command += [f"--{kind}Shapes={','.join(shapes)}" for kind in ("min", "opt", "max")]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0 or not tmp.is_file():
        tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-15:])
        raise EngineBuildError(f"trtexec failed (exit {done.returncode}):\n{tail}")
    return trtexec, [f"ran: {' '.join(command)}"]


def _trtexec() -> str | None:
    found = shutil.which("trtexec")
    return found or (str(TRTEXEC_JETPACK) if TRTEXEC_JETPACK.is_file() else None)


def build_engine(
    onnx: Path, out: Path, *, precision: str = "fp16", workspace_mb: int = 1024, shape: Sequence[int] | None = None
) -> EngineResult:
    """Build ``out`` from ``onnx``. The engine is written to ``out.part`` and renamed when complete, so a
    failed build never leaves a half engine under the name the agent loads."""
    if precision not in PRECISIONS:
        raise EngineBuildError(f"precision must be one of {', '.join(PRECISIONS)}, got {precision!r}")
    if not onnx.is_file():
        raise EngineBuildError(f"ONNX model not found: {onnx}")
    if precision == "int8" and not is_quantized(onnx):
        raise EngineBuildError(
            f"{onnx.name} is not quantized (no Q/DQ nodes), and INT8 without calibration data would give "
            "wrong results. Build with --fp16, or quantize the ONNX first (ONNX Runtime's quantize_static in "
            "QDQ format, or NVIDIA's TensorRT Model Optimizer) and build that file with --int8"
        )
    try:
        import tensorrt as trt
    except ImportError:
        trt = None
    tmp = out.with_name(out.name + ".part")
    out.parent.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    try:
        if trt is not None:
            tool, notes = _build_with_python(trt, onnx, tmp, precision, workspace_mb, shape)
        elif (trtexec := _trtexec()) is not None:
            tool, notes = _build_with_trtexec(trtexec, onnx, tmp, precision, workspace_mb, shape)
        else:
            raise EngineBuildError(
                "building an engine needs TensorRT, and neither the tensorrt Python module nor trtexec is "
                "here. On a Jetson (JetPack 6): sudo apt install python3-libnvinfer (trtexec is in "
                f"{TRTEXEC_JETPACK.parent}); elsewhere: pip install tensorrt. Until then ONNX Runtime runs "
                'the ONNX file (providers = ["CUDAExecutionProvider", "CPUExecutionProvider"])'
            )
        tmp.replace(out)
    finally:
        tmp.unlink(missing_ok=True)
    return EngineResult(out, tool, precision, time.perf_counter() - started, notes)
