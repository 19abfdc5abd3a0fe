"""The user's corrections: rename, merge, split (never re-merged), not-same, forget (no trace left)."""

from __future__ import annotations

import pytest
from helpers.memory import DAY, clip, near, observation

from edge_agent.memory import NotFoundError, corrections
from edge_agent.memory.corrections import CorrectionError


def _sightings(store, embedding, days, box=(0, 0, 40, 40), **kw):
    return [
        store.ingest_clip(clip(d * DAY), [observation(1, d * DAY, box, near(embedding, 0.97, seed=d), **kw)]).decisions[
            0
        ]
        for d in days
    ]


def test_rename_and_clear_are_audited(store, red_mug):
    (d,) = _sightings(store, red_mug, [0])
    assert corrections.rename(store, d.entity_id, "  Alice's   mug ").name == "Alice's mug"
    assert corrections.rename(store, d.entity_id, None).name is None
    assert [c["action"] for c in store.corrections()] == ["rename", "rename"]
    assert store.corrections()[0]["details"] == {
        "entity": d.entity_id,
        "old": None,
        "new": "Alice's mug",
    }  # no caller given
    corrections.rename(store, d.entity_id, "Bob's mug", caller="cli (uid 1000)")
    assert store.corrections()[-1]["details"] == {
        "entity": d.entity_id,
        "old": None,
        "new": "Bob's mug",
        "caller": "cli (uid 1000)",
    }
    with pytest.raises(CorrectionError, match="1 to 100 characters"):
        corrections.rename(store, d.entity_id, " ")
    with pytest.raises(NotFoundError):
        corrections.rename(store, 999, "x")


def test_merge_moves_everything_and_rebuilds_references(store, red_mug):
    a = _sightings(store, red_mug, [0, 1, 2])
    blue = near(red_mug, 0.2, seed=50)
    b = _sightings(store, blue, [3, 4, 5])
    keep, absorb = a[0].entity_id, b[0].entity_id
    assert keep != absorb
    corrections.rename(store, absorb, "mug")
    merged = corrections.merge(store, keep, absorb)
    assert merged.observations == 6 and merged.name == "mug" and merged.last_seen == pytest.approx(5 * DAY + 1.5)
    with pytest.raises(NotFoundError):
        store.entity(absorb)
    assert store.reference_ids(keep) == [d.observation_id for d in (a + b)[-4:]]
    assert store.counts()["vec_ref"] == 4
    assert store.corrections()[-1]["details"]["observations_moved"] == 3


def test_merge_refuses_other_kinds_and_itself(store, red_mug):
    cup = _sightings(store, red_mug, [0])[0].entity_id
    dog = store.ingest_clip(
        clip(9 * DAY), [observation(1, 9 * DAY, [0, 0, 80, 60], red_mug, kind="animal", category="dog")]
    )
    with pytest.raises(CorrectionError, match="cannot merge a object"):
        corrections.merge(store, cup, dog.decisions[0].entity_id)
    with pytest.raises(CorrectionError, match="with itself"):
        corrections.merge(store, cup, cup)


def test_split_is_never_re_merged(store, red_mug):
    decisions = _sightings(store, red_mug, range(6))
    entity = decisions[0].entity_id
    assert {d.entity_id for d in decisions} == {entity}
    original, new = corrections.split(store, entity, decisions[3].observation_id)
    assert original.observations == 3 and new.observations == 3
    assert [o.id for o in store.observations(new.id)] == [d.observation_id for d in decisions[3:]]
    assert store.reference_ids(entity) == [d.observation_id for d in decisions[:3]]
    assert store.reference_ids(new.id) == [d.observation_id for d in decisions[3:]]
    assert original.last_seen < new.first_seen
    # Later sightings, similar to both, join one of them; neither is emptied into the other.
    _sightings(store, red_mug, range(10, 16))
    assert {e.id for e in store.entities()} == {entity, new.id}
    assert store.entity(entity).observations >= 3 and store.entity(new.id).observations >= 3
    with pytest.raises(CorrectionError, match="marked as not the same"):
        corrections.merge(store, entity, new.id)
    assert corrections.merge(store, entity, new.id, force=True).observations == 12
    assert store.corrections()[-1]["details"]["forced"] is True


def test_split_needs_a_later_observation_of_that_entity(store, red_mug):
    decisions = _sightings(store, red_mug, [0, 1])
    with pytest.raises(CorrectionError, match="would leave the entity empty"):
        corrections.split(store, decisions[0].entity_id, decisions[0].observation_id)
    with pytest.raises(CorrectionError, match="does not belong to entity"):
        corrections.split(store, decisions[0].entity_id, 999)


