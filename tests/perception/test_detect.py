"""Detector backends: YOLOX on real video (../shared), the TensorRT backend with a fake runtime, the
OpenCV fallback, ground-truth replay with noise, and the Detections dataclass."""

from __future__ import annotations

import numpy as np
import pytest
from helpers.shared import data, model

from edge_agent.capture import MOTSequenceSource, VideoFileSource
from edge_agent.capture.frames import Frame
from edge_agent.demo import write_demo_scene
from edge_agent.perception.detect import (
    COCO_CLASSES,
    DetectionNoise,
    Detections,
    GroundTruthDetector,
    ModelError,
    OpenCVDetector,
    TensorRTYOLOXDetector,
    YOLOXDetector,
    kind_of,
    letterbox,
)


@pytest.mark.parametrize(
    ("category", "kind"),
    [("person", "person"), ("dog", "animal"), ("cat", "animal"), ("cup", "object"), ("tv", "object")],
)
def test_kinds(category, kind):
    assert kind_of(category) == kind


def test_detections_validate_and_clip():
    with pytest.raises(ValueError, match="detections need"):
        Detections(np.zeros((2, 4), np.float32), np.zeros(3, np.float32), np.zeros(2, np.int32), ("a",))
    d = Detections(
        np.array([[-5, -5, 20, 20], [95, 95, 120, 130], [10, 10, 11, 50]], np.float32),
        np.array([0.9, 0.8, 0.7], np.float32),
        np.zeros(3, np.int32),
        ("cup",),
    )
    clipped = d.clipped(100, 100)
    assert clipped.xyxy.tolist() == [[0, 0, 20, 20], [95, 95, 100, 100]]  # the 1-px-wide box is dropped


def test_letterbox_keeps_aspect_and_pads_114():
    blob, ratio = letterbox(np.zeros((100, 200, 3), np.uint8), (416, 416))
    assert blob.shape == (1, 3, 416, 416) and ratio == pytest.approx(2.08)
    assert blob[0, :, 300, 10].tolist() == [114, 114, 114] and blob[0, :, 10, 10].tolist() == [0, 0, 0]


@pytest.fixture(scope="module")
def yolox():
    return YOLOXDetector(model("yolox_nano.onnx"))


def test_yolox_finds_pedestrians_in_vtest(yolox):
    source = VideoFileSource(data("video/vtest.avi"), sample_fps=1.0, start=0.0)
    frame = next(source.frames())
    source.close()
    detections = yolox.detect(frame)
    people = [
        i for i in range(len(detections)) if detections.category(i) == "person" and detections.confidence[i] > 0.5
    ]
    assert len(people) >= 3
    assert np.all(detections.xyxy[:, 2] <= 768) and np.all(detections.xyxy[:, 3] <= 576)
    assert "CPUExecutionProvider" in yolox.providers_used and "yolox_nano.onnx" in yolox.name


def test_yolox_matches_mot_ground_truth(yolox):
    sequence = data("mot17-mini/MOT17-04-FRCNN")
    frame = next(MOTSequenceSource(sequence).frames())
    truth = GroundTruthDetector.from_mot(sequence).detect(frame)
    found = yolox.detect(frame)
    from edge_agent.native import iou_matrix

    person = found.class_id == 0
    best = iou_matrix(truth.xyxy, found.xyxy[person]).max(axis=1)
    assert np.mean(best >= 0.5) > 0.4  # crowded, small pedestrians: nano finds a good share


def test_a_model_of_the_wrong_shape_is_named():
    with pytest.raises(
        ModelError,
        match=r"osnet_x0_25_msmt17.onnx: expected output \(1, anchors, 85\) for 80 classes, got \['batch', 512\]",
    ):
        YOLOXDetector(model("osnet_x0_25_msmt17.onnx"))


def test_missing_or_corrupt_model(tmp_path):
    with pytest.raises(ModelError, match="detector model not found"):
        YOLOXDetector(tmp_path / "nope.onnx")
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"garbage")
    with pytest.raises(ModelError, match="cannot load .*bad.onnx with ONNX Runtime"):
        YOLOXDetector(bad)


