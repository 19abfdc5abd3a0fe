"""The open-vocabulary detector on stand-in ONNX graphs of both export signatures (built here with ``onnx``; no
real weights here): a bright square's cell is boxed and scored for the word its colour stands for, the
vocabulary's order (configured classes, enrolled things, configured words), its wiring through the configuration,
the backends and the ingest pipeline, and the errors that name what is wrong."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx  # the [test] extra's: builds the stand-in graphs
import pytest
from onnx import TensorProto, helper

from edge_agent.capture.frames import Frame
from edge_agent.config import ConfigError, load_config
from edge_agent.ingest import Pipeline
from edge_agent.memory import Store
from edge_agent.memory.things import enroll
from edge_agent.perception.backends import build_backends
from edge_agent.perception.detect import ModelError, kind_of
from edge_agent.perception.detectors.openvocab import OpenVocabDetector, merge_words
from edge_agent.perception.imagetext import CLIP_MEAN, CLIP_STD

SIZE = 64  # the stand-ins' input side
CELL = 16  # one anchor per 16x16 cell: 16 anchors


def _cells() -> np.ndarray:
    """(16, 4) xyxy of the 4x4 cells, row by row (the order AveragePool's output flattens in)."""
    ys, xs = np.meshgrid(np.arange(0, SIZE, CELL), np.arange(0, SIZE, CELL), indexing="ij")
    x0, y0 = xs.ravel().astype(np.float32), ys.ravel().astype(np.float32)
    return np.stack([x0, y0, x0 + CELL, y0 + CELL], axis=1)


def _const(name: str, value: np.ndarray) -> onnx.NodeProto:
    return helper.make_node(
        "Constant", [], [name], value=helper.make_tensor(name, TensorProto.FLOAT, value.shape, value.ravel())
    )


def _cell_means(image: str) -> list[onnx.NodeProto]:
    """Nodes giving ``features`` (1, 16, 3): each cell's mean per channel."""
    return [
        helper.make_node("AveragePool", [image], ["pooled"], kernel_shape=[CELL, CELL], strides=[CELL, CELL]),
        helper.make_node("Constant", [], ["shape"], value=helper.make_tensor("s", TensorProto.INT64, [3], [1, 3, -1])),
        helper.make_node("Reshape", ["pooled", "shape"], ["flat"]),
        helper.make_node("Transpose", ["flat"], ["features"], perm=[0, 2, 1]),
    ]


def _save(path: Path, nodes, inputs, outputs) -> Path:
    graph = helper.make_graph(nodes, "stand-in", inputs, outputs)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, str(path))
    return path


def yolo_world(path: Path, *, layout: str = "pair", box_dims: int = 4) -> Path:
    """YOLO-World's signature with 3 classes: a cell's score for class k is its mean of RGB channel k (0-1). Each
    cell has a second anchor 2 pixels larger all round scoring 0.9 of it, for NMS to suppress (IoU 0.64)."""
    image = helper.make_tensor_value_info("images", TensorProto.FLOAT, [1, 3, SIZE, SIZE])
    cells = _cells()
    anchors = np.vstack([cells, cells + np.array([-2, -2, 2, 2], np.float32)])
    nodes = [
        *_cell_means("images"),
        _const("ninety", np.array(0.9, np.float32)),
        helper.make_node("Mul", ["features", "ninety"], ["echo"]),
        helper.make_node("Concat", ["features", "echo"], ["all_scores"], axis=1),
    ]
    if layout == "pair":
        boxes = anchors if box_dims == 4 else np.concatenate([anchors, np.zeros((32, 1), np.float32)], axis=1)
        nodes += [_const("boxes", boxes[None]), helper.make_node("Identity", ["all_scores"], ["scores"])]
        outputs = [
            helper.make_tensor_value_info("boxes", TensorProto.FLOAT, [1, 32, box_dims]),
            helper.make_tensor_value_info("scores", TensorProto.FLOAT, [1, 32, 3]),
        ]
    else:  # Ultralytics: one (1, 4 + C, N) output of cx, cy, w, h and the class scores
        cxcywh = np.concatenate([(anchors[:, :2] + anchors[:, 2:]) / 2, anchors[:, 2:] - anchors[:, :2]], axis=1)
        nodes += [
            _const("anchors", cxcywh.T[None].copy()),
            helper.make_node("Transpose", ["all_scores"], ["per_class"], perm=[0, 2, 1]),
            helper.make_node("Concat", ["anchors", "per_class"], ["output0"], axis=1),
        ]
        outputs = [helper.make_tensor_value_info("output0", TensorProto.FLOAT, [1, 7, 32])]
    return _save(path, nodes, [image], outputs)


