"""Faces as evidence of who a person is (issue 20): a face match joins a person across days in other clothes, a
different face keeps two people in the same clothes apart, ambiguous or absent faces leave the body rule to
decide as before; a person's faces stay bounded and diverse; enrolling, naming and forgetting people; the
switch that turns face processing off."""

from __future__ import annotations

import numpy as np
import pytest
from helpers.memory import DAY, clip, near, observation, unit

from edge_agent.config import FacesConfig
from edge_agent.memory import NotFoundError, Store, corrections, people
from edge_agent.memory.corrections import CorrectionError
from edge_agent.memory.faces import keep_faces, verdict

FACE = "face:test"


def _face(k: int) -> np.ndarray:
    """Person k's face: like dlib's space, faces of different people about 0.84 alike."""
    v = np.zeros(17, np.float32)
    v[0] = np.sqrt(0.84 / 0.16)
    v[1 + k] = 1.0
    return unit(v)


def _seen(store, t, body, face=None, *, track=1, box=(0, 0, 50, 200), crop=None):
    faces = None if face is None else np.stack([face])
    record = observation(
        track, t, box, body, kind="person", category="person", faces=faces, face_space=FACE, crop_path=crop
    )
    return store.ingest_clip(clip(t), [record]).decisions[0]


@pytest.fixture
def clothes():
    rng = np.random.default_rng(3)
    return [unit(rng.normal(size=32)) for _ in range(4)]  # four outfits, far apart


def test_a_face_match_is_the_same_person_on_another_day_in_other_clothes(store, clothes):
    monday = _seen(store, 0, clothes[0], _face(0))
    later = _seen(store, 600, near(clothes[0], 0.97, seed=1))  # no face: the body rule, as before
    tuesday = _seen(store, DAY, clothes[1], near(_face(0), 0.96, seed=2))  # other clothes, the same face
    assert monday.entity_id == later.entity_id == tuesday.entity_id
    chosen = next(c for c in tuesday.candidates if c.entity_id == monday.entity_id)
    assert chosen.face_verdict == "same" and chosen.face >= 0.92 and not chosen.qualifies  # the body alone: no
    # Tuesday's clothes count for the rest of Tuesday, whatever Monday's references say.
    assert _seen(store, DAY + 600, near(clothes[1], 0.97, seed=3)).entity_id == monday.entity_id
    # Someone in Monday's clothes on Wednesday, face unseen: a person known by face is not known by yesterday's
    # clothes.
    assert _seen(store, 2 * DAY, near(clothes[0], 0.99, seed=4)).entity_id != monday.entity_id


def test_without_faces_the_same_person_in_other_clothes_is_another_entity(tmp_path, clothes):
    with Store(tmp_path / "off", faces=FacesConfig(enabled=False)) as store:
        a = _seen(store, 0, clothes[0], _face(0))
        b = _seen(store, DAY, clothes[1], near(_face(0), 0.96, seed=2))
        assert a.entity_id != b.entity_id
        assert store.db.value("SELECT count(*) FROM observation_faces") == 0  # off: no face kept at all
        assert store.db.value("SELECT count(*) FROM face_refs") == 0


def test_a_different_face_keeps_two_people_in_the_same_clothes_apart(store, clothes):
    ann = _seen(store, 0, clothes[0], _face(0))
    visitor = _seen(store, 3600, near(clothes[0], 0.97, seed=4), _face(1))
    assert visitor.entity_id != ann.entity_id
    vetoed = next(c for c in visitor.candidates if c.entity_id == ann.entity_id)
    assert vetoed.qualifies and vetoed.face_verdict == "different"  # the body alone would have merged them
    assert store.db.value("SELECT count(*) FROM entity_relations") == 0  # not even 'possibly the same'


def test_ambiguous_faces_leave_the_body_to_decide(store, clothes):
    a = _seen(store, 0, clothes[0], _face(0))
    b = _seen(store, 100, clothes[1], _face(1))
    assert a.entity_id != b.entity_id
    between = unit(_face(0) + _face(1))  # 0.96 like both: a match to neither
    again = _seen(store, 3600, near(clothes[1], 0.97, seed=5), between)
    scores = {c.entity_id: c for c in again.candidates}
    assert scores[a.entity_id].face_verdict is None and scores[b.entity_id].face_verdict is None
    assert again.entity_id == b.entity_id  # its clothes


