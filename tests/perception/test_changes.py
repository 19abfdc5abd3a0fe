"""Things found by what changed (edge_agent.perception.changes) on synthetic scenes, and on box.mp4."""

from __future__ import annotations

import functools
from pathlib import Path

import cv2
import numpy as np
import pytest

from edge_agent.cli import main
from edge_agent.config import ConfigError, load_config
from edge_agent.config.changes import ChangesConfig
from edge_agent.memory import Store
from edge_agent.perception.changes import CHANGE_CATEGORY, ChangeFinder, with_changes
from edge_agent.perception.detect import COCO_CLASSES, Detections, kind_of
from tests.helpers.shared import data, model

FPS = 2.0
H, W = 240, 320
PERSON = COCO_CLASSES.index("person")
CUP = COCO_CLASSES.index("cup")


@functools.cache
def _noisy(seed: int) -> np.ndarray:
    noise = np.random.default_rng(seed).normal(0, 2, (H, W, 3))
    return np.clip(110 + noise, 0, 255).astype(np.uint8)


def scene(seed: int) -> np.ndarray:
    """A plain wall with a little sensor noise."""
    return _noisy(seed % 16).copy()


def detections(boxes: list[tuple[float, float, float, float]], class_id: int = PERSON) -> Detections:
    if not boxes:
        return Detections.empty(COCO_CLASSES)
    n = len(boxes)
    return Detections(
        np.asarray(boxes, np.float32), np.full(n, 0.9, np.float32), np.full(n, class_id, np.int32), COCO_CLASSES
    )


def warmed(settings: ChangesConfig | None = None, frames: int = 200) -> ChangeFinder:
    finder = ChangeFinder(settings or ChangesConfig(enabled=True), FPS)
    for k in range(frames):
        assert len(finder.find(scene(k), detections([]))) == 0
    return finder


def with_box(image: np.ndarray, x: int, y: int, size: int = 40, value: int = 220) -> np.ndarray:
    image = image.copy()
    image[y : y + size, x : x + size] = value
    return image


def test_a_thing_left_is_found_after_the_persistence_time_and_not_before() -> None:
    finder = warmed()
    found_at = []
    for k in range(30):
        changes = finder.find(with_box(scene(100 + k), 140, 100), detections([]))
        if len(changes):
            found_at.append(k)
            x1, y1, x2, y2 = changes.xyxy[0]
            assert abs(x1 - 140) <= 6 and abs(y1 - 100) <= 6 and abs(x2 - 180) <= 6 and abs(y2 - 140) <= 6
            assert not changes.handled[0]
    persist = round(ChangesConfig().persist_seconds * FPS)
    assert found_at, "the thing left was never found"
    assert found_at[0] >= persist - 1  # not before it stayed changed for persist_seconds
    assert found_at[-1] == 29  # and still found while it stays


def _found(finder: ChangeFinder, image: np.ndarray, x: int = 140, y: int = 100) -> bool:
    """Whether ``finder`` finds a thing left at (x, y) (40 px) in ``image``."""
    changes = finder.find(image, detections([]))
    near = [b for b, h in zip(changes.xyxy, changes.handled) if not h and abs(b[0] - x) <= 6 and abs(b[1] - y) <= 6]
    return bool(near)


#: a long model that takes a thing in within seconds (as a young model does), and the short one
QUICK = ChangesConfig(enabled=True, long_seconds=20.0, short_seconds=5.0)


@pytest.mark.parametrize("keep", [True, False])
def test_a_thing_left_is_followed_after_the_long_model_takes_it_in(keep: bool) -> None:
    finder = warmed(QUICK.model_copy(update={"keep": keep}), frames=60)
    found = [_found(finder, with_box(scene(1000 + k), 140, 100)) for k in range(120)]
    assert any(found[:20])
    if keep:
        first = found.index(True)
        assert all(found[first:])  # in every frame from when it was found
    else:
        assert not any(found[-40:])  # without following it, the long model took it in