def owl(path: Path, *, queries: int | str = "Q") -> Path:
    """OWL's signature: logits = 10 * (a cell's positive normalised channel means . text_embeds) - 5, so the word
    whose embedding points at the cell's colour wins; pred_boxes are the cells, normalised cx, cy, w, h."""
    cells = _cells()
    normalised = np.concatenate([(cells[:, :2] + cells[:, 2:]) / 2, cells[:, 2:] - cells[:, :2]], axis=1) / SIZE
    nodes = [
        helper.make_node("Relu", ["pixel_values"], ["bright"]),
        *_cell_means("bright"),
        helper.make_node("Transpose", ["text_embeds"], ["words"], perm=[1, 0]),
        helper.make_node("MatMul", ["features", "words"], ["similarity"]),
        _const("scale", np.array(10.0, np.float32)),
        _const("bias", np.array(5.0, np.float32)),
        helper.make_node("Mul", ["similarity", "scale"], ["scaled"]),
        helper.make_node("Sub", ["scaled", "bias"], ["logits"]),
        _const("pred_boxes", normalised[None].astype(np.float32)),
    ]
    inputs = [
        helper.make_tensor_value_info("pixel_values", TensorProto.FLOAT, [1, 3, SIZE, SIZE]),
        helper.make_tensor_value_info("text_embeds", TensorProto.FLOAT, [queries, 3]),
    ]
    outputs = [
        helper.make_tensor_value_info("logits", TensorProto.FLOAT, [1, 16, queries]),
        helper.make_tensor_value_info("pred_boxes", TensorProto.FLOAT, [1, 16, 4]),
    ]
    return _save(path, nodes, inputs, outputs)


class ColourWords:
    """Stands in for an ImageTextEmbedder: a word's embedding is the RGB colour it names in the tests."""

    space = "stand-in"
    COLOURS = {"keys": (1, 0, 0), "cup": (0, 1, 0), "person": (0, 0, 1)}

    def __init__(self, dims: int = 3) -> None:
        self.dims = dims
        self.calls: list[list[str]] = []

    def embed_images(self, images):  # pragma: no cover - the detector embeds words only
        raise AssertionError("not used")

    def embed_texts(self, texts):
        self.calls.append(list(texts))
        colours = np.array([self.COLOURS.get(t.lower(), (0, 0, 0)) for t in texts], np.float32).reshape(-1, 3)
        return np.pad(colours, ((0, 0), (0, self.dims - 3)))


def frame(width: int, height: int, square: tuple[int, int, int], bgr: tuple[int, int, int]) -> Frame:
    """A black frame with one ``square`` (x, y, side) of colour ``bgr``."""
    image = np.zeros((height, width, 3), np.uint8)
    x, y, side = square
    image[y : y + side, x : x + side] = bgr
    return Frame(0, 0.0, image)


RED, GREEN, BLUE = (0, 0, 255), (0, 255, 0), (255, 0, 0)  # BGR


@pytest.mark.parametrize("layout", ["pair", "ultralytics"])
def test_yolo_world_boxes_the_square_with_its_class_in_frame_pixels(tmp_path, layout):
    model = yolo_world(tmp_path / "world.onnx", layout=layout)
    detector = OpenVocabDetector(model, style="yolo-world", classes=["keys", "cup", "person"], score_threshold=0.5)
    # 128x64: letterboxed at half size, padded below; the red square fills the input's cell (row 0, column 2)
    found = detector.detect(frame(128, 64, (64, 0, 32), RED))
    assert len(found) == 1 and found.class_names == ("keys", "cup", "person")
    assert found.category(0) == "keys" and kind_of(found.category(0)) == "object"
    np.testing.assert_allclose(found.xyxy[0], [64, 0, 96, 32], atol=1e-3)
    assert found.confidence[0] == pytest.approx(1.0, abs=1e-3)
    blue = detector.detect(frame(128, 64, (0, 32, 32), BLUE))  # RGB order: blue is the third class
    assert [blue.category(i) for i in range(len(blue))] == ["person"]
    np.testing.assert_allclose(blue.xyxy[0], [0, 32, 32, 64], atol=1e-3)


