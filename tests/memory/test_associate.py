"""GEB section 3.3 association on a real store: look-alikes, re-identification days later, the
two-threshold rule, the bounded FIFO, the audit log and both candidate indexes."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from helpers.memory import DAY, SPACE, clip, near, observation, said, unit

from edge_agent.memory import AssociationConfig, InvalidRecordError, Store, Thresholds, corrections

INDEXES = ["matrix", "sqlite-vec"]


@pytest.fixture(params=INDEXES)
def any_store(request, tmp_path):
    with Store(tmp_path / "home", config=AssociationConfig(index=request.param)) as s:
        yield s


def test_lookalike_mugs_apart_on_shared_frames_are_two_entities(any_store, red_mug):
    striped, plain = red_mug, near(red_mug, 0.97, seed=1)  # embeddings alone would merge them
    result = any_store.ingest_clip(
        clip(0),
        [
            observation(1, 0.0, [100, 100, 140, 160], striped),
            observation(2, 0.0, [400, 100, 440, 160], plain),
        ],
    )
    first, second = result.decisions
    assert first.created_entity and second.created_entity and first.entity_id != second.entity_id
    (candidate,) = second.candidates
    assert candidate.qualifies and candidate.vetoed_by == first.observation_id
    assert candidate.separation_fraction == 1.0
    assert len(any_store.entities()) == 2


def test_in_one_clip_the_likelier_of_two_lookalikes_takes_the_entity_whichever_came_first(any_store, red_mug):
    """A clip's observations are decided likest first: the look-alike in view first (0.93 like the mug) does not take
    the mug's entity from the mug itself (0.98), which the separation veto would then keep out as a new one."""
    mug = any_store.ingest_clip(clip(0), [observation(1, 0.0, [100, 100, 140, 160], red_mug)]).decisions[0]
    lookalike, itself = near(red_mug, 0.93, seed=7), near(red_mug, 0.98, seed=8)
    result = any_store.ingest_clip(
        clip(100),
        [
            observation(1, 100.0, [400, 100, 440, 160], lookalike),
            observation(2, 100.0, [100, 100, 140, 160], itself),
        ],
    )
    first, second = result.decisions
    assert [first.observation_id, second.observation_id] == sorted([first.observation_id, second.observation_id])
    assert second.entity_id == mug.entity_id and not second.created_entity
    assert first.created_entity
    (vetoed,) = [c for c in first.candidates if c.entity_id == mug.entity_id]
    assert vetoed.qualifies and vetoed.vetoed_by == second.observation_id


def test_same_mug_days_later_is_one_entity(any_store, red_mug):
    first = any_store.ingest_clip(clip(0), [observation(1, 0.0, [100, 100, 140, 160], red_mug)])
    later = any_store.ingest_clip(
        clip(3 * DAY), [observation(1, 3 * DAY, [300, 50, 340, 110], near(red_mug, 0.95, seed=2))]
    )
    assert later.decisions[0].entity_id == first.decisions[0].entity_id
    assert not later.decisions[0].created_entity
    entity = any_store.entity(first.decisions[0].entity_id)
    assert entity.observations == 2 and entity.first_seen == 0.0 and entity.last_seen == pytest.approx(3 * DAY + 1.5)


def test_one_supporting_reference_does_not_outvote_a_contradicting_one(any_store, red_mug):
    thresholds = any_store.config.thresholds["object"]
    other = near(red_mug, 0.5, seed=3)
    e = any_store.ingest_clip(clip(0), [observation(1, 0.0, [0, 0, 40, 40], red_mug)]).decisions[0].entity_id
    # A second, dissimilar reference joins the same entity through the user's merge.
    f = any_store.ingest_clip(clip(100), [observation(1, 100.0, [0, 0, 40, 40], other)]).decisions[0].entity_id
    assert e != f
    corrections.merge(any_store, e, f)
    probe = near(red_mug, 0.97, seed=4)  # >= tau_high to one reference, < tau_low to the other
    assert float(probe @ red_mug) >= thresholds.tau_high and float(probe @ other) < thresholds.tau_low
    decision = any_store.ingest_clip(clip(200), [observation(1, 200.0, [0, 0, 40, 40], probe)]).decisions[0]
    assert decision.created_entity
    (candidate,) = decision.candidates
    assert candidate.entity_id == e and not candidate.qualifies
    assert candidate.max_sim >= thresholds.tau_high and candidate.min_sim < thresholds.tau_low