def test_a_thing_taken_is_gone_and_found_again_at_once_when_put_back() -> None:
    finder = warmed(QUICK, frames=60)
    assert all([_found(finder, with_box(scene(1100 + k), 140, 100)) for k in range(120)][20:])
    gone = [_found(finder, scene(1300 + k)) for k in range(60)]  # taken: the wall is seen where it lay
    assert not any(gone)
    back = [_found(finder, with_box(scene(1400 + k), 140, 100)) for k in range(10)]
    assert back[0] and all(back)  # put back where it lay: found in its first frame back


def test_the_surface_under_a_thing_taken_is_no_thing() -> None:
    """A thing lying there before the camera started is part of its background; when it is taken the wall it hid
    is new to the long model, but it is no thing."""
    finder = ChangeFinder(QUICK, FPS)
    for k in range(60):
        assert len(finder.find(with_box(scene(k), 140, 100), detections([]))) == 0
    assert not any(len(finder.find(scene(1500 + k), detections([]))) for k in range(40))


def test_a_thing_followed_is_still_found_after_a_change_of_light() -> None:
    finder = warmed(QUICK, frames=60)
    assert all([_found(finder, with_box(scene(1700 + k), 140, 100)) for k in range(80)][20:])
    brighter = [cv2.add(with_box(scene(1800 + k), 140, 100), np.full((H, W, 3), 40, np.uint8)) for k in range(10)]
    assert all(_found(finder, image) for image in brighter)  # both models start again; the thing is still there


def test_a_change_of_light_gives_nothing() -> None:
    finder = warmed()
    for k in range(20):
        brighter = cv2.add(scene(200 + k), np.full((H, W, 3), 60, np.uint8))
        assert len(finder.find(brighter, detections([]))) == 0


def test_a_walker_crossing_gives_nothing() -> None:
    finder = warmed()
    for k in range(20):
        image = scene(300 + k)
        x = 10 + 15 * k
        image[60:200, x : x + 30] = 30  # no detector box: the blob itself never settles
        assert len(finder.find(image, detections([]))) == 0


def test_a_region_inside_a_person_box_is_dropped() -> None:
    finder = warmed()
    for k in range(30):
        changes = finder.find(with_box(scene(400 + k), 140, 100), detections([(120, 60, 200, 220)]))
        assert len(changes) == 0


def test_a_thing_moving_beside_a_person_is_found_as_handled() -> None:
    finder = warmed()
    handled = 0
    for k in range(16):
        image = scene(500 + k)
        x = 20 + 12 * k
        image[40:220, x : x + 40] = 40  # the person, boxed by the detector
        image[100:130, x + 42 : x + 72] = 230  # what they carry, beside their box
        changes = finder.find(image, detections([(x, 40, x + 40, 220)]))
        for box, in_hands in zip(changes.xyxy, changes.handled):
            assert in_hands
            assert box[0] >= x + 40 - 4  # outside the person's box
            handled += 1
    assert handled >= 8


def test_a_region_the_detector_boxed_is_not_repeated() -> None:
    finder = warmed()
    for k in range(30):
        changes = finder.find(with_box(scene(600 + k), 140, 100), detections([(138, 98, 182, 142)], CUP))
        assert len(changes) == 0


def test_with_changes_adds_an_object_class() -> None:
    finder = warmed()
    changes = None
    for k in range(20):
        changes = finder.find(with_box(scene(700 + k), 140, 100), detections([]))
    assert changes is not None and len(changes) == 1
    merged = with_changes(detections([(10, 10, 50, 50)]), changes)
    assert len(merged) == 2 and merged.category(0) == "person" and merged.category(1) == CHANGE_CATEGORY
    assert kind_of(merged.category(1)) == "object"
    assert merged.runner_up_id[1] == -1