def test_yolo_world_threshold_nms_and_clipping(tmp_path):
    detector = OpenVocabDetector(
        yolo_world(tmp_path / "world.onnx"), style="yolo-world", classes=["keys", "cup", "person"], score_threshold=0.3
    )
    assert len(detector.detect(frame(64, 64, (0, 0, 16), (0, 0, 60)))) == 0  # 60/255 is under the threshold
    # red over a cell, a cell and a half: 1.0, 1.0 and 0.5; their larger anchors (0.9, 0.9, 0.45) suppressed by NMS
    wide = Frame(0, 0.0, np.zeros((64, 64, 3), np.uint8))
    wide.image[0:16, 0:40] = RED
    got = detector.detect(wide)
    assert sorted(np.round(got.confidence, 3).tolist()) == [0.5, 1.0, 1.0]
    np.testing.assert_allclose(got.xyxy[np.argsort(got.xyxy[:, 0])], [[0, 0, 16, 16], [16, 0, 32, 16], [32, 0, 48, 16]])
    # a 64x60 frame is padded 4 rows below: a box over the padding is clipped to the frame
    low = frame(64, 60, (48, 48, 16), RED)
    clipped = detector.detect(low)
    assert len(clipped) == 1
    np.testing.assert_allclose(clipped.xyxy[0], [48, 48, 64, 60], atol=1e-3)
    assert clipped.confidence[0] == pytest.approx((12 + 4 * 114 / 255) / 16, abs=1e-3)  # the padding is grey 114


def test_owl_scores_the_word_whose_embedding_matches_in_vocabulary_order(tmp_path):
    words = ColourWords()
    detector = OpenVocabDetector(
        owl(tmp_path / "owl.onnx"),
        style="owl",
        classes=["person"],
        vocabulary=["cup", "Keys", "cup "],
        text_embedder=words,
        score_threshold=0.5,
    )
    assert detector.class_names == ("person", "cup", "Keys")
    detector.set_enrolled(["keys", "wallet"])  # enrolled names come before the configured vocabulary
    assert detector.class_names == ("person", "keys", "wallet", "cup")
    found = detector.detect(frame(128, 128, (64, 32, 32), RED))
    assert len(found) == 1 and found.category(0) == "keys" and found.class_id[0] == 1
    np.testing.assert_allclose(found.xyxy[0], [64, 32, 96, 64], atol=1e-3)
    assert found.confidence[0] > 0.99
    # the score is the sigmoid of the logit, of pixels normalised with CLIP's mean and std: a dim red's is mid-way
    dim = detector.detect(frame(128, 128, (64, 32, 32), (0, 0, 170)))
    logit = 10 * (170 / 255 - CLIP_MEAN[0]) / CLIP_STD[0] - 5
    assert dim.confidence[0] == pytest.approx(1 / (1 + np.exp(-logit)), abs=1e-3) and 0.8 < dim.confidence[0] < 0.9
    green = detector.detect(frame(128, 128, (0, 96, 32), GREEN))
    assert [green.category(i) for i in range(len(green))] == ["cup"]
    # embedded once per vocabulary: not again for the same words, nor per frame
    detector.set_enrolled(["keys", "wallet"])
    detector.detect(frame(128, 128, (0, 0, 32), BLUE))
    assert words.calls == [["person", "cup", "Keys"], ["person", "keys", "wallet", "cup"]]


def test_owl_with_a_fixed_number_of_queries_pads_the_words(tmp_path):
    detector = OpenVocabDetector(
        owl(tmp_path / "owl.onnx", queries=4), style="owl", classes=["keys"], text_embedder=ColourWords()
    )
    found = detector.detect(frame(64, 64, (16, 16, 16), RED))
    assert [found.category(i) for i in range(len(found))] == ["keys"]
    with pytest.raises(ModelError, match="takes 4 words at most; the vocabulary has 5"):
        detector.set_enrolled(["a", "b", "c", "d"])


def test_words_merge_in_order_once_each():
    assert merge_words(["person", "cat"], ["keys", "Cat"], [" my  keys ", "KEYS", ""]) == (
        "person",
        "cat",
        "keys",
        "my keys",
    )


def test_clear_errors(tmp_path):
    with pytest.raises(ModelError, match="open-vocabulary detector model not found: .*absent.onnx"):
        OpenVocabDetector(tmp_path / "absent.onnx", style="yolo-world", classes=["a"])
    world = yolo_world(tmp_path / "world.onnx")
    with pytest.raises(
        ModelError, match=r"world.onnx scores 3 classes \(outputs .*\) but \[detector\] classes names 2"
    ):
        OpenVocabDetector(world, style="yolo-world", classes=["keys", "cup"])
    with pytest.raises(
        ModelError, match=r"expects outputs boxes \(1, N, 4\) and scores \(1, N, C\); got boxes \[1, 32, 5\]"
    ):
        OpenVocabDetector(yolo_world(tmp_path / "five.onnx", box_dims=5), style="yolo-world", classes=["a", "b", "c"])
    with pytest.raises(ModelError, match="style 'owl' takes pixel_values and text_embeds"):
        OpenVocabDetector(world, style="owl", classes=["a"], text_embedder=ColourWords())
    with pytest.raises(ModelError, match="style 'yolo-world' takes one image input"):
        OpenVocabDetector(owl(tmp_path / "owl.onnx"), style="yolo-world", classes=["a"])
    with pytest.raises(ModelError, match=r"embeds 1 words as \(1, 4\); the owl model takes text_embeds \(Q, 3\)"):
        OpenVocabDetector(tmp_path / "owl.onnx", style="owl", classes=["a"], text_embedder=ColourWords(dims=4))
    with pytest.raises(ModelError, match="needs an image-text model to embed its words"):
        OpenVocabDetector(tmp_path / "owl.onnx", style="owl", classes=["a"])