def test_faces_in_between_say_nothing(store, clothes):
    a = _seen(store, 0, clothes[0], _face(0))
    middling = near(_face(0), 0.89, seed=8)  # between different (0.86) and same (0.92)
    b = _seen(store, DAY, clothes[2], middling)
    assert b.entity_id != a.entity_id  # not a match: other clothes, a new entity
    c = next(c for c in b.candidates if c.entity_id == a.entity_id) if b.candidates else None
    assert c is None or c.face_verdict is None


def test_a_persons_faces_stay_bounded_and_diverse(store, clothes):
    config = FacesConfig(references=4)
    entity = _seen(store, 0, clothes[0]).entity_id
    base = _face(0)
    assert keep_faces(store.db, config, entity, FACE, np.stack([base, base]), enrolled=True) == 1  # a duplicate: no
    added = keep_faces(store.db, config, entity, FACE, np.stack([near(base, 0.95, seed=s) for s in range(10)]))
    assert added == 10
    rows = store.db.query("SELECT enrolled FROM face_refs WHERE entity_id = ?", (entity,))
    assert len(rows) == 4 and sum(r[0] for r in rows) == 1  # the enrolled one stays
    assert verdict(store.db, config, FACE, base[None, :]).match == entity


def test_enrolled_person_is_recognised_on_any_day_in_any_clothes(store, clothes):
    enrolled = people.enroll(store, "Alice", FACE, np.stack([_face(0), near(_face(0), 0.97, seed=9)]))
    assert enrolled.how == "new" and enrolled.added == 2 and enrolled.entity.name == "Alice"
    for day, outfit in enumerate(clothes):
        d = _seen(store, day * DAY, outfit, near(_face(0), 0.97, seed=20 + day))
        assert d.entity_id == enrolled.entity.id
    stranger = _seen(store, 5 * DAY, clothes[0], _face(1))
    assert stranger.entity_id != enrolled.entity.id
    assert [p.entity.name for p in people.named_people(store)] == ["Alice"]
    assert people.named_people(store)[0].enrolled == 2


def test_enrolling_names_the_unnamed_person_memory_already_knows(store, clothes):
    seen = _seen(store, 0, clothes[0], _face(2))
    enrolled = people.enroll(store, "Bob", FACE, np.stack([near(_face(2), 0.97, seed=1)]))
    assert enrolled.how == "recognised" and enrolled.entity.id == seen.entity_id
    again = people.enroll(store, "bob", FACE, np.stack([near(_face(2), 0.9, seed=2)]))
    assert again.how == "existing" and again.entity.id == seen.entity_id
    with pytest.raises(CorrectionError, match="1 to 100"):
        people.enroll(store, "  ", FACE, np.stack([_face(2)]))


def test_naming_an_entity_makes_a_named_person_of_it(store, clothes):
    d = _seen(store, 0, clothes[0], _face(3))
    corrections.rename(store, d.entity_id, "Carol")
    assert [p.entity.id for p in people.named_people(store)] == [d.entity_id]
    assert people.named_people(store)[0].faces == 1
    assert _seen(store, 3 * DAY, clothes[3], near(_face(3), 0.95, seed=1)).entity_id == d.entity_id


def test_forgetting_a_person_removes_name_faces_and_crops(store, clothes):
    crops = store.media_dir / "crops"
    crops.mkdir()
    (crops / "dave.jpg").write_bytes(b"\xff\xd8" + bytes(300))
    record = observation(
        1,
        0.0,
        (0, 0, 50, 200),
        clothes[0],
        kind="person",
        category="person",
        faces=np.stack([_face(4)]),
        face_space=FACE,
        crop_path="crops/dave.jpg",
        description="Dave in a red jumper",
    )
    d = store.ingest_clip(clip(0), [record], caption="hall: Dave came in").decisions[0]
    corrections.rename(store, d.entity_id, "Dave")
    people.enroll(store, "Dave", FACE, np.stack([near(_face(4), 0.9, seed=3)]))

    gone = people.forget(store, "dave")
    assert gone.entities == (d.entity_id,) and gone.faces == 3 and gone.pictures == 1 and gone.freed == 302
    db = store.db
    assert db.value("SELECT count(*) FROM face_refs") == 0
    assert db.value("SELECT count(*) FROM observation_faces") == 0
    assert not (crops / "dave.jpg").exists() and store.observation(d.observation_id).crop_path is None
    assert store.entity(d.entity_id).name is None and store.entity(d.entity_id).observations == 1  # seen, unnamed
    assert store.search_text("dave") == []
    assert db.value("SELECT count(*) FROM episode_fts WHERE episode_fts MATCH 'dave'") == 0
    assert "Dave" not in str(store.corrections()[-1]["details"])
    # The person comes again: a stranger now.
    assert _seen(store, DAY, clothes[1], near(_face(4), 0.97, seed=4)).entity_id != d.entity_id
    with pytest.raises(CorrectionError, match="no person named"):
        people.forget(store, "Dave")


