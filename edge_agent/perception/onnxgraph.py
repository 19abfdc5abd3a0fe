"""A small ONNX graph written in its protobuf wire format, for ONNX Runtime to run.

The ``onnx`` package builds the same bytes, but importing it costs a process about 1 s here (its protobuf messages
and ``ml_dtypes``), more than the text model's whole start. A graph needs few messages (model, graph, node,
attribute, tensor, value info), each a handful of fields; they are written here by field number from ``onnx.proto``
(proto2: repeated numbers unpacked). The tests parse what is written with the ``onnx`` package and check it.

Weights stay outside the bytes: a large tensor is declared external and handed to the session as it lies in memory
(:meth:`Graph.session`), so nothing is copied into the model."""

from __future__ import annotations

import struct
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["Graph", "Session"]

_FLOAT, _INT64 = 1, 7  #: TensorProto.DataType
_TYPES = {np.dtype(np.float32): _FLOAT, np.dtype(np.int64): _INT64}
_ATTR_FLOAT, _ATTR_INT, _ATTR_INTS = 1, 2, 7  #: AttributeProto.AttributeType
_EXTERNAL = 1  #: TensorProto.DataLocation
IR_VERSION = 8
OPSET = 17


def _varint(value: int) -> bytes:
    value &= (1 << 64) - 1  # a negative int64 as its two's complement, ten bytes
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _int(field: int, value: int) -> bytes:
    return _varint(field << 3) + _varint(value)


def _bytes(field: int, value: bytes | str) -> bytes:
    data = value.encode() if isinstance(value, str) else value
    return _varint(field << 3 | 2) + _varint(len(data)) + data


def _float(field: int, value: float) -> bytes:
    return _varint(field << 3 | 5) + struct.pack("<f", value)


def _attribute(name: str, value: float | int | Sequence[int]) -> bytes:
    if isinstance(value, float):
        body = _float(2, value) + _int(20, _ATTR_FLOAT)
    elif isinstance(value, int):
        body = _int(3, value) + _int(20, _ATTR_INT)
    else:
        body = b"".join(_int(8, v) for v in value) + _int(20, _ATTR_INTS)
    return _bytes(1, name) + body


def _value_info(name: str, elem_type: int, dims: Sequence[int | str]) -> bytes:
    shape = b"".join(_bytes(1, _int(1, d) if isinstance(d, int) else _bytes(2, d)) for d in dims)
    tensor_type = _int(1, elem_type) + _bytes(2, shape)
    return _bytes(1, name) + _bytes(2, _bytes(1, tensor_type))


class Graph:
    """An ONNX graph built node by node: :meth:`weight` and :meth:`constant` name tensors, :meth:`op` adds a node and
    names its output, :meth:`session` writes the model and opens it in ONNX Runtime."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._nodes: list[bytes] = []
        self._initializers: list[bytes] = []
        self._inputs: list[bytes] = []
        self._outputs: list[bytes] = []
        self._external: dict[str, np.ndarray] = {}
        self._count = 0

    def input(self, name: str, dtype: type, dims: Sequence[int | str]) -> str:
        self._inputs.append(_value_info(name, _TYPES[np.dtype(dtype)], dims))
        return name

    def output(self, name: str, dtype: type, dims: Sequence[int | str]) -> None:
        self._outputs.append(_value_info(name, _TYPES[np.dtype(dtype)], dims))

    def weight(self, name: str, array: np.ndarray) -> str:
        """A float32 tensor kept outside the model: the session reads it where it lies."""
        array = np.ascontiguousarray(array, np.float32)
        self._external[name] = array
        location = b"".join(
            _bytes(13, _bytes(1, key) + _bytes(2, value))
            for key, value in (("location", "weights"), ("offset", "0"), ("length", str(array.nbytes)))
        )
        dims = b"".join(_int(1, d) for d in array.shape)
        self._initializers.append(dims + _int(2, _FLOAT) + _bytes(8, name) + location + _int(14, _EXTERNAL))
        return name

    def constant(self, value: float | Sequence[int]) -> str:
        """A small tensor written into the model: a float as a float32 scalar, a list of ints as int64."""
        array = np.asarray(value, np.float32 if isinstance(value, float) else np.int64)
        name = self._name()
        dims = b"".join(_int(1, d) for d in array.shape)
        raw = array.astype(array.dtype.newbyteorder("<")).tobytes()
        self._initializers.append(dims + _int(2, _TYPES[array.dtype]) + _bytes(8, name) + _bytes(9, raw))
        return name

    def op(self, op_type: str, *inputs: str, **attributes: float | int | Sequence[int]) -> str:
        """A node of the default domain; returns the name of its one output."""
        output = self._name()
        body = b"".join(_bytes(1, i) for i in inputs) + _bytes(2, output) + _bytes(3, output) + _bytes(4, op_type)
        body += b"".join(_bytes(5, _attribute(k, v)) for k, v in attributes.items())
        self._nodes.append(body)
        return output

    def rename(self, produced: str, name: str) -> str:
        """The graph's output ``name``: an Identity of what ``produced`` names."""
        body = _bytes(1, produced) + _bytes(2, name) + _bytes(3, name) + _bytes(4, "Identity")
        self._nodes.append(body)
        return name

    def model(self) -> bytes:
        """The ModelProto's bytes (the external weights named, not in them)."""
        graph = b"".join(_bytes(1, n) for n in self._nodes) + _bytes(2, self.name)
        graph += b"".join(_bytes(5, t) for t in self._initializers)
        graph += b"".join(_bytes(11, i) for i in self._inputs) + b"".join(_bytes(12, o) for o in self._outputs)
        opset = _bytes(1, "") + _int(2, OPSET)
        return _int(1, IR_VERSION) + _bytes(2, "edge-agent") + _bytes(7, graph) + _bytes(8, opset)

    def session(self, threads: int = 0) -> Session:
        """The graph opened in ONNX Runtime on the CPU, its external weights given as they lie in memory
        (``threads``: its intra-op threads, 0 for ONNX Runtime's choice)."""
        import onnxruntime as ort

        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        # its threads wait without spinning: dev-forms took 17.5 s of CPU instead of 20.4 (wall 13.4 s against 12.1 on
        # two idle cores); a spinning pool starves whatever shares the cores (a hub's other cameras, a busy machine)
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        options.log_severity_level = 3  # its notes on the shapes of the graph it optimised are not the user's
        # Constant folding (the weights' transposes) and the plain fusions; the extended fusions made the text encoder's
        # session take 0.19 s to open instead of 0.10, and ran it no faster (a question 4.1 ms against 3.4).
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
        values = [ort.OrtValue.ortvalue_from_numpy(a) for a in self._external.values()]
        options.add_external_initializers(list(self._external), values)
        session = ort.InferenceSession(self.model(), sess_options=options, providers=["CPUExecutionProvider"])
        return Session(session, (list(self._external.values()), values))

    def _name(self) -> str:
        self._count += 1
        return f"t{self._count}"


@dataclass(frozen=True)
class Session:
    """An ONNX Runtime session and the weights it reads where they lie (kept alive as long as it is)."""

    session: Any
    weights: tuple[object, ...]

    def run(self, feeds: dict[str, np.ndarray]) -> list[np.ndarray]:
        out: list[np.ndarray] = self.session.run(None, feeds)
        return out
