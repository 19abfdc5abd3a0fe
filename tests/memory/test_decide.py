"""GEB section 3.3 as a pure decision (edge_agent.memory.decide): tables of cases on plain values, no SQLite.

Each case gives the observation, its candidates' references (as cosine similarities to the observation), the boxes
of references seen at the same time, what the faces say, and checks the decision: join which entity or start a new
one, and the rule that decided."""

from __future__ import annotations

import ast
import inspect

import numpy as np
import pytest
from helpers.memory import observation

from edge_agent.memory import AssociationConfig, Thresholds
from edge_agent.memory import decide as decide_module
from edge_agent.memory.decide import Evidence, LastSeen, Reason, References, decide, likeness
from edge_agent.memory.faces import FaceVerdict

THRESHOLDS = Thresholds(0.6, 0.85)
CONFIG = AssociationConfig()
HERE = [100, 100, 140, 160]  #: the observation's box on each of its 4 frames (0, 500, 1000, 1500 ms)
ELSEWHERE = [400, 100, 440, 160]
AXIS = np.eye(8, dtype=np.float32)[0]


def at(cosine: float, k: int = 1) -> np.ndarray:
    """A unit vector at ``cosine`` to the observation's embedding (``k`` picks the direction of the rest)."""
    v = np.zeros(8, np.float32)
    v[0], v[k] = cosine, np.sqrt(max(0.0, 1.0 - cosine**2))
    return v


def refs(table: dict[int, list[float]]) -> References:
    """References of each entity at these similarities; the reference observation ids are entity * 10 + rank."""
    rows = [
        (entity, entity * 10 + rank, at(s, 1 + rank)) for entity, sims in table.items() for rank, s in enumerate(sims)
    ]
    if not rows:
        return References.empty(8)
    return References(
        np.stack([v for _, _, v in rows]),
        np.array([e for e, _, _ in rows], np.int64),
        np.array([o for _, o, _ in rows], np.int64),
    )


def boxes(box: list[float], frames_ms: list[int]) -> tuple[np.ndarray, np.ndarray]:
    return np.array(frames_ms, np.int64), np.tile(np.asarray(box, np.float32), (len(frames_ms), 1))


def evidence(table: dict[int, list[float]], **more) -> Evidence:
    return Evidence(references=refs(table), **more)


def run(ev: Evidence, *, config=CONFIG, kind="object", camera="kitchen", moving=False):
    record = observation(1, 0.0, HERE, AXIS, kind=kind)
    return decide(record, ev, config, THRESHOLDS, camera=camera, moving=moving)


# --- GEB's two thresholds: every reference >= tau_low, one >= tau_high ---


@pytest.mark.parametrize(
    ("sims", "joins", "reason"),
    [
        ([0.9], True, Reason.QUALIFIED),
        ([0.9, 0.7, 0.65], True, Reason.QUALIFIED),
        ([0.85, 0.6], True, Reason.QUALIFIED),  # both thresholds are inclusive
        ([0.95, 0.5], False, Reason.BELOW_TAU_LOW),  # one supporting reference does not outvote a contradicting one
        ([0.5], False, Reason.BELOW_TAU_LOW),
        ([0.84, 0.8, 0.7], False, Reason.BELOW_TAU_HIGH),  # like on average, but no reference close enough
        ([0.7], False, Reason.BELOW_TAU_HIGH),
    ],
)
def test_the_two_thresholds(sims, joins, reason):
    d = run(evidence({3: sims}))
    assert d.entity_id == (3 if joins else None) and d.created is not joins
    assert d.reason is reason
    (score,) = d.scores
    assert score.qualifies is joins and score.min_sim == pytest.approx(min(sims), abs=1e-6)
    assert score.max_sim == pytest.approx(max(sims), abs=1e-6)
    assert score.mean_sim == pytest.approx(np.mean(sims), abs=1e-6)
    assert (d.tau_low, d.tau_high) == (THRESHOLDS.tau_low, THRESHOLDS.tau_high)


def test_no_candidate_is_a_new_entity():
    d = run(Evidence())
    assert d.created and d.reason is Reason.NO_CANDIDATE and d.scores == () and d.winner is None


# --- Among those that qualify: the likest (mean + greatest), the lower id on a tie ---


@pytest.mark.parametrize(
    ("table", "winner"),
    [
        ({3: [0.9], 7: [0.95]}, 7),
        ({3: [0.95], 7: [0.9]}, 3),
        ({3: [0.99, 0.62], 7: [0.86, 0.86]}, 3),  # a near-identical sighting beats a look-alike liker on average
        ({3: [0.9, 0.5], 7: [0.86]}, 7),  # the liker one does not qualify
        ({7: [0.9, 0.8], 3: [0.9, 0.8]}, 3),  # a tie: the older entity
        ({3: [0.9, 0.8], 7: [0.9, 0.8]}, 3),  # whatever the order the search found them in
    ],
)
def test_the_likest_qualifying_candidate_wins(table, winner):
    d = run(evidence(table))
    assert d.entity_id == winner and d.reason is Reason.QUALIFIED
    assert [likeness(s) for s in d.scores] == sorted((likeness(s) for s in d.scores), reverse=True)  # likest first


