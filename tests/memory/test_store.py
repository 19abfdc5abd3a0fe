"""The store's write and read paths: idempotent ingest, resume points, record validation, reads."""

from __future__ import annotations

import numpy as np
import pytest
from helpers.memory import clip, near, observation

from edge_agent.memory import ClipRecord, InvalidRecordError, NotFoundError, ObservationRecord, queries


def test_same_clip_twice_neither_duplicates_nor_loses(store, red_mug):
    observations = [observation(1, 0.0, [0, 0, 40, 40], red_mug, description="a red mug on the counter")]
    first = store.ingest_clip(clip(0), observations)
    counts = store.counts()
    again = store.ingest_clip(clip(0), observations)
    assert first.created and not again.created
    assert again.clip_id == first.clip_id and again.decisions == first.decisions
    assert store.counts() == counts


def test_resume_point_per_camera(store, red_mug):
    assert store.resume_point("kitchen") is None
    store.ingest_clip(clip(0), [])
    store.ingest_clip(clip(10), [observation(1, 10.0, [0, 0, 40, 40], red_mug)])
    store.ingest_clip(clip(0, camera="hall"), [])
    assert store.resume_point("kitchen") == 20.0 and store.resume_point("hall") == 10.0


def test_reads(store, red_mug):
    store.ingest_clip(
        clip(100), [observation(1, 100.0, [0, 0, 40, 40], red_mug, description="red striped mug by the sink")]
    )
    store.ingest_clip(
        clip(0), [observation(7, 0.0, [0, 0, 40, 40], near(red_mug, 0.95, seed=1), description="mug on the table")]
    )
    (entity,) = store.entities()
    bio = store.biography(entity.id)
    assert [o.t_start for o in bio.observations] == [0.0, 100.0]  # time order, whatever the ingest order
    assert bio.observations[0].track_id == 7 and bio.observations[0].camera == "kitchen"
    assert [o.description for o in store.search_text("sink")] == ["red striped mug by the sink"]
    nearest = store.nearest_observations(red_mug, "test-appearance", k=1)
    assert nearest[0][0] == bio.observations[1].id and nearest[0][1] == pytest.approx(0.0, abs=1e-5)
    assert store.nearest_observations(red_mug, "unknown-space") == []
    # Metadata filters: kind (partition key), camera and time.
    assert [i for i, _ in store.nearest_observations(red_mug, "test-appearance", k=5, before=50.0)] == [
        bio.observations[0].id
    ]
    assert [i for i, _ in store.nearest_observations(red_mug, "test-appearance", k=5, after=50.0)] == [
        bio.observations[1].id
    ]
    assert store.nearest_observations(red_mug, "test-appearance", k=5, camera="hall") == []
    assert store.nearest_observations(red_mug, "test-appearance", k=5, kind="person") == []
    assert store.entities(kind="person") == []
    assert store.clip(bio.observations[0].clip_id).t_start == 0.0
    with pytest.raises(NotFoundError, match="no entity 999"):
        store.entity(999)
    with pytest.raises(NotFoundError, match="no observation 999"):
        store.observation(999)
    with pytest.raises(NotFoundError, match="no clip 999"):
        store.clip(999)
    with pytest.raises(ValueError, match="kind must be one of"):
        store.entities(kind="robot")


def _record(**overrides):
    fields = dict(
        track_id=1,
        kind="object",
        category="cup",
        frame_times=[0.0, 0.5],
        boxes=[[0, 0, 1, 1], [0, 0, 1, 1]],
        scores=[0.9, 0.9],
        embedding=[1.0, 0.0],
        embedding_space="s",
    )
    fields.update(overrides)
    return ObservationRecord(**fields)