def test_the_configuration_validates() -> None:
    config = load_config()
    assert not config.changes.enabled
    settings = ChangesConfig(enabled=True, cameras=["kitchen*"])
    assert settings.applies("kitchen-1", moving=False)
    assert not settings.applies("kitchen-1", moving=True)
    assert not settings.applies("hall", moving=False)
    with pytest.raises(ConfigError, match="short_seconds"):
        load_config(changes={"short_seconds": 200, "long_seconds": 100})
    with pytest.raises(ConfigError, match="changes.min_area"):
        load_config(changes={"min_area": 0})


def unsure(boxes: list[tuple[tuple[float, float, float, float], str, float]]) -> Detections:
    """The detector's boxes with their classes and scores: ((x1, y1, x2, y2), class, score)."""
    return Detections(
        np.asarray([b for b, _, _ in boxes], np.float32).reshape(-1, 4),
        np.asarray([p for _, _, p in boxes], np.float32),
        np.asarray([COCO_CLASSES.index(c) for _, c, _ in boxes], np.int32),
        COCO_CLASSES,
    )


PERSON_BOX = (10.0, 40.0, 130.0, 230.0)


def held(k: int, guesses: list[tuple[str, float]], dx: float = 0.0, person: bool = True) -> Detections:
    """Frame ``k``: a person, and beside their box a thing the detector boxes as ``guesses`` (class, score)."""
    thing = (125.0 + dx * k, 90.0, 185.0 + dx * k, 140.0)
    return unsure(([(PERSON_BOX, "person", 0.9)] if person else []) + [(thing, c, p) for c, p in guesses])


def found_in(finder: ChangeFinder, frames: list[Detections], seed: int) -> list[int]:
    """The frames in which the finder reports a thing in someone's hands."""
    out = []
    for k, dets in enumerate(frames):
        changes = finder.find(scene(seed + k), dets)
        if changes.handled.any():
            out.append(k)
    return out


def test_a_thing_the_detector_cannot_name_beside_a_person_is_found_in_their_hands() -> None:
    """box.mp4's box: a book at 0.35, a cake at 0.2, then the other way round; below the tracker's start score."""
    finder = warmed()
    frames = [
        held(k, [("book", 0.35), ("cake", 0.2)] if k % 3 else [("cake", 0.4), ("book", 0.3)], 3) for k in range(8)
    ]
    needed = round(ChangesConfig().handled_seconds * FPS)
    assert found_in(finder, frames, 900) == list(range(needed - 1, 8))
    changes = finder.find(scene(950), held(8, [("book", 0.35), ("cake", 0.3)], 3))
    assert len(changes) == 1 and changes.handled[0]
    assert np.allclose(changes.xyxy[0], (149, 90, 209, 140), atol=1)  # the detector's box, not a region's


def test_a_thing_the_detector_names_steadily_or_surely_or_away_from_people_is_left_to_it() -> None:
    cases = {
        "one class, unsure": [("chair", 0.45), ("wine glass", 0.1)],  # a chair half in view: it is a chair
        "confusable classes": [("cup", 0.4), ("bowl", 0.35)],  # one thing the detector swaps between
        "sure": [("book", 0.7), ("cake", 0.5)],  # the tracker starts it
        "too unsure": [("book", 0.25), ("cake", 0.2)],
    }
    for name, guesses in cases.items():
        finder = warmed()
        assert found_in(finder, [held(k, guesses) for k in range(8)], 1000) == [], name
    finder = warmed()
    alone = [held(k, [("book", 0.35), ("cake", 0.3)], person=False) for k in range(8)]
    assert found_in(finder, alone, 1100) == [], "nobody holds it"
    finder = warmed()
    jumping = [held(k, [("book", 0.35), ("cake", 0.3)], 80) for k in range(8)]
    assert found_in(finder, jumping, 1200) == [], "never the same place twice: not one thing followed"