# --- The separation veto: two things seen at once in separate boxes are two things ---


@pytest.mark.parametrize(
    ("reference_boxes", "config", "vetoed"),
    [
        (boxes(ELSEWHERE, [0, 500, 1000, 1500]), CONFIG, True),  # apart on every shared frame
        (boxes(ELSEWHERE, [500, 1000]), CONFIG, True),  # two shared frames are enough
        (boxes(ELSEWHERE, [1000]), CONFIG, False),  # one shared frame is no evidence
        (boxes(ELSEWHERE, [2000, 2500]), CONFIG, False),  # no frame shared
        (boxes(HERE, [0, 500, 1000, 1500]), CONFIG, False),  # the same box: the same thing, seen twice
        (boxes([102, 100, 142, 160], [0, 500]), CONFIG, False),  # IoU 0.9: the same thing, moved a little
        (boxes(ELSEWHERE, [0, 500, 1000, 1500]), CONFIG.model_copy(update={"use_separation": False}), False),
    ],
    ids=["apart", "two-frames", "one-frame", "no-shared-frame", "same-box", "overlapping-box", "no-veto-ablation"],
)
def test_the_separation_veto(reference_boxes, config, vetoed):
    d = run(evidence({3: [0.97]}, overlapping={30: reference_boxes}), config=config)
    (score,) = d.scores
    assert score.qualifies  # the embeddings alone would join them
    if vetoed:
        assert d.created and d.reason is Reason.SEPARATED
        assert score.vetoed_by == 30 and score.separation_fraction == 1.0
    else:
        assert d.entity_id == 3 and score.vetoed_by is None


def test_the_veto_names_the_first_reference_seen_apart():
    apart = boxes(ELSEWHERE, [0, 500])
    d = run(evidence({3: [0.97, 0.9, 0.9]}, overlapping={32: apart, 31: apart}))
    assert d.created and d.scores[0].vetoed_by == 31


def test_a_veto_on_the_likest_leaves_the_next_one():
    d = run(evidence({3: [0.97], 7: [0.9]}, overlapping={30: boxes(ELSEWHERE, [0, 500])}))
    assert d.entity_id == 7 and d.reason is Reason.QUALIFIED
    assert {s.entity_id: s.vetoed_by for s in d.scores} == {3: 30, 7: None}


# --- Faces: a match wins whatever the clothes; a face unlike every face of a candidate vetoes it ---


@pytest.mark.parametrize(
    ("table", "faces", "winner", "reason"),
    [
        ({5: [0.3]}, FaceVerdict({5: 0.9}, match=5), 5, Reason.FACE),  # other clothes, the same face
        ({}, FaceVerdict({5: 0.9}, match=5), 5, Reason.FACE),  # known by face alone (enrolled from a picture)
        ({3: [0.99], 5: [0.86]}, FaceVerdict({5: 0.9}, match=5), 5, Reason.FACE),  # the face beats a liker body
        ({5: [0.95]}, FaceVerdict({5: 0.1}, not_=frozenset({5})), None, Reason.OTHER_FACE),
        ({5: [0.95]}, FaceVerdict({5: 0.5}), 5, Reason.QUALIFIED),  # an ambiguous face: the body decides
    ],
)
def test_faces(table, faces, winner, reason):
    d = run(Evidence(references=refs(table), faces=faces), kind="person")
    assert d.entity_id == winner and d.reason is reason
    assert {s.entity_id: s.face for s in d.scores}[5] == faces.similarity[5]


def test_a_face_match_seen_apart_is_still_vetoed():
    ev = Evidence(
        references=refs({5: [0.3]}),
        faces=FaceVerdict({5: 0.9}, match=5),
        overlapping={50: boxes(ELSEWHERE, [0, 500])},
    )
    d = run(ev, kind="person")
    assert d.created and d.reason is Reason.SEPARATED and d.scores[0].face_verdict == "same"


# --- Categories and enrolled things ---


def test_a_candidate_of_another_category_is_never_chosen():
    d = run(Evidence(incompatible={4: "couch"}, references=refs({4: [0.99]})))
    assert d.created and d.reason is Reason.OTHER_CATEGORY
    assert d.scores[0].incompatible_category == "couch" and d.possibly_same == ()