class FakeRuntime:
    """Stands in for tensorrt + pycuda: returns a canned raw YOLOX output for a 64x64 input."""

    input_shape = (1, 3, 64, 64)

    def __init__(self):
        anchors = (8 * 8) + (4 * 4) + (2 * 2)
        raw = np.zeros((1, anchors, 85), np.float32)
        raw[0, :, 2:4] = np.log(2.0)  # 2 strides wide
        # Anchor 9 (stride 8, row 1, column 1), offset half a cell: a confident cup centred at
        # ((1 + 0.5) * 8, (1 + 0.5) * 8) = (12, 12), 16 px wide.
        raw[0, 9, 0:2] = 0.5
        raw[0, 9, 4] = 1.0
        raw[0, 9, 5 + COCO_CLASSES.index("cup")] = 0.9
        self.raw = raw
        self.calls = []

    def infer(self, blob):
        self.calls.append(blob.shape)
        return self.raw


def test_tensorrt_backend_with_a_fake_runtime(tmp_path):
    engine = tmp_path / "yolox.engine"
    engine.write_bytes(b"serialized")
    runtime = FakeRuntime()
    detector = TensorRTYOLOXDetector(engine, runtime=runtime)
    detections = detector.detect(Frame(0, 0.0, np.zeros((64, 64, 3), np.uint8)))
    assert runtime.calls == [(1, 3, 64, 64)]
    assert len(detections) == 1 and detections.category(0) == "cup"
    np.testing.assert_allclose(detections.xyxy[0], [4, 4, 20, 20], atol=1e-4)
    assert detections.confidence[0] == pytest.approx(0.9)


def test_tensorrt_backend_without_tensorrt_says_what_is_missing(tmp_path):
    engine = tmp_path / "yolox.engine"
    engine.write_bytes(b"serialized")
    try:
        import tensorrt  # noqa: F401
    except ImportError:
        with pytest.raises(ModelError, match="needs tensorrt and pycuda"):
            TensorRTYOLOXDetector(engine)
    else:
        pytest.skip("tensorrt is installed here")
    with pytest.raises(ModelError, match="TensorRT engine not found"):
        TensorRTYOLOXDetector(tmp_path / "missing.engine", runtime=FakeRuntime())


def test_opencv_fallback_finds_a_pedestrian():
    source = VideoFileSource(data("video/vtest.avi"), sample_fps=1.0, start=0.0)
    frames = [f for _, f in zip(range(3), source.frames())]
    source.close()
    detector = OpenCVDetector()
    assert "hog-people" in detector.name
    found = [detector.detect(f) for f in frames]
    assert any(len(d) and d.category(0) == "person" for d in found)
    assert all(np.all((d.confidence > 0) & (d.confidence < 1)) for d in found)


def test_opencv_fallback_needs_no_model_and_reports_missing_cascades():
    detections = OpenCVDetector().detect(Frame(0, 0.0, np.zeros((120, 160, 3), np.uint8)))
    assert len(detections) == 0
    with pytest.raises(ModelError, match="Haar cascade nothing.xml not found"):
        OpenCVDetector(cascades={"nothing.xml": "cat"})


@pytest.mark.parametrize("shape", [(48, 64, 3), (64, 64, 3), (40, 200, 3), (127, 63, 3)])
def test_opencv_fallback_on_an_image_smaller_than_its_people_window(shape):
    """OpenCV's HOG crashed the process on an image less than its window (64 x 128) high: a folder of thumbnails."""
    assert len(OpenCVDetector().detect(Frame(0, 0.0, np.full(shape, 90, np.uint8)))) == 0


def test_ground_truth_replay_with_named_classes_and_noise(tmp_path):
    day1, _ = write_demo_scene(tmp_path, seconds=2, fps=4)
    frame = next(MOTSequenceSource(day1).frames())
    clean = GroundTruthDetector.from_mot(day1).detect(frame)
    assert sorted(clean.category(i) for i in range(len(clean))) == ["cup", "cup", "person"]
    noisy = GroundTruthDetector.from_mot(day1, noise=DetectionNoise(miss_rate=0.5, jitter_px=2, seed=3))
    counts = [len(noisy.detect(f)) for f in MOTSequenceSource(day1, sample_fps=4).frames()]
    assert min(counts) < 3  # some boxes were missed
    with pytest.raises(ModelError, match="no ground truth"):
        GroundTruthDetector.from_mot(tmp_path)
