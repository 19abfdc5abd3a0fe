"""Rules in synthetic worlds: the true alerts a hand-made script should raise (persistence, release,
cooldown, occlusion, absence counted in recorded time), and the one-to-one scoring of raised alerts
against them (precision, recall, delay)."""

from __future__ import annotations

import pytest

from edge_agent.eval.alerts import (
    RaisedAlert,
    TrueAlert,
    episodes,
    match_alerts,
    score_alerts,
    summarize_alerts,
    true_alerts,
)
from edge_agent.eval.world import Scenario, Session, World
from edge_agent.rules.parse import parse_rule
from edge_agent.rules.resolver import ResolverSettings

SETTINGS = ResolverSettings(persist_frames=3, release_s=60.0)
ON, OFF, KEYS = (150.0, 150.0, 220.0, 200.0), (320.0, 150.0, 390.0, 200.0), (420.0, 200.0, 450.0, 220.0)


def _session(
    index: int, t0: float, frames: list[dict[str, tuple[float, float, float, float]]], fps: float = 2.0
) -> Session:
    shown = [list(f.items()) for f in frames]
    return Session(index, t0, fps, len(frames), boxes=[list(s) for s in shown], true_boxes=shown)


def _world(sessions: list[Session]) -> World:
    scenario = Scenario.model_validate(
        {
            "name": "hand",
            "places": ["sofa", "door"],
            "entities": [
                {"id": "dog", "category": "dog"},
                {"id": "keys", "category": "keys"},
                {"id": "al", "category": "person"},
            ],
            "rules": [
                {"text": "notify me when the dog is on the sofa"},
                {"text": "tell me if the keys have not been seen for 1 hour"},
            ],
        }
    )
    return World(
        scenario,
        0,
        sessions,
        [],
        [],
        {"sofa": (100.0, 100.0, 300.0, 300.0), "door": (400.0, 100.0, 470.0, 300.0)},
        "hand",
    )


def test_true_alerts_of_a_hand_made_script():
    dog_keys = lambda dog, keys: {**({"dog": dog} if dog else {}), **({"keys": KEYS} if keys else {})}  # noqa: E731
    sessions = [
        # on the sofa throughout, hidden (behind a person) on the second frame: fires on the third frame it is seen
        _session(0, 0.0, [dog_keys(ON if f != 1 else None, True) for f in range(10)]),
        # a new episode (released after 60 s) but within the 600 s cooldown: quiet; the keys are last seen at 101.5
        _session(1, 100.0, [dog_keys(ON, f <= 3) for f in range(10)]),
        # two frames on the sofa among frames off it: never persists
        _session(2, 1000.0, [dog_keys(ON if f in (1, 2) else OFF, False) for f in range(10)]),
        # past the cooldown: fires again
        _session(3, 2000.0, [dog_keys(ON, False) for f in range(4)]),
        # absence counts recorded time: 10.5 s recorded since the keys were last seen (101.5) before this long
        # session (a frame a minute); its 3589.5th second completes the hour; seen again at 7900 (re-armed)
        _session(4, 4000.0, [dog_keys(None, f >= 65) for f in range(70)], fps=1 / 60),
        # a long gap, but the keys are in view on the first frame: nothing
        _session(5, 9000.0, [dog_keys(None, True) for f in range(10)]),
        # hours later, not in view, but only 2.5 s recorded since 9004.5: nothing yet (the camera was off)
        _session(6, 20000.0, [dog_keys(None, False) for f in range(4)]),
        # an hour of recording since then is complete at 30000 + 3597.5
        _session(7, 30000.0, [dog_keys(None, False) for f in range(62)], fps=1 / 60),
    ]
    events = true_alerts(_world(sessions), SETTINGS)
    assert events == [
        TrueAlert(0, "dog", 1.5, 4.5),
        TrueAlert(0, "dog", 2001.0, 2001.5),
        TrueAlert(1, "keys", 7589.5, 7589.5),
        TrueAlert(1, "keys", 33597.5, 33597.5),
    ]


def test_episodes_release_and_leaving():
    on_sofa = parse_rule("notify me when the dog is on the sofa", places=["sofa"])
    # true on 0, 0.5, 1 (fires at 1), false, true again 50 s later (same episode, extends it), then 70 s later:
    # a new episode
    samples = [
        (0.0, True),
        (0.5, True),
        (1.0, True),
        (1.5, False),
        (51.0, True),
        (121.5, True),
        (122.0, True),
        (122.5, True),
    ]
    assert episodes(samples, on_sofa, SETTINGS, cooldown_s=0.0) == [(1.0, 51.0), (122.5, 122.5)]
    assert episodes(samples, on_sofa, SETTINGS, cooldown_s=600.0) == [(1.0, 51.0)]
    leaves = parse_rule("tell me when the dog leaves the sofa", places=["sofa"])
    # leaving fires when a confirmed episode ends, at its first false sample
    assert episodes(samples[:4] + [(70.0, False)], leaves, SETTINGS, cooldown_s=0.0) == [(1.5, 1.5)]


