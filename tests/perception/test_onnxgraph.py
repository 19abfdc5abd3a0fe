"""The ONNX graph writer: what it writes is what the ``onnx`` package reads, and ONNX Runtime runs it."""

from __future__ import annotations

import importlib.util
import math

import numpy as np
import pytest

from edge_agent.perception.onnxgraph import Graph, _varint


def _small() -> tuple[Graph, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    weight, bias = rng.normal(size=(3, 4)).astype(np.float32), rng.normal(size=4).astype(np.float32)
    g = Graph("small")
    x = g.input("x", np.float32, ["n", 3])
    y = g.op("Add", g.op("MatMul", x, g.weight("w", weight)), g.weight("b", bias))
    y = g.op("Softmax", g.op("Mul", y, g.constant(0.5)), axis=-1)
    y = g.op("ReduceMean", g.op("Reshape", y, g.constant([-1, 2, 2])), axes=[2], keepdims=0)
    g.rename(y, "out")
    g.output("out", np.float32, ["n", 2])
    return g, weight, bias


def test_a_graph_runs_in_onnx_runtime_with_its_weights_where_they_lie():
    g, weight, bias = _small()
    x = np.arange(6, dtype=np.float32).reshape(2, 3) / 6
    out = g.session(threads=1).run({"x": x})[0]
    logits = (x @ weight + bias) * 0.5
    soft = np.exp(logits - logits.max(axis=1, keepdims=True))
    soft /= soft.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(out, soft.reshape(2, 2, 2).mean(axis=2), rtol=1e-6)


@pytest.mark.skipif(importlib.util.find_spec("onnx") is None, reason="the onnx package is not installed")
def test_what_is_written_is_what_the_onnx_package_reads():
    import onnx
    from onnx import numpy_helper

    g, weight, _ = _small()
    model = onnx.load_from_string(g.model())
    assert model.ir_version == 8 and [(o.domain, o.version) for o in model.opset_import] == [("", 17)]
    graph = model.graph
    assert graph.name == "small" and [n.op_type for n in graph.node] == [
        "MatMul", "Add", "Mul", "Softmax", "Reshape", "ReduceMean", "Identity"
    ]  # fmt: skip
    softmax, reduce = graph.node[3], graph.node[5]
    assert [(a.name, a.type, a.i) for a in softmax.attribute] == [("axis", onnx.AttributeProto.INT, -1)]
    assert [(a.name, list(a.ints)) for a in reduce.attribute] == [("axes", [2]), ("keepdims", [])]
    assert reduce.attribute[1].i == 0
    tensors = {t.name: t for t in graph.initializer}
    w = tensors["w"]
    assert list(w.dims) == [3, 4] and w.data_location == onnx.TensorProto.EXTERNAL and not w.raw_data
    assert {e.key: e.value for e in w.external_data}["length"] == str(weight.nbytes)
    scale, shape = (tensors[n] for n in graph.node[2].input[1:2] + graph.node[4].input[1:2])
    assert numpy_helper.to_array(scale) == np.float32(0.5) and scale.data_type == onnx.TensorProto.FLOAT
    np.testing.assert_array_equal(numpy_helper.to_array(shape), [-1, 2, 2])
    (x,), (out,) = graph.input, graph.output
    assert x.name == "x" and x.type.tensor_type.elem_type == onnx.TensorProto.FLOAT
    assert [d.dim_param or d.dim_value for d in x.type.tensor_type.shape.dim] == ["n", 3]
    assert out.name == "out" and graph.node[-1].output == ["out"]
    float_attribute = Graph("f")
    float_attribute.op("LayerNormalization", "x", "s", "b", epsilon=1e-12)
    (attribute,) = onnx.load_from_string(float_attribute.model()).graph.node[0].attribute
    assert attribute.type == onnx.AttributeProto.FLOAT and math.isclose(attribute.f, 1e-12, rel_tol=1e-6)


def test_varints_as_protobuf_writes_them():
    assert _varint(0) == b"\x00" and _varint(1) == b"\x01" and _varint(300) == b"\xac\x02"
    assert _varint(-1) == b"\xff" * 9 + b"\x01"  # an int64 of -1: ten bytes, two's complement