def test_enrolling_needs_face_processing_on(tmp_path):
    with Store(tmp_path / "off", faces=FacesConfig(enabled=False)) as store:
        with pytest.raises(CorrectionError, match="face processing is off"):
            people.enroll(store, "Eve", FACE, np.stack([_face(0)]))


def test_merge_and_split_keep_faces_with_their_observations(store, clothes):
    a = _seen(store, 0, clothes[0], _face(5))
    b = _seen(store, DAY, clothes[1])  # no face: another entity
    assert a.entity_id != b.entity_id
    corrections.merge(store, a.entity_id, b.entity_id)
    assert store.db.value("SELECT count(*) FROM face_refs WHERE entity_id = ?", (a.entity_id,)) == 1
    c = _seen(store, 2 * DAY, clothes[2], near(_face(6), 0.99, seed=1), track=1)  # another person
    kept, new = corrections.split(store, a.entity_id, b.observation_id)
    assert store.db.value("SELECT count(*) FROM face_refs WHERE entity_id = ?", (new.id,)) == 0
    assert store.db.value("SELECT count(*) FROM face_refs WHERE entity_id = ?", (kept.id,)) == 1
    assert c.entity_id not in (kept.id, new.id)


def test_a_face_vector_must_be_a_persons_and_finite():
    from edge_agent.memory import InvalidRecordError

    with pytest.raises(InvalidRecordError, match="person's observation"):
        observation(1, 0, (0, 0, 9, 9), _face(0), faces=np.stack([_face(0)]))
    with pytest.raises(InvalidRecordError, match="finite"):
        observation(1, 0, (0, 0, 9, 9), _face(0), kind="person", category="person", faces=np.full((1, 4), np.nan))
    with pytest.raises(InvalidRecordError, match="zero norm"):
        observation(1, 0, (0, 0, 9, 9), _face(0), kind="person", category="person", faces=np.zeros((1, 4)))


def test_a_face_like_one_of_a_persons_faces_but_unlike_another_is_no_match(store, clothes):
    """GEB's two thresholds in face space: one kept face at `same` or more, none below `different`."""
    config = FacesConfig()
    entity = _seen(store, 0, clothes[0], _face(0)).entity_id
    keep_faces(store.db, config, entity, FACE, _face(1)[None, :])  # a wrong face slipped in (a misread)
    looks = verdict(store.db, config, FACE, near(_face(1), 0.99, seed=3)[None, :])
    assert looks.similarity[entity] >= 0.92 and looks.match is None and entity not in looks.not_
    assert verdict(store.db, config, FACE, _face(2)[None, :]).not_ == {entity}


def test_retention_keeps_an_enrolled_person_whose_sightings_all_went(store, clothes):
    from edge_agent.memory import retention
    from edge_agent.memory.retention import RetentionPolicy

    alice = people.enroll(store, "Alice", FACE, np.stack([_face(0)])).entity.id
    assert _seen(store, 0, clothes[0], near(_face(0), 0.97, seed=1)).entity_id == alice
    stranger = _seen(store, 600, clothes[1], _face(1)).entity_id
    retention.enforce(store, RetentionPolicy(max_age_days=1), now=30 * DAY, include_named=True)
    assert store.entity(alice).name == "Alice" and store.entity(alice).observations == 0
    assert [p.enrolled for p in people.named_people(store)] == [1]
    with pytest.raises(NotFoundError, match="no entity"):
        store.entity(stranger)
    assert _seen(store, 31 * DAY, clothes[2], near(_face(0), 0.97, seed=2)).entity_id == alice  # known again