def test_the_category_is_named_only_where_it_decided():
    d = run(Evidence(incompatible={4: "couch"}, references=refs({4: [0.5]})))
    assert d.reason is Reason.BELOW_TAU_LOW and d.scores[0].incompatible_category is None


@pytest.mark.parametrize(
    ("table", "incompatible", "winner"),
    [
        ({}, {}, 9),  # enrolled, never seen
        ({9: [0.3]}, {}, 9),  # seen, in another light than the pictures: the pictures let it in
        ({9: [0.3]}, {9: "couch"}, None),  # enrolled as another category
    ],
)
def test_a_thing_enrolled_from_pictures(table, incompatible, winner):
    ev = Evidence(
        incompatible=incompatible,
        references=refs(table),
        enrolled={9: (True, 0.7, 0.9, 0.8)},
    )
    d = run(ev)
    assert d.entity_id == winner and d.enrolled is (winner is not None)


# --- Still in place: an object on a fixed camera where a candidate was last seen, in another light ---

IN_PLACE = {3: [0.82, 0.7]}  #: like it (mean >= tau_low, greatest >= still_tau_high) but below tau_high


@pytest.mark.parametrize(
    ("last_seen", "moving", "table", "joins"),
    [
        (LastSeen("kitchen", np.array([HERE], np.float32)), False, IN_PLACE, True),
        (LastSeen("kitchen", np.array([HERE], np.float32)), True, IN_PLACE, False),  # a moving camera
        (LastSeen("hall"), False, IN_PLACE, False),  # last seen on another camera
        (LastSeen("kitchen", np.array([ELSEWHERE], np.float32)), False, IN_PLACE, False),  # somewhere else
        (LastSeen("kitchen", np.array([HERE], np.float32)), False, {3: [0.79, 0.7]}, False),  # below still_tau_high
        (LastSeen("kitchen", np.array([HERE], np.float32)), False, {3: [0.82, 0.3]}, False),  # mean below tau_low
    ],
)
def test_still_in_place(last_seen, moving, table, joins):
    d = run(evidence(table, last_seen={3: last_seen}), moving=moving)
    assert d.entity_id == (3 if joins else None)
    if joins:
        assert d.reason is Reason.IN_PLACE and d.scores[0].in_place == pytest.approx(1.0)


def test_in_place_is_only_for_objects():
    ev = evidence(IN_PLACE, last_seen={3: LastSeen("kitchen", np.array([HERE], np.float32))})
    assert run(ev, kind="person").created


# --- Unresolved identity: who did not win but is like it is possibly the same; what resolves it ---


@pytest.mark.parametrize(
    ("more", "config", "related"),
    [
        ({}, CONFIG, ((7, 0.9),)),
        ({"overlapping": {70: boxes(ELSEWHERE, [0, 500])}}, CONFIG, ()),  # seen apart: not the same
        ({"incompatible": {7: "couch"}}, CONFIG, ()),
        ({"faces": FaceVerdict({7: 0.1}, not_=frozenset({7}))}, CONFIG, ()),
        ({}, CONFIG.model_copy(update={"possibly_same": False}), ()),
        ({}, CONFIG.model_copy(update={"use_separation": False}), ()),  # without the veto, no evidence either way
    ],
)
def test_possibly_the_same(more, config, related):
    d = run(evidence({3: [0.97], 7: [0.9]}, **more), config=config)
    assert d.entity_id == 3
    assert [(e, pytest.approx(s, abs=1e-6)) for e, s in d.possibly_same] == list(related)


def test_an_observation_too_unlike_on_average_relates_nothing():
    d = run(evidence({3: [0.97], 7: [0.8, 0.3]}))  # mean 0.55 < tau_low
    assert d.entity_id == 3 and d.possibly_same == ()


def test_a_new_entity_may_be_possibly_the_same_as_a_candidate():
    d = run(evidence({7: [0.8, 0.75]}))
    assert d.created and d.possibly_same == ((7, pytest.approx(0.775, abs=1e-6)),)


@pytest.mark.parametrize(
    ("table", "joinable"),
    [
        ({3: [0.97, 0.95], 7: [0.96, 0.93]}, (7,)),  # every reference of both at join_similarity or more
        ({3: [0.97, 0.95], 7: [0.96, 0.9]}, ()),
        ({3: [0.97, 0.9], 7: [0.96, 0.93]}, ()),
    ],
)
def test_what_may_join_two_entities(table, joinable):
    d = run(evidence(table))
    assert d.entity_id == 3 and d.joinable == joinable


def test_decide_reads_no_database():
    """Everything decide needs is passed in: the module imports nothing of memory's database."""
    tree = ast.parse(inspect.getsource(decide_module))
    imported = {
        node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module is not None
    } | {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    assert not {m for m in imported if m.endswith((".db", "sqlite3", "sqlite_vec"))}
