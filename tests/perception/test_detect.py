"""Detector backends: YOLOX on real video (../shared), the TensorRT backend with a fake runtime, the
OpenCV fallback, ground-truth replay with noise, and the Detections dataclass."""

from __future__ import annotations

import numpy as np
import pytest
from helpers.shared import data, model

from edge_agent.capture import MOTSequenceSource, VideoFileSource
from edge_agent.capture.frames import Frame
from edge_agent.demo import write_demo_scene
from edge_agent.native import iou_matrix
from edge_agent.perception.detect import (
    COCO_CLASSES,
    DetectionNoise,
    Detections,
    GroundTruthDetector,
    ModelError,
    OpenCVDetector,
    TensorRTYOLOXDetector,
    YOLOXDetector,
    confusable_ids,
    kind_of,
    letterbox,
    merge_confusable,
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


# -- one box per thing: merging confusable classes -----------------------------------------------------

VAN = [651, 42, 724, 99]  # vtest.avi's parked van, as YOLOX-nano boxes it as truck (0.75) and car (0.66)
VAN_AS_CAR = [651, 43, 722, 99]
FAR = [10, 300, 80, 360]


def _detections(rows):
    """Detections from (category, box, score) rows, in COCO's class ids."""
    if not rows:
        return Detections.empty(COCO_CLASSES)
    return Detections(
        np.array([box for _, box, _ in rows], np.float32),
        np.array([score for _, _, score in rows], np.float32),
        np.array([COCO_CLASSES.index(c) for c, _, _ in rows], np.int32),
        COCO_CLASSES,
    )


@pytest.mark.parametrize(
    ("rows", "expected"),
    [
        pytest.param(
            [("car", VAN_AS_CAR, 0.66), ("truck", VAN, 0.75)], [("truck", "car", 0.66)], id="van-car-truck-merge"
        ),
        pytest.param(
            [("car", VAN_AS_CAR, 0.66), ("truck", FAR, 0.75)], [("truck", "", 0.0), ("car", "", 0.0)], id="far-apart"
        ),
        pytest.param(
            [("person", [100, 100, 160, 260], 0.8), ("bicycle", [100, 110, 160, 260], 0.7)],
            [("person", "", 0.0), ("bicycle", "", 0.0)],
            id="person-on-bicycle-never",
        ),
        pytest.param(
            [("bus", VAN, 0.11), ("car", VAN_AS_CAR, 0.66), ("truck", VAN, 0.75)],
            [("truck", "car", 0.66)],
            id="car-truck-bus-three-way",
        ),
        pytest.param(
            [("car", VAN_AS_CAR, 0.66), ("car", VAN, 0.5)],
            [("car", "", 0.0), ("car", "", 0.0)],
            id="one-class-is-nms-business",
        ),
        pytest.param(
            [("chair", VAN, 0.4), ("car", VAN, 0.6)], [("car", "", 0.0), ("chair", "", 0.0)], id="different-groups"
        ),
        pytest.param([("car", [0, 0, 100, 100], 0.6), ("truck", [0, 0, 100, 55], 0.7)], None, id="iou-0.55-below"),
        pytest.param([], [], id="empty"),
    ],
)
def test_merge_confusable(rows, expected):
    merged = merge_confusable(_detections(rows), iou_threshold=0.6)
    if expected is None:  # under the threshold: unchanged
        expected = [(c, "", 0.0) for c, _, _ in sorted(rows, key=lambda r: -r[2])]
    order = np.argsort(-merged.confidence, kind="stable")
    got = [(merged.category(i), merged.runner_up(i), float(merged.runner_up_confidence[i])) for i in order]
    assert [(c, r) for c, r, _ in got] == [(c, r) for c, r, _ in expected]
    np.testing.assert_allclose([s for _, _, s in got], [s for _, _, s in expected], atol=1e-6)
    if expected and expected[0][1]:  # the winner keeps its own box and score
        winner = max(rows, key=lambda r: r[2])
        np.testing.assert_array_equal(merged.xyxy[order[0]], winner[1])
        assert merged.confidence[order[0]] == pytest.approx(winner[2])


def test_merging_is_idempotent_and_clipping_keeps_the_runner_up():
    once = merge_confusable(_detections([("car", VAN_AS_CAR, 0.66), ("truck", VAN, 0.75)]), iou_threshold=0.6)
    twice = merge_confusable(once, iou_threshold=0.6)
    assert len(twice) == 1 and twice.runner_up(0) == "car"
    clipped = twice.clipped(700, 576)
    assert clipped.runner_up(0) == "car" and clipped.runner_up_confidence[0] == pytest.approx(0.66)


def test_detections_without_runner_ups_have_none_and_wrong_lengths_are_refused():
    d = _detections([("cup", [0, 0, 10, 10], 0.9)])
    assert d.runner_up_id.tolist() == [-1] and d.runner_up(0) == "" and d.runner_up_confidence.tolist() == [0.0]
    with pytest.raises(ValueError, match=r"runner_up_id \(N,\) and runner_up_confidence \(N,\)"):
        Detections(d.xyxy, d.confidence, d.class_id, COCO_CLASSES, np.full(2, -1, np.int32), np.zeros(2, np.float32))


def test_confusable_classes_share_one_id():
    ids = confusable_ids(COCO_CLASSES)
    car, truck, bus, person, bicycle = (COCO_CLASSES.index(c) for c in ("car", "truck", "bus", "person", "bicycle"))
    assert ids[car] == ids[truck] == ids[bus] == car
    assert ids[person] == person and ids[bicycle] == bicycle


def test_yolox_sees_vtest_van_once_after_merging(yolox):
    """The parked van is boxed as truck and as car on every frame: one box per thing once merged."""
    source = VideoFileSource(data("video/vtest.avi"), sample_fps=1.0, start=0.0)
    frame = next(source.frames())
    source.close()
    found = yolox.detect(frame)
    merged = merge_confusable(found, iou_threshold=0.6)

    def at_van(d):
        return np.flatnonzero(iou_matrix(d.xyxy, np.array([VAN], np.float32))[:, 0] > 0.5).tolist()

    assert {"car", "truck"} <= {found.category(i) for i in at_van(found)}  # before: two things where there is one
    (van,) = at_van(merged)
    assert merged.category(van) == "truck" and merged.runner_up(van) == "car"