def test_reference_fifo_stays_bounded_and_keeps_the_newest(any_store, red_mug):
    ids = []
    for day in range(10):
        r = any_store.ingest_clip(
            clip(day * DAY), [observation(1, day * DAY, [0, 0, 40, 40], near(red_mug, 0.96, seed=day))]
        )
        ids.append(r.decisions[0].observation_id)
    (entity,) = any_store.entities()
    assert entity.observations == 10
    assert any_store.reference_ids(entity.id) == ids[-4:]
    assert any_store.counts()["vec_ref"] == 4 and any_store.counts()["entity_refs"] == 4


def test_a_thing_seen_in_someone_s_hands_joins_its_entity_but_is_no_reference(any_store, red_mug):
    """Carried, a thing is turned and half hidden (on a worn camera, the room passes behind it): those sightings join
    its entity and do not push out the references of how it looks where it stands; one seen only so begins its
    entity with itself; a merge's rebuilt references leave them out the same way."""
    standing = [
        any_store.ingest_clip(
            clip(k * 100), [observation(1, k * 100.0, [0, 0, 40, 40], near(red_mug, 0.97, seed=k), description=said())]
        ).decisions[0]
        for k in range(4)
    ]
    entity = standing[0].entity_id
    carried = [
        any_store.ingest_clip(
            clip(1000 + k * 100),
            [
                observation(
                    1,
                    1000 + k * 100.0,
                    [0, 0, 40, 40],
                    near(red_mug, 0.95, seed=10 + k),
                    description=said(motion="moving left"),
                )
            ],
        ).decisions[0]
        for k in range(3)
    ]
    assert {d.entity_id for d in carried} == {entity}
    assert any_store.reference_ids(entity) == [d.observation_id for d in standing]
    bowl = unit(np.eye(32)[5] + 0.05)
    only_carried = any_store.ingest_clip(
        clip(2000),
        [observation(1, 2000.0, [0, 0, 40, 40], bowl, category="bowl", description=said("bowl", motion="moving up"))],
    ).decisions[0]
    assert only_carried.created_entity and any_store.reference_ids(only_carried.entity_id) == [
        only_carried.observation_id
    ]
    corrections.merge(any_store, entity, only_carried.entity_id)
    assert any_store.reference_ids(entity) == [d.observation_id for d in standing]


def test_highest_mean_similarity_wins(any_store, red_mug):
    a = any_store.ingest_clip(clip(0), [observation(1, 0.0, [0, 0, 40, 40], red_mug)]).decisions[0].entity_id
    blue = near(red_mug, 0.93, seed=5)
    b = any_store.ingest_clip(clip(20), [observation(1, 20.0, [0, 0, 40, 40], blue)]).decisions[0]
    assert b.entity_id == a  # 0.93 >= tau_high: same entity
    probe = near(blue, 0.99, seed=6)
    decision = any_store.ingest_clip(clip(40), [observation(1, 40.0, [0, 0, 40, 40], probe)]).decisions[0]
    assert decision.entity_id == a


def test_the_thing_with_a_near_identical_sighting_beats_a_lookalike_liker_on_average(tmp_path):
    """Two qualifying candidates: a look-alike whose references are all fairly like the observation (mean 0.91)
    and the thing itself, seen under two lights (0.99 and 0.80: mean 0.895). The thing itself wins (mean plus
    greatest similarity); by the mean alone the look-alike would."""
    e = np.eye(8, dtype=np.float32)
    probe = e[0]
    mine = [unit(0.99 * e[0] + np.sqrt(1 - 0.99**2) * e[1]), unit(0.80 * e[0] + 0.6 * e[2])]
    theirs = [unit(0.91 * e[0] + np.sqrt(1 - 0.91**2) * e[k]) for k in (3, 4)]
    apart = AssociationConfig(thresholds={k: Thresholds(0.999, 0.999) for k in ("person", "animal", "object")})
    with Store(tmp_path / "home", config=apart) as s:  # every sighting its own entity, then two of each joined
        ids = [
            s.ingest_clip(clip(60.0 * i), [observation(1, 60.0 * i, [0, 0, 40, 40], v)]).decisions[0].entity_id
            for i, v in enumerate([*mine, *theirs])
        ]
        corrections.merge(s, ids[0], ids[1])
        corrections.merge(s, ids[2], ids[3])
    with Store(tmp_path / "home") as s:
        decision = s.ingest_clip(clip(600), [observation(1, 600.0, [0, 0, 40, 40], probe)]).decisions[0]
    scores = {c.entity_id: c for c in decision.candidates}
    assert scores[ids[0]].qualifies and scores[ids[2]].qualifies
    assert scores[ids[2]].mean_sim > scores[ids[0]].mean_sim
    assert decision.entity_id == ids[0]