def test_box_mp4_the_held_box_is_in_memory_in_most_two_second_clips_as_at_most_two_entities(tmp_path, capsys) -> None:
    """box.mp4 (issue 41's target): a decorated box held and moved in someone's hands for 15 s, never put down;
    YOLOX-nano sees it as a 0.3-0.55 book or cake, sometimes a 0.6-0.7 cake. Ingested in 2-s clips through the
    product's detector with [changes] on, it is in memory in at least 80% of the clips, as at most two entities
    (what the finder found, and the detector's sure cakes)."""
    model("yolox_nano.onnx")
    config = tmp_path / "config.toml"
    config.write_text("[capture]\nclip_seconds = 2\n\n[changes]\nenabled = true\n")
    home = tmp_path / "home"
    argv = ["--home", str(home), "--config", str(config), "--models", str(model("yolox_nano.onnx").parent)]
    argv += ["ingest", str(data("video/box.mp4")), "--camera", "table", "--detector", "yolox", "--quiet"]
    assert main(argv) == 0, capsys.readouterr().err
    with Store(home) as store:
        clips = {o.clip_id for e in store.entities() for o in store.observations(e.id)}
        things = [
            e.id
            for e in store.entities(kind="object")
            if e.category in (CHANGE_CATEGORY, "book", "cake") and len(store.observations(e.id)) >= 2
        ]
        boxed = {o.clip_id for e in things for o in store.observations(e)}
    assert len(clips) == 8
    assert len(boxed) >= 0.8 * len(clips), f"the box in {len(boxed)} of {len(clips)} clips"
    assert 1 <= len(things) <= 2


def test_ingest_makes_an_object_observation_of_a_thing_left_on_a_fixed_camera(tmp_path, capsys) -> None:
    video = tmp_path / "shelf.avi"
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), 4.0, (W, H))
    for k in range(4 * 30):
        writer.write(with_box(scene(k), 140, 100) if k >= 4 * 20 else scene(k))
    writer.release()
    config = tmp_path / "config.toml"
    config.write_text("[changes]\nenabled = true\n")

    def objects(camera: str, home: Path) -> list[str]:
        code = main(
            ["--home", str(home), "--config", str(config), "ingest", str(video), "--detector", "opencv"]
            + ["--camera", camera, "--quiet"]
        )
        assert code == 0, capsys.readouterr().err
        with Store(home) as store:
            return [e.category for e in store.entities()]

    assert objects("shelf", tmp_path / "fixed") == [CHANGE_CATEGORY]
    config.write_text('[changes]\nenabled = true\n\n[tracker]\nmoving_cameras = ["shelf"]\n')
    assert objects("shelf", tmp_path / "moving") == []


def test_a_thin_dark_thing_put_down_is_found_though_its_edges_look_like_shadow(tmp_path) -> None:
    """things-moved, seed 0: black glasses (46 x 18 px) put on the counter in the third session. At the models' 160
    px their edges blend with the surface and MOG2 calls them shadow; counted with the change they touch, the
    glasses are found (before: never, in any frame)."""
    import edge_agent.eval
    from edge_agent.eval.world import load_scenario, simulate
    from edge_agent.native import iou_matrix

    shipped = Path(edge_agent.eval.__file__).parent / "scenarios" / "things-moved.json"
    world = simulate(load_scenario(shipped), 0)
    paths = world.write(tmp_path / "world")[:3]
    finder = ChangeFinder(ChangesConfig(enabled=True), 2.0)
    glasses = np.array([[169, 277, 215, 295]], np.float32)  # where they lie from the third session's 24th frame
    found = []
    for path in paths:
        for image_path in sorted((path / "img1").glob("*.jpg")):
            changes = finder.find(cv2.imread(str(image_path)), detections([]))
            if path == paths[2] and len(changes):
                found.append(float(iou_matrix(changes.xyxy, glasses).max()))
    assert max(found, default=0.0) >= 0.3, found