def test_not_same_constraint_blocks_merge(store, red_mug):
    a = _sightings(store, red_mug, [0])[0].entity_id
    b = _sightings(store, near(red_mug, 0.1, seed=60), [1])[0].entity_id
    corrections.not_same(store, b, a)
    with pytest.raises(CorrectionError, match="not the same"):
        corrections.merge(store, a, b)
    with pytest.raises(CorrectionError, match="different from itself"):
        corrections.not_same(store, a, a)


def test_forget_leaves_no_trace(store, red_mug):
    media = store.media_dir
    (media / "crops").mkdir()
    (media / "keyframes").mkdir()
    for name in ("crops/mug.jpg", "keyframes/k0.jpg", "crops/other.jpg", "keyframes/k1.jpg"):
        (media / name).write_bytes(b"\xff\xd8" + bytes(500))
    secret = store.ingest_clip(
        clip(0, keyframes=["keyframes/k0.jpg"]),
        [
            observation(
                1, 0.0, [0, 0, 40, 40], red_mug, description="grandma's secret red mug", crop_path="crops/mug.jpg"
            )
        ],
        caption="kitchen: grandma's red mug on the counter",
    ).decisions[0]
    other_embedding = near(red_mug, 0.1, seed=70)
    other = store.ingest_clip(
        clip(DAY, keyframes=["keyframes/k1.jpg"]),
        [observation(1, DAY, [0, 0, 40, 40], other_embedding, description="blue bowl", crop_path="crops/other.jpg")],
        caption="kitchen: a blue bowl",
    ).decisions[0]
    store.db.execute(
        "INSERT INTO facts (entity_id, text, importance, first_confirmed, last_confirmed) "
        "VALUES (?, 'kept in the cupboard', 0.5, 0, 0)",
        (secret.entity_id,),
    )

    report = corrections.forget(store, secret.entity_id)
    assert (report.observations, report.files) == (1, 2) and report.bytes_freed == 2 * 502

    with pytest.raises(NotFoundError):
        store.entity(secret.entity_id)
    db = store.db
    assert db.query("SELECT count(*) FROM observations WHERE id = ?", (secret.observation_id,)) == [(0,)]
    assert db.query("SELECT count(*) FROM observation_boxes WHERE observation_id = ?", (secret.observation_id,)) == [
        (0,)
    ]
    assert db.query("SELECT count(*) FROM association_log WHERE observation_id = ?", (secret.observation_id,)) == [(0,)]
    assert db.query("SELECT count(*) FROM facts") == [(0,)]
    assert store.search_text("secret") == [] and store.search_text("grandma") == []
    assert [text for _, _, text in store.clip_captions()] == ["kitchen: a blue bowl"]  # its clip's caption went too
    assert store.db.query("SELECT count(*) FROM episode_fts WHERE episode_fts MATCH 'grandma'") == [(0,)]
    assert secret.observation_id not in [i for i, _ in store.nearest_observations(red_mug, "test-appearance", k=10)]
    assert store.counts()["vec_obs"] == 1 and store.counts()["vec_ref"] == 1
    assert not (media / "crops/mug.jpg").exists() and not (media / "keyframes/k0.jpg").exists()
    assert "secret" not in str(store.corrections()) and store.corrections()[-1]["action"] == "forget"
    # Everything else is intact.
    assert store.entity(other.entity_id).observations == 1
    assert (media / "crops/other.jpg").exists() and (media / "keyframes/k1.jpg").exists()
    assert [o.description for o in store.search_text("bowl")] == ["blue bowl"]
    # A new sighting of the forgotten mug starts from nothing.
    again = store.ingest_clip(clip(2 * DAY), [observation(1, 2 * DAY, [0, 0, 40, 40], red_mug)]).decisions[0]
    assert again.created_entity and secret.entity_id not in [c.entity_id for c in again.candidates]


def test_failed_correction_changes_nothing(store, red_mug):
    a = _sightings(store, red_mug, [0, 1])
    before = (store.counts(), store.reference_ids(a[0].entity_id))
    with pytest.raises(NotFoundError):
        corrections.merge(store, a[0].entity_id, 12345)
    assert (store.counts(), store.reference_ids(a[0].entity_id)) == before
    probe = store.ingest_clip(clip(5 * DAY), [observation(1, 5 * DAY, [0, 0, 40, 40], near(red_mug, 0.97, seed=99))])
    assert probe.decisions[0].entity_id == a[0].entity_id