def test_scoring_matches_one_to_one_by_rule_instance_and_time():
    events = [
        TrueAlert(0, "dog", 100.0, 150.0),
        TrueAlert(0, "dog", 1000.0, 1000.0),
        TrueAlert(0, "dog", 5000.0, 5030.0),
        TrueAlert(1, "keys", 50000.0, 50000.0),
    ]
    alerts = [
        RaisedAlert(0, "dog", 100.5, 108.0),  # the first episode
        RaisedAlert(0, "dog", 140.0, 150.0),  # a second alert for it: false
        RaisedAlert(0, None, 1003.0, 1010.0),  # unlabelled (a false-positive detection's entity): matches on time
        RaisedAlert(0, "cat", 5001.0, 5008.0),  # the wrong instance: false
        RaisedAlert(1, "keys", 50060.0, 56000.0),  # absence: within clip + release of last seen + span
        RaisedAlert(1, "keys", 60000.0, 60005.0),
    ]
    result = score_alerts(["dog on sofa", "keys absent"], alerts, events, {0: 120.0, 1: 70.0})
    overall, dog, keys = result["overall"], *result["rules"]
    assert (overall["alerts"], overall["events"], overall["matched"]) == (6, 4, 3)
    assert overall["precision"] == 0.5 and overall["recall"] == 0.75
    assert overall["delay_s"] == {"median": 10.0, "mean": pytest.approx(6018 / 3), "max": 6000.0}
    assert overall["condition_delay_s"] == 3.0
    assert dog["rule"] == "dog on sofa" and (dog["alerts"], dog["events"], dog["matched"]) == (4, 3, 2)
    assert dog["precision"] == 0.5 and dog["recall"] == pytest.approx(2 / 3)
    assert dog["delay_s"] == {"median": 9.0, "mean": 9.0, "max": 10.0} and dog["condition_delay_s"] == 1.75
    assert (keys["precision"], keys["recall"], keys["delay_s"]["max"], keys["condition_delay_s"]) == (
        0.5,
        1.0,
        6000.0,
        60.0,
    )
    # nothing raised, nothing due: undefined, not perfect
    empty = score_alerts(["dog on sofa"], [], [], {0: 120.0})["overall"]
    assert empty["precision"] is None and empty["recall"] is None and empty["delay_s"] is None


def test_an_alert_takes_the_nearest_eligible_event_and_seeds_average_where_defined():
    events = [TrueAlert(0, "dog", 100.0, 190.0), TrueAlert(0, "dog", 200.0, 210.0)]
    assert match_alerts([RaisedAlert(0, "dog", 195.0, 200.0)], events, {0: 120.0}) == [(0, 1)]
    a = score_alerts(["r"], [RaisedAlert(0, "dog", 100.0, 110.0)], events, {0: 120.0})
    b = score_alerts(["r"], [], [], {0: 120.0})
    summary = summarize_alerts([a, b])
    assert summary is not None and summary["overall"]["precision"] == 1.0 and summary["overall"]["recall"] == 0.5
    assert summary["overall"]["alerts"] == 0.5 and summary["overall"]["precision_by_seed"] == [1.0, None]
    assert summary["rules"][0]["delay_s"] == {"median": 10.0, "mean": 10.0, "max": 10.0}
    assert summarize_alerts([None, None]) is None