@pytest.mark.parametrize(
    ("case", "same"),
    [
        ("in place", True),
        ("elsewhere", False),
        ("moving camera", False),
        ("seen since on another camera", False),
        ("off", False),
    ],
)
def test_a_thing_still_where_it_was_left_keeps_its_biography_under_another_light(tmp_path, red_mug, case, same):
    """GEB's rule alone starts a new biography (one reference 0.84 alike, tau_high 0.88); first seen where it was
    last seen, on a fixed camera, the thing is the same: not seen elsewhere, nor on a camera that moves, nor when it
    was seen since on another camera, nor with the cue off."""
    spot = [100, 100, 140, 160]
    config = AssociationConfig(still_iou=0.0) if case == "off" else AssociationConfig()
    with Store(tmp_path / "home", config=config) as store:
        first = store.ingest_clip(clip(0), [observation(1, 0.0, spot, red_mug)]).decisions[0]
        if case == "seen since on another camera":
            store.ingest_clip(clip(DAY / 2, camera="hall"), [observation(1, DAY / 2, spot, red_mug)])
        where = [400, 100, 440, 160] if case == "elsewhere" else [102, 98, 142, 158]
        later_clip = replace(clip(DAY), moving=case == "moving camera")
        later = store.ingest_clip(later_clip, [observation(1, DAY, where, near(red_mug, 0.84, seed=3))]).decisions[0]
        assert (later.entity_id == first.entity_id) is same and later.created_entity is not same
        (candidate,) = later.candidates
        assert not candidate.qualifies  # GEB's two thresholds alone
        if same:
            assert candidate.in_place == pytest.approx(2204 / 2596)  # the boxes' IoU
            (row,) = store.db.query(
                "SELECT candidates FROM association_log WHERE observation_id = ?", (later.observation_id,)
            )
            assert '"in_place"' in row[0]
        else:
            assert candidate.in_place is None


def test_no_veto_ablation_merges_lookalikes(tmp_path, red_mug):
    with Store(tmp_path / "h", config=AssociationConfig(use_separation=False)) as s:
        result = s.ingest_clip(
            clip(0),
            [
                observation(1, 0.0, [100, 100, 140, 160], red_mug),
                observation(2, 0.0, [400, 100, 440, 160], near(red_mug, 0.97, seed=1)),
            ],
        )
        assert result.decisions[0].entity_id == result.decisions[1].entity_id


def test_kinds_spaces_and_cameras(any_store, red_mug):
    person = any_store.ingest_clip(
        clip(0), [observation(1, 0.0, [0, 0, 40, 90], red_mug, kind="person", category="person")]
    )
    cup = any_store.ingest_clip(clip(20), [observation(1, 20.0, [0, 0, 40, 40], red_mug)])
    other_space = any_store.ingest_clip(clip(40), [observation(1, 40.0, [0, 0, 40, 40], red_mug, space="other")])
    ids = {person.decisions[0].entity_id, cup.decisions[0].entity_id, other_space.decisions[0].entity_id}
    assert len(ids) == 3  # never compared across kinds or embedding spaces
    # Same kind and space, another camera at the same time: no shared frames, so no veto.
    again = any_store.ingest_clip(clip(20, camera="hall"), [observation(1, 20.0, [300, 0, 340, 40], red_mug)])
    assert again.decisions[0].entity_id == cup.decisions[0].entity_id


def test_decisions_are_logged_with_numbers(any_store, red_mug):
    any_store.ingest_clip(clip(0), [observation(1, 0.0, [0, 0, 40, 40], red_mug)])
    r = any_store.ingest_clip(clip(50), [observation(1, 50.0, [0, 0, 40, 40], near(red_mug, 0.95, seed=7))])
    (logged,) = any_store.decisions(observation_id=r.decisions[0].observation_id)
    assert logged == r.decisions[0]
    assert logged.candidates[0].min_sim == pytest.approx(0.95, abs=1e-4)
    assert len(any_store.decisions(entity_id=logged.entity_id)) == 2
    assert (logged.tau_low, logged.tau_high) == (0.75, 0.88)  # the thresholds used, as they were