@pytest.mark.parametrize(
    ("overrides", "match"),
    [
        ({"kind": "robot"}, "kind must be one of person, animal, object"),
        ({"category": ""}, "category must be a non-empty class name"),
        ({"frame_times": []}, "at least one frame"),
        ({"boxes": [[0, 0, 1, 1]]}, r"boxes must have shape \(2, 4\)"),
        ({"scores": [0.9]}, r"scores must have shape \(2,\)"),
        ({"boxes": [[0, 0, np.nan, 1], [0, 0, 1, 1]]}, "boxes contains NaN or inf"),
        ({"frame_times": [1.0, 0.5]}, "strictly increasing"),
        ({"boxes": [[5, 0, 1, 1], [0, 0, 1, 1]]}, "x2 >= x1"),
        ({"embedding": [0.0, 0.0]}, "zero norm"),
        ({"embedding": [np.inf, 0.0]}, "non-empty finite vector"),
        ({"crop_path": "/etc/passwd"}, "relative to the media folder"),
        ({"crop_path": "../x.jpg"}, "relative to the media folder"),
        ({"track_id": "one"}, "track_id must be an integer"),
        ({"embedding_space": " "}, "embedding_space must name the embedder"),
    ],
)
def test_invalid_observation_records(overrides, match):
    with pytest.raises(InvalidRecordError, match=match):
        _record(**overrides)


@pytest.mark.parametrize(
    ("args", "match"),
    [
        (("", 0.0, 1.0), "camera must be a non-empty name"),
        (("cam", 5.0, 1.0), "is before t_start"),
        (("cam", float("nan"), 1.0), "t_start must be finite"),
        (("cam", 0.0, 1.0, ("/abs.jpg",)), "keyframes must be a path relative"),
    ],
)
def test_invalid_clip_records(args, match):
    with pytest.raises(InvalidRecordError, match=match):
        ClipRecord(*args)


def test_clip_level_checks_write_nothing(store, red_mug):
    with pytest.raises(InvalidRecordError, match="track ids repeat"):
        store.ingest_clip(
            clip(0), [observation(1, 0.0, [0, 0, 9, 9], red_mug), observation(1, 1.0, [0, 0, 9, 9], red_mug)]
        )
    with pytest.raises(InvalidRecordError, match="outside its clip"):
        store.ingest_clip(clip(0), [observation(1, 20.0, [0, 0, 9, 9], red_mug)])
    assert store.counts()["clips"] == 0


def test_embeddings_are_stored_normalised(store):
    store.ingest_clip(clip(0), [observation(1, 0.0, [0, 0, 9, 9], np.array([3.0, 4.0] + [0.0] * 30, np.float32))])
    (hit,) = store.nearest_observations(np.array([0.6, 0.8] + [0.0] * 30), "test-appearance", k=1)
    assert hit[1] == pytest.approx(0.0, abs=1e-6)


def test_cameras_and_kinds_are_read_from_their_indexes(store, red_mug):
    """The words a question is parsed with: each camera and kind once, sorted, found a step of an index each."""
    assert queries.cameras(store.db) == [] and queries.entity_categories(store.db) == []
    for t, camera in ((0, "kitchen"), (10, "hall"), (20, "kitchen"), (30, "attic")):
        store.ingest_clip(clip(t, camera=camera), [observation(1, t, [0, 0, 40, 40], red_mug, category="Cup")])
    store.ingest_clip(
        clip(40, camera="hall"), [observation(1, 40, [50, 50, 90, 90], near(red_mug, 0.1, 1), category="book")]
    )
    assert queries.cameras(store.db) == ["attic", "hall", "kitchen"] == sorted(queries.clips_per_camera(store.db))
    assert queries.entity_categories(store.db) == ["book", "cup"]
    for sql, index in (
        ("SELECT min(camera) FROM clips WHERE camera > 'a'", "clips_by_camera"),
        ("SELECT min(lower(category)) FROM entities WHERE lower(category) > 'a'", "entities_by_category"),
        (  # the share of an entity's sightings described in a colour (queries.described_share): the index alone
            "SELECT entity_id, sum(colour IN ('red')), count(*) FROM observations WHERE entity_id IN (1, 2) "
            "AND colour != '' AND t_start < 50 GROUP BY entity_id",
            "COVERING INDEX observations_by_entity",
        ),
    ):
        assert index in str(store.db.query(f"EXPLAIN QUERY PLAN {sql}"))
