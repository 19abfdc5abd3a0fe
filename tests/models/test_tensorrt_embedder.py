"""The TensorRT re-id embedder with a fake runtime: OSNet preprocessing (1x3x256x128, RGB, ImageNet
mean/std), normalised output, fixed-batch chunking, the embedding space, and its configuration."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest
from helpers.shared import SHARED, need

from edge_agent.config import ConfigError, load_config
from edge_agent.perception.backends import build_backends
from edge_agent.perception.detect import ModelError
from edge_agent.perception.embed import TensorRTEmbedder


class FakeRuntime:
    def __init__(self, batch: int = 1, dims: int = 512) -> None:
        self.input_shape = (batch, 3, 256, 128)
        self.output_shape = (batch, dims)
        self.blobs: list[np.ndarray] = []

    def infer(self, blob: np.ndarray) -> np.ndarray:
        self.blobs.append(blob.copy())
        out = np.zeros(self.output_shape, np.float32)
        out[:, 0], out[:, 1] = 3.0, 4.0
        return out


@pytest.fixture
def engine(tmp_path):
    path = tmp_path / "osnet_x0_25_msmt17.fp16.engine"
    path.write_bytes(b"serialized")
    return path


def test_crops_are_preprocessed_like_osnet_and_vectors_normalised(engine):
    runtime = FakeRuntime()
    embedder = TensorRTEmbedder(engine, runtime=runtime)
    crop = np.zeros((60, 30, 3), np.uint8)
    crop[..., 0], crop[..., 1], crop[..., 2] = 0, 128, 255  # BGR: pure blue 0, green 128, red 255
    vectors = embedder.embed([crop, crop])
    assert vectors.shape == (2, 512) and vectors.dtype == np.float32
    np.testing.assert_allclose(vectors[:, :2], [[0.6, 0.8]] * 2, atol=1e-6)
    assert [b.shape for b in runtime.blobs] == [(1, 3, 256, 128)] * 2  # batch-1 engine: one call per crop
    expected = [(1.0 - 0.485) / 0.229, (128 / 255 - 0.456) / 0.224, (0.0 - 0.406) / 0.225]  # R, G, B planes
    np.testing.assert_allclose(runtime.blobs[0][0, :, 100, 60], expected, atol=1e-5)
    assert embedder.space == "reid:osnet_x0_25_msmt17" and embedder.dims == 512
    assert embedder.embed([]).shape == (0, 512)


def test_a_fixed_batch_engine_runs_in_padded_chunks(engine):
    runtime = FakeRuntime(batch=4, dims=8)
    embedder = TensorRTEmbedder(engine, runtime=runtime, space="reid:engine-only")
    vectors = embedder.embed([np.full((40, 20, 3), i * 40, np.uint8) for i in range(5)])
    assert vectors.shape == (5, 8) and [b.shape[0] for b in runtime.blobs] == [4, 4]
    assert not runtime.blobs[1][1:].any()  # the last chunk is padded with zeros
    assert embedder.space == "reid:engine-only"


def test_engine_shapes_are_checked(engine, tmp_path):
    bad = FakeRuntime()
    bad.input_shape = (1, 256, 128, 3)
    with pytest.raises(ModelError, match=r"expected an engine input of shape \(B, 3, H, W\)"):
        TensorRTEmbedder(engine, runtime=bad)
    bad = FakeRuntime()
    bad.output_shape = (1, 16, 8)
    with pytest.raises(ModelError, match="expected an engine output"):
        TensorRTEmbedder(engine, runtime=bad)
    with pytest.raises(ModelError, match="TensorRT engine not found"):
        TensorRTEmbedder(tmp_path / "missing.engine", runtime=FakeRuntime())


def test_the_configuration_selects_it(engine, tmp_path):
    config = tmp_path / "c.toml"
    config.write_text(f'[detector]\ntype = "opencv"\n[embedders.person]\ntype = "tensorrt"\nengine = "{engine.name}"\n')
    loaded = load_config(config)
    assert loaded.embedders.person.type == "tensorrt" and loaded.embedders.person.engine == engine.name
    with pytest.raises(ConfigError, match="embedders.person.tensorrt.engine"):
        load_config(None, embedders={"person": {"type": "tensorrt"}})
    if importlib.util.find_spec("tensorrt") is not None and importlib.util.find_spec("pycuda") is not None:
        pytest.skip("tensorrt is installed here: loading a fake engine would fail differently")
    with pytest.raises(ModelError, match="needs tensorrt and pycuda"):
        build_backends(loaded, engine.parent)


@pytest.mark.shared
def test_onnx_embedders_accept_providers():
    """Providers ONNX Runtime lacks here (CUDA) are skipped; the OSNet file from ../shared still loads."""
    osnet = need(SHARED / "models" / "osnet_x0_25_msmt17.onnx")
    config = load_config(
        None,
        detector={"type": "opencv"},
        embedders={"person": {"type": "osnet", "providers": ["CUDAExecutionProvider", "CPUExecutionProvider"]}},
    )
    assert config.embedders.person.providers == ["CUDAExecutionProvider", "CPUExecutionProvider"]
    embedder = build_backends(config, osnet.parent).embedders["person"]
    assert embedder.space == "reid:osnet_x0_25_msmt17" and embedder.embed([np.zeros((80, 40, 3), np.uint8)]).shape == (
        1,
        512,
    )