@pytest.mark.parametrize(
    "text, cooldown",
    [
        ("notify me when the dog is on the sofa", 300.0),
        pytest.param("tell me when the dog leaves the sofa", 0.0),
    ],
)
def test_true_alerts_agree_with_the_resolver_on_noiseless_memory(tmp_path, text, cooldown):
    """The same per-frame truth given to :func:`episodes` and, as a dog's observations, to the product's
    resolver raises alerts at the same times (one entity, so instances and entities coincide)."""
    import numpy as np
    from helpers.memory import clip, observation, unit

    from edge_agent.memory import Store
    from edge_agent.rules import book
    from edge_agent.rules.resolver import Resolver

    predicate = parse_rule(text, places=["sofa"])
    for seed in range(3):
        rng = np.random.default_rng(seed)
        t0 = start = 1_772_438_400.0
        samples: list[tuple[float, bool]] = []
        with Store(tmp_path / f"home{seed}") as store:
            book.add_rule(store, text, predicate, cooldown_s=cooldown)
            for k in range(14):
                start += float(rng.choice([10.0, 10.0, 40.0, 90.0, 700.0])) if k else 0.0
                on = (
                    [bool(x) for x in (rng.random(20) < (0.8 if rng.random() < 0.5 else 0.15))]
                    if k < 13
                    else [False] * 20
                )
                record = observation(
                    1, start, ON, unit(np.r_[np.ones(8), np.zeros(8)]), kind="animal", category="dog", frames=20
                )
                record.boxes[:] = np.asarray([ON if x else OFF for x in on], np.float32)
                store.ingest_clip(clip(start, 10.0, "hand"), [record])
                samples += [(start + f * 0.5, x) for f, x in enumerate(on)]
            raised = Resolver(store, zones={"hand": {"sofa": (100, 100, 300, 300)}}, settings=SETTINGS).process()
        truth = [a for a, _ in episodes(samples, predicate, SETTINGS, cooldown, until=start + 10.0)]
        assert truth and [round(a.t - t0, 3) for a in raised] == [round(t - t0, 3) for t in truth], f"seed {seed}"


def test_an_unknown_person_is_one_the_household_did_not_name():
    """'an unknown person appears on 3 different days': the true alerts are the visitor's third day, never a named
    member of the household's."""
    scenario = Scenario.model_validate(
        {
            "name": "people",
            "places": ["hall", "door"],
            "entities": [
                {"id": "ann", "category": "person", "named": True},
                {"id": "visitor", "category": "person"},
            ],
            "rules": [
                {"text": "notify me when an unknown person appears on 3 different days this week", "cooldown_s": 0}
            ],
        }
    )
    day = 86400.0
    sessions = [
        _session(k, d * day + 36000.0, [{"ann": ON, "visitor": OFF} for _ in range(6)]) for k, d in enumerate(range(4))
    ]
    world = World(scenario, 0, sessions, [], [], {"hall": ON, "door": OFF}, "people")
    events = true_alerts(world, SETTINGS)
    assert [(e.instance, e.t_start) for e in events] == [("visitor", 2 * day + 36001.0)]


def test_absences_are_compared_on_the_recorded_clock():
    """An absence due in the last seconds of one recording and one due early in the next are seconds apart on the
    clock absences count (the camera was off in between), hours apart on the wall."""
    from edge_agent.eval.alerts import recorded_clock

    clock = recorded_clock([(0.0, 10.0), (100.0, 110.0), (1000.0, 1010.0)])
    assert [clock(t) for t in (-5.0, 5.0, 50.0, 105.0, 500.0, 2000.0)] == [0.0, 5.0, 10.0, 15.0, 20.0, 30.0]
    alert, event = RaisedAlert(0, "keys", 9.0, 10.0), TrueAlert(0, "keys", 1003.0, 1003.0)
    assert match_alerts([alert], [event], {0: 15.0}) == []  # on the wall: 994 s early
    on_clock = match_alerts(
        [RaisedAlert(0, "keys", clock(9.0), clock(10.0))],
        [TrueAlert(0, "keys", clock(1003.0), clock(1003.0))],
        {0: 15.0},
    )
    assert on_clock == [(0, 0)]  # on the recorded clock: 14 s


def test_the_absence_of_a_category_is_of_all_its_instances():
    """'the keys have not been seen' with two sets of keys: no keys at all, as the resolver reads it (its groups), so
    one set seen keeps the rule quiet; the event carries the set seen last."""
    scenario = Scenario.model_validate(
        {
            "name": "two-keys",
            "places": ["hall", "door"],
            "entities": [
                {"id": "house_keys", "category": "keys"},
                {"id": "car_keys", "category": "keys", "pattern": "stripes"},
                {"id": "al", "category": "person"},
            ],
            "rules": [{"text": "tell me if the keys have not been seen for 1 minute", "cooldown_s": 0}],
        }
    )
    sessions = [
        _session(0, 0.0, [{"house_keys": KEYS, "car_keys": ON}] + [{"house_keys": KEYS}] * 199),  # 100 s
        _session(1, 200.0, [{"car_keys": ON}] + [{}] * 199),  # neither after 200.0: due 60 s of recording later
    ]
    world = World(scenario, 0, sessions, [], [], {"hall": ON, "door": OFF}, "keys")
    assert true_alerts(world, SETTINGS) == [TrueAlert(0, "car_keys", 260.0, 260.0)]