def test_failed_clip_rolls_back_and_leaves_the_index_clean(any_store, red_mug):
    any_store.ingest_clip(clip(0), [observation(1, 0.0, [0, 0, 40, 40], red_mug)])
    before = any_store.counts()
    bad = observation(2, 10.0, [0, 0, 40, 40], np.ones(5, np.float32))  # 5 dims in a 32-dim space
    with pytest.raises(InvalidRecordError, match="has 32 dimensions, got a vector of 5"):
        any_store.ingest_clip(clip(10), [observation(1, 10.0, [100, 0, 140, 40], near(red_mug, 0.5, seed=8)), bad])
    assert any_store.counts() == before
    # The rolled-back observation never became anybody's reference.
    probe = any_store.ingest_clip(clip(20), [observation(1, 20.0, [100, 0, 140, 40], near(red_mug, 0.5, seed=8))])
    assert probe.decisions[0].created_entity


def test_another_writer_is_seen(tmp_path, red_mug):
    home = tmp_path / "shared"
    with Store(home) as a, Store(home) as b:
        first = b.ingest_clip(clip(0), [observation(1, 0.0, [0, 0, 40, 40], red_mug)])
        seen = a.ingest_clip(clip(30), [observation(1, 30.0, [0, 0, 40, 40], near(red_mug, 0.96, seed=9))])
        assert seen.decisions[0].entity_id == first.decisions[0].entity_id


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"reference_set_size": 0}, r"(?s)reference_set_size.*greater than or equal to 1"),
        ({"candidate_entities": 0}, r"(?s)candidate_entities.*greater than or equal to 1"),
        ({"thresholds": {"person": Thresholds(0.5, 0.7)}}, "thresholds missing for kind"),
        ({"index": "faiss"}, r"(?s)index.*should be 'matrix' or 'sqlite-vec'"),
        ({"separation_min_fraction": 2.0}, r"(?s)separation_min_fraction.*less than or equal to 1"),
    ],
)
def test_bad_config(kwargs, match):
    with pytest.raises(ValueError, match=match):
        AssociationConfig(**kwargs)


def test_bad_thresholds():
    with pytest.raises(ValueError, match="tau_low <= tau_high"):
        Thresholds(0.9, 0.5)


def test_indexes_agree_on_a_stream(tmp_path):
    rng = np.random.default_rng(11)
    prototypes = [unit(rng.normal(size=32)) for _ in range(6)]
    decisions = {}
    for index in INDEXES:
        with Store(tmp_path / index, config=AssociationConfig(index=index)) as s:
            out = []
            for i in range(40):
                p = prototypes[i % 6]
                r = s.ingest_clip(clip(i * 60.0), [observation(1, i * 60.0, [0, 0, 40, 40], near(p, 0.98, seed=i))])
                out.append(r.decisions[0].entity_id)
            decisions[index] = out
    assert decisions["matrix"] == decisions["sqlite-vec"]
    assert len(set(decisions["matrix"])) == 6


def test_space_name_is_recorded(store, red_mug):
    store.ingest_clip(clip(0), [observation(1, 0.0, [0, 0, 40, 40], red_mug)])
    assert store.vector_tables() == [(1, 32)]
    assert SPACE in store._spaces


def test_a_couch_never_absorbs_a_cell_phone(any_store, red_mug):
    couch = any_store.ingest_clip(clip(0), [observation(1, 0.0, [0, 0, 200, 100], red_mug, category="couch")])
    phone = any_store.ingest_clip(
        clip(3 * DAY), [observation(1, 3 * DAY, [50, 50, 70, 90], near(red_mug, 0.99, seed=12), category="cell phone")]
    )
    decision = phone.decisions[0]
    assert decision.created_entity and decision.entity_id != couch.decisions[0].entity_id
    (candidate,) = decision.candidates  # scored and logged with the reason, never chosen
    assert candidate.entity_id == couch.decisions[0].entity_id and candidate.qualifies
    assert candidate.incompatible_category == "couch" and candidate.vetoed_by is None
    (logged,) = any_store.decisions(observation_id=decision.observation_id)
    assert logged == decision
    assert sorted(e.category for e in any_store.entities()) == ["cell phone", "couch"]