def _config(tmp_path: Path, detector: str, extra: str = ""):
    path = tmp_path / "edge-agent.toml"
    path.write_text(f'[detector]\ntype = "open-vocab"\n{detector}\n{extra}')
    return load_config(path)


def test_the_configuration_validates_from_toml_and_builds_the_backend(tmp_path):
    model = yolo_world(tmp_path / "world.onnx")
    config = _config(
        tmp_path,
        'style = "yolo-world"\nmodel = "world.onnx"\nclasses = ["keys", "cup", "person"]\nscore_threshold = 0.5',
    )
    assert config.detector.type == "open-vocab" and config.detector.classes == ["keys", "cup", "person"]
    backends = build_backends(config, model.parent)
    assert isinstance(backends.detector, OpenVocabDetector)
    assert backends.summary()["detector"] == "open-vocab yolo-world (world.onnx, 3 words)"
    assert backends.detector.detect(frame(64, 64, (0, 0, 16), GREEN)).category(0) == "cup"


@pytest.mark.parametrize(
    ("detector", "message"),
    [
        ('style = "yolo-world"\nmodel = "w.onnx"', "style 'yolo-world' needs `classes`"),
        ('style = "yolo-world"\nmodel = "w.onnx"\nclasses = ["a"]\nvocabulary = ["b"]', "fixes its words at export"),
        ('style = "clip"\nmodel = "w.onnx"', "detector.open-vocab.style"),
        ('style = "owl"', "detector.open-vocab.model"),
        ('style = "owl"\nmodel = "o.onnx"\nwords = ["a"]', "detector.open-vocab.words"),
    ],
)
def test_configuration_errors_name_the_key(tmp_path, detector, message):
    with pytest.raises(ConfigError, match=message):
        _config(tmp_path, detector)


def test_owl_without_an_image_text_model_says_what_is_missing(tmp_path):
    owl(tmp_path / "owl.onnx")
    config = _config(tmp_path, 'style = "owl"\nmodel = "owl.onnx"\nclasses = ["keys"]')
    with pytest.raises(
        ModelError, match=r"needs an image-text model .*\[detector\] image_text or \[places\] image_text"
    ):
        build_backends(config, tmp_path)
    config = _config(tmp_path, 'style = "owl"\nmodel = "owl.onnx"\nimage_text = "clip-folder"')
    with pytest.raises(ModelError, match=r"^\[detector\] image_text: image-text model file not found: .*clip-folder"):
        build_backends(config, tmp_path)
    config = _config(tmp_path, 'style = "owl"\nmodel = "owl.onnx"', '[places]\nimage_text = "places-clip"')
    with pytest.raises(ModelError, match=r"^\[places\] image_text: image-text model file not found: .*places-clip"):
        build_backends(config, tmp_path)


def test_the_pipeline_adds_the_names_of_enrolled_things(tmp_path, monkeypatch):
    owl(tmp_path / "owl.onnx")
    config = _config(tmp_path, 'style = "owl"\nmodel = "owl.onnx"\nclasses = ["person"]\nvocabulary = ["cup"]')
    words = ColourWords()
    monkeypatch.setattr("edge_agent.perception.registry.image_text", lambda folder, key="": words)
    config = config.model_copy(update={"places": config.places.model_copy(update={"image_text": "stand-in"})})
    backends = build_backends(config, tmp_path)
    with Store(tmp_path / "home") as store:
        enroll(store, "Keys", "appearance:test", np.eye(1, 8, dtype=np.float32))
        Pipeline(store, backends, config)
    assert backends.detector.class_names == ("person", "Keys", "cup")
    found = backends.detector.detect(frame(64, 64, (32, 32, 16), RED))
    assert found.category(0) == "Keys" and kind_of(found.category(0)) == "object"
