"""Places of a camera without zones: observations whose surroundings look alike are one place; the user names it
once and every observation of it, before and after, is there (the zone the answers and rules read); places merge
and are forgotten; the CLI and the API do the same, audited."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest
from helpers.memory import DAY, clip, near, observation, said, unit

from edge_agent.cli import main
from edge_agent.memory import Store, places
from edge_agent.memory.records import InvalidRecordError, NotFoundError
from edge_agent.perception.places import DIMS, surroundings

SOFA, DESK = unit(np.r_[np.ones(4), np.zeros(12)]), unit(np.r_[np.zeros(8), np.ones(4), np.zeros(4)])
MUG = unit(np.r_[np.ones(4), np.zeros(28)])


def _seen(t, around, track=1, vector=MUG, zone=""):
    record = observation(track, t, [0, 0, 40, 40], vector, description=said(colour="red", zone=zone))
    return replace(record, surroundings=around)


def _home(tmp_path):
    home = tmp_path / "home"
    with Store(home) as store:
        store.ingest_clip(clip(0.0, camera="wearable"), [_seen(0.0, near(SOFA, 0.99, seed=1))])
        store.ingest_clip(clip(100.0, camera="wearable"), [_seen(100.0, near(DESK, 0.99, seed=2))])
        store.ingest_clip(clip(200.0, camera="wearable"), [_seen(200.0, near(SOFA, 0.99, seed=3))])
    return home


def test_alike_surroundings_are_one_place_and_a_name_is_retroactive_and_lasting(tmp_path):
    home = _home(tmp_path)
    with Store(home) as store:
        found = places.places(store.db)
        assert [(p.camera, p.name, p.observations) for p in found] == [("wearable", None, 2), ("wearable", None, 1)]
        sofa, desk = found[0].id, found[1].id
        assert [o.place_id for o in store.observations_by_id([1, 2, 3])] == [sofa, desk, sofa]
        # how sure memory is of each: the first of a place began it; the third is its cosine to the sofa's mean
        scores = [o.place_score for o in store.observations_by_id([1, 2, 3])]
        assert scores[:2] == [1.0, 1.0] and scores[2] == pytest.approx(
            float(near(SOFA, 0.99, seed=1) @ near(SOFA, 0.99, seed=3)), abs=1e-3
        )
        assert found[0].likeness == pytest.approx((1.0 + scores[2]) / 2, abs=1e-3)
        assert all(o.zone == "" for o in store.observations_by_id([1, 2, 3]))
        with store.write():
            assert places.name(store.db, sofa, "  The Sofa ") == 2
        assert [o.zone for o in store.observations_by_id([1, 2, 3])] == ["the sofa", "", "the sofa"]
        later = store.ingest_clip(clip(300.0, camera="wearable"), [_seen(300.0, near(SOFA, 0.99, seed=4))])
        assert store.observation(later.decisions[0].observation_id).zone == "the sofa"  # seen there from now on
        # a zone the camera's describer gave is kept: no place for it
        zoned = store.ingest_clip(clip(400.0, camera="kitchen"), [_seen(400.0, SOFA, zone="sink")]).decisions[0]
        assert (store.observation(zoned.observation_id).zone, store.observation(zoned.observation_id).place_id) == (
            "sink",
            None,
        )
        with store.write():  # renaming replaces the name it gave, not a zone given otherwise
            places.name(store.db, sofa, "couch")
        assert store.observation(1).zone == "couch"
        with store.write():
            assert places.merge(store.db, desk, sofa) == 3
        (merged,) = places.places(store.db, "wearable")
        assert merged.id == desk and merged.observations == 4 and store.observation(1).zone == ""
        with store.write():
            places.name(store.db, desk, "desk")
            assert places.forget(store.db, desk) == 4
        assert places.places(store.db) == [] and {o.zone for o in store.observations_by_id([1, 2, 3])} == {""}
        assert {o.place_score for o in store.observations_by_id([1, 2, 3])} == {None}  # no place, no likeness
        for bad in (lambda: places.name(store.db, 99, "x"), lambda: places.forget(store.db, 99)):
            with pytest.raises(NotFoundError, match="no place 99"):
                bad()
        with pytest.raises(ValueError, match="1 to 100 characters"):
            places.name(store.db, 1, " ")


def test_surroundings_must_be_a_finite_vector():
    with pytest.raises(InvalidRecordError, match="surroundings"):
        _seen(0.0, np.array([np.nan, 1.0]))


def test_the_surface_under_a_thing_is_what_tells_places_apart():
    """The same sofa under a mug at two places in the frame and in a brighter light is one place; a desk of
    another colour under the same mug is not."""
    rng = np.random.default_rng(0)

    def frame(surface, light=1.0, x=200):
        image = np.full((360, 640, 3), (190, 200, 210), np.float32)
        image[250:] = surface
        image[210:250, x : x + 40] = (40, 40, 200)  # the mug
        image = np.clip(image * light + rng.normal(0, 3, image.shape), 0, 255).astype(np.uint8)
        return image, np.array([x, 210, x + 40, 250], np.float32)

    def around(*shot):
        image, box = shot[0]
        return surroundings([image], [box])

    sofa = around(frame((60, 60, 150)))
    assert sofa.shape == (DIMS,) and np.isclose(np.linalg.norm(sofa), 1.0)
    assert float(sofa @ around(frame((60, 60, 150), light=1.1, x=420))) >= places.SIMILARITY
    assert float(sofa @ around(frame((120, 140, 120)))) < places.SIMILARITY
    blank = surroundings([np.zeros((10, 10, 3), np.uint8)], [np.array([0, 0, 10, 10], np.float32)])
    assert blank.shape == (DIMS,)  # nothing around it: no error


def test_the_grain_of_a_surface_is_read_from_its_edges_orientation():
    """Boards running across the view and boards running away from it, in the same colours, differ in the
    descriptor's gradient-orientation bins (angles were once read in radians: every edge fell in the first bin)."""

    def boards(across):
        image = np.full((360, 640, 3), 200, np.uint8)
        rows, cols = np.mgrid[250:360, 0:640]
        image[250:][((rows if across else cols) // 6) % 2 == 1] = (40, 60, 90)
        return surroundings([image], [np.array([200, 210, 240, 250], np.float32)])

    edges = slice(8 * 3 + 6, 8 * 3 + 6 + 8)  # the band below: hue x saturation, brightness, then orientation
    assert int(np.argmax(boards(True)[edges])) != int(np.argmax(boards(False)[edges]))


def test_places_from_the_command_line(tmp_path, capsys):
    home = _home(tmp_path)

    def run(*argv):
        code = main([str(a) for a in argv])
        out = capsys.readouterr()
        return code, out.out, out.err

    code, out, _ = run("--home", home, "places", "list", "--json")
    listed = json.loads(out)
    assert code == 0 and [(p["observations"], p["name"]) for p in listed] == [(2, None), (1, None)]
    code, out, _ = run("--home", home, "places", "list")
    assert code == 0 and "(unnamed)" in out and "example: observation" in out and "(alike 0.99)" in out
    lines = out.splitlines()  # by camera, in English, and how to name one
    assert lines[0] == "wearable: 2 places, none named" and " 2 observations (" in lines[1]
    assert " 1 observation (" in lines[2] and "1 observations" not in out
    assert lines[3].startswith("Places are learned for cameras with no zones") and "places name ID NAME" in lines[3]
    code, out, _ = run("--home", home, "places", "name", listed[0]["id"], "sofa")
    assert code == 0 and "2 observations are there" in out
    code, out, _ = run("--home", home, "places", "merge", listed[0]["id"], listed[1]["id"], "--json")
    assert code == 0 and json.loads(out)["observations"] == 1
    code, _, err = run("--home", home, "places", "name", 99, "desk")
    assert code != 0 and "no place 99" in err
    code, out, _ = run("--home", home, "places", "forget", listed[0]["id"])
    assert code == 0 and "3 observations keep no place" in out
    with Store(home) as store:
        assert [c["action"] for c in store.corrections()] == ["place name", "place merge", "place forget"]
        assert store.corrections()[0]["details"]["caller"].startswith("cli")


def test_moves_of_a_thing_a_worn_camera_saw_count_named_places_only(tmp_path, embedder):
    """Carried from the table to the desk past the wearer's unnamed surroundings: one move, not two (the region
    of the image and a place nobody named say nothing of where it was)."""
    from edge_agent.qa import DeterministicController

    table, body = near(SOFA, 0.99, seed=5), unit(np.r_[np.zeros(4), np.ones(4), np.zeros(8)])
    with Store(tmp_path / "home") as store:
        for k, (around, region) in enumerate(((table, "centre"), (body, "bottom left"), (DESK, "top right"))):
            record = observation(1, DAY + 60 * k, [0, 0, 40, 40], MUG, description=said(colour="red", region=region))
            store.ingest_clip(clip(DAY + 60 * k, camera="wearable"), [replace(record, surroundings=around)])
        with store.write():
            places.name(store.db, store.observation(1).place_id, "table")
            places.name(store.db, store.observation(3).place_id, "desk")
        controller = DeterministicController(store, embedder)
        answer = controller.ask("How many times was the red cup moved to another place?")
        assert answer.text.startswith("1 time:"), answer.text
        # where it was last seen, and how sure memory is of that place (it began the desk: 1.00)
        assert ", by the desk (place 1.00 alike):" in controller.ask("Where was the red cup last seen?").text


def test_places_of_two_descriptors_are_kept_apart(tmp_path):
    """The same vector in another descriptor's space is another place (a descriptor of one model is never compared
    with another's); each space joins a place at its own threshold ([places]); such places do not merge."""
    from edge_agent.config import PlacesConfig

    config = PlacesConfig(similarity=0.96, image_text_similarity=0.5)
    with Store(tmp_path / "home", places_config=config) as store:
        for k, (around, space) in enumerate(
            ((SOFA, "surroundings"), (SOFA, "image-text:clip"), (near(SOFA, 0.7, seed=9), "image-text:clip"))
        ):
            record = replace(_seen(100.0 * k, around), surroundings_space=space)
            store.ingest_clip(clip(100.0 * k, camera="wearable"), [record])
        first, second, third = store.observations_by_id([1, 2, 3])
        assert first.place_id != second.place_id == third.place_id  # 0.7 alike joins at the image-text threshold 0.5
        assert third.place_score == pytest.approx(0.7, abs=0.02)
        with pytest.raises(ValueError, match="different spaces"), store.write():
            places.merge(store.db, first.place_id, second.place_id)
        with pytest.raises(InvalidRecordError, match="surroundings_space"):
            replace(_seen(0.0, SOFA), surroundings_space=" ")