def test_a_car_may_become_a_truck_and_keeps_its_first_category(any_store, red_mug):
    car = any_store.ingest_clip(clip(0), [observation(1, 0.0, [0, 0, 200, 100], red_mug, category="car")])
    truck = any_store.ingest_clip(
        clip(DAY), [observation(1, DAY, [0, 0, 200, 100], near(red_mug, 0.97, seed=13), category="truck")]
    )
    decision = truck.decisions[0]
    assert decision.entity_id == car.decisions[0].entity_id and not decision.created_entity
    assert decision.candidates[0].incompatible_category is None
    assert any_store.entity(decision.entity_id).category == "car"


def test_other_categories_do_not_crowd_out_a_compatible_candidate(tmp_path, red_mug):
    with Store(tmp_path / "h", config=AssociationConfig(candidate_entities=2)) as s:
        cup = s.ingest_clip(clip(0), [observation(1, 0.0, [0, 0, 40, 40], near(red_mug, 0.95, seed=14))])
        for k, category in enumerate(("book", "clock")):  # nearer to the probe than the cup is
            s.ingest_clip(
                clip((k + 1) * DAY),
                [observation(1, (k + 1) * DAY, [0, 0, 40, 40], near(red_mug, 0.999, seed=15 + k), category=category)],
            )
        probe = s.ingest_clip(clip(5 * DAY), [observation(1, 5 * DAY, [0, 0, 40, 40], red_mug)]).decisions[0]
        assert probe.entity_id == cup.decisions[0].entity_id
        assert sorted(c.incompatible_category or "" for c in probe.candidates) == ["", "book", "clock"]


def test_old_log_rows_without_the_category_field_still_load():
    from edge_agent.memory.associate import score_from_json

    old = {
        "entity": 3,
        "min": 0.9,
        "max": 0.95,
        "mean": 0.92,
        "qualifies": True,
        "vetoed_by": 7,
        "separation_fraction": 1.0,
    }
    score = score_from_json(old)
    assert (score.vetoed_by, score.incompatible_category) == (7, None)
    assert score_from_json({**old, "incompatible_category": "couch"}).incompatible_category == "couch"


def test_the_proposed_entity_respects_the_category_when_given(store, red_mug):
    couch = store.ingest_clip(clip(0), [observation(1, 0.0, [0, 0, 200, 100], red_mug, category="couch")])
    probe = near(red_mug, 0.99, seed=16)
    assert store.propose("object", SPACE, probe).id == couch.decisions[0].entity_id  # similarity alone
    assert store.propose("object", SPACE, probe, "chair").id == couch.decisions[0].entity_id
    assert store.propose("object", SPACE, probe, "cell phone") is None


@pytest.mark.parametrize("offset", [3e-4, -3e-4])
def test_a_float16_matrix_takes_close_calls_on_float32_vectors(tmp_path, red_mug, monkeypatch, offset):
    """A similarity within float16's error of a threshold is decided on memory's float32 vectors: the same decision
    as a float32 matrix; a clear decision never reads them."""
    from edge_agent.memory.associate import MatrixIndex

    reads = []
    original = MatrixIndex.exact_references

    def spy(self, *args):
        reads.append(args)
        return original(self, *args)

    monkeypatch.setattr(MatrixIndex, "exact_references", spy)
    decisions = {}
    for precision in ("float32", "float16"):
        reads.clear()
        with Store(tmp_path / precision, config=AssociationConfig(matrix_precision=precision)) as s:
            tau = s.config.thresholds_for("object", SPACE).tau_high
            first = s.ingest_clip(clip(0), [observation(1, 0.0, [0, 0, 40, 40], red_mug)]).decisions[0]
            far = s.ingest_clip(clip(60), [observation(1, 60.0, [0, 0, 40, 40], near(red_mug, 0.2, seed=3))])
            assert reads == [] and far.decisions[0].created_entity  # clearly another thing: no float32 read
            close = s.ingest_clip(  # elsewhere: not where it was last seen
                clip(DAY), [observation(1, DAY, [200, 0, 240, 40], near(red_mug, tau + offset, seed=4))]
            ).decisions[0]
            decisions[precision] = close.entity_id == first.entity_id
            (score,) = [c for c in close.candidates if c.entity_id == first.entity_id]
            assert score.max_sim == pytest.approx(tau + offset, abs=1e-6)  # the exact similarity is what is logged
            assert len(reads) == (precision == "float16")
    assert decisions["float16"] == decisions["float32"] == (offset > 0)
