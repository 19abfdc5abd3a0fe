"""Faces on real frames (the shared home clip 1.mp4 shows one person's face up to ~150 px): found by YuNet,
aligned and embedded by dlib; the same face across the clip is one vector neighbourhood; a face too small, too
blurred or turned away is not kept; a frame without faces costs a detector pass and gives none."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from helpers.shared import data, model

pytest.importorskip("dlib", reason="dlib is not installed (pip install 'edge-agent[faces]')")
pytest.importorskip("face_recognition_models", reason="face-recognition-models is not installed ([faces] extra)")

from edge_agent.perception.detect import ModelError  # noqa: E402
from edge_agent.perception.faces import FACE_SPACE, FaceEmbedder, _turn  # noqa: E402

YUNET = "face_detection_yunet_2026may.onnx"


@pytest.fixture(scope="module")
def embedder() -> FaceEmbedder:
    return FaceEmbedder(model(YUNET))


@pytest.fixture(scope="module")
def frames() -> list[np.ndarray]:
    cap = cv2.VideoCapture(str(data("video/1.mp4")))
    out, k = [], 0
    while True:
        ok, image = cap.read()
        if not ok:
            break
        if k % 3 == 0:
            out.append(image)
        k += 1
    return out


def test_one_persons_face_across_a_real_clip_is_one_neighbourhood(embedder, frames):
    found = [(i, f) for i, image in enumerate(frames) for f in embedder.detect(image)]
    assert len(found) >= 5, "1.mp4 should show a face in several frames"
    vectors = np.stack([f.vector for _, f in found])
    assert vectors.shape[1] == 128 and np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    similarity = vectors @ vectors.T
    assert similarity[np.triu_indices(len(found), 1)].min() > 0.9  # dlib's same-person bar is about 0.82
    assert all(
        f.size >= embedder.min_size and f.turn <= 0.35 and f.sharpness >= embedder.min_sharpness for _, f in found
    )
    assert embedder.space == FACE_SPACE


def test_a_face_too_small_or_blurred_is_not_kept(embedder, frames):
    image = next(im for im in frames if embedder.detect(im))
    small = cv2.resize(image, (image.shape[1] // 4, image.shape[0] // 4), interpolation=cv2.INTER_AREA)
    assert embedder.detect(small) == []
    blurred = cv2.GaussianBlur(image, (0, 0), 6)
    assert embedder.detect(blurred) == []


def test_a_frame_without_faces_gives_none_and_crops_give_their_best(embedder, frames):
    cap = cv2.VideoCapture(str(data("video/cup.mp4")))
    ok, cup = cap.read()
    assert ok and embedder.detect(cup) == []
    assert embedder.detect(np.zeros((20, 20, 3), np.uint8)) == []  # smaller than a face: no detector pass
    best = embedder.best(frames[:30], keep=2)
    assert len(best) <= 2 and all(a.quality >= b.quality for a, b in zip(best, best[1:]))


def test_a_turned_face_and_a_missing_model_are_named(tmp_path):
    frontal = np.array([[40, 50], [80, 50], [60, 70], [45, 90], [75, 90]], float)
    turned = frontal.copy()
    turned[2, 0] = 78  # the nose near the left eye: turned
    assert _turn(frontal) == pytest.approx(0.0) and _turn(turned) > 0.35
    with pytest.raises(ModelError, match="face detector model not found"):
        FaceEmbedder(tmp_path / "missing.onnx")


def test_dlib_finds_the_faces_where_the_yunet_file_is_absent(embedder):
    """dlib's HOG detector (no model file): the woman in 2.avi (faces ~40 px) is found and embedded as YuNet's faces
    of her are (it misses the child in 1.mp4, in sunglasses)."""
    hog = FaceEmbedder(None)
    assert hog.detector == "dlib-hog" and embedder.detector.startswith("yunet")
    cap = cv2.VideoCapture(str(data("video/2.avi")))
    images = []
    while len(images) < 8:
        ok, image = cap.read()
        if not ok:
            break
        images.append(image)
        for _ in range(4):
            cap.read()
    pairs = [(a, b) for image in images for a in hog.detect(image)[:1] for b in embedder.detect(image)[:1]]
    assert len(pairs) >= 4
    assert min(float(a.vector @ b.vector) for a, b in pairs) > 0.92  # the same woman, either way
    assert all(len(a.landmarks) == 3 and a.turn <= hog.max_turn for a, _ in pairs)
