"""'Did the van leave?': whether its last sighting ended while its camera recorded on (edge_agent.qa.handlers), not
whether a van was seen."""

from __future__ import annotations

import numpy as np
from helpers.memory import DAY, clip, observation, said, unit

from edge_agent.memory import Store
from edge_agent.qa import DeterministicController

VAN = unit(np.r_[np.ones(8), np.zeros(8)])
CAR = unit(np.r_[np.zeros(8), np.ones(8)])
T = DAY + 9 * 3600


def test_did_it_leave_reads_the_end_of_its_last_sighting_against_the_recording(tmp_path, embedder) -> None:
    home = tmp_path / "home"
    with Store(home) as store:
        van = observation(1, T, (400, 50, 600, 200), VAN, category="truck", frames=20, description=said("truck"))
        car = observation(2, T, (50, 80, 200, 180), CAR, category="car", frames=6, description=said("car"))
        store.ingest_clip(clip(T, 10.0, "street"), [van, car])  # the car is gone after 3 s, the van stays
        later = observation(1, T + 10, (400, 50, 600, 200), VAN, category="truck", frames=20, description=said("truck"))
        store.ingest_clip(clip(T + 10, 10.0, "street"), [later])
    with Store(home, mode="read") as store:
        ask = DeterministicController(store, embedder).ask
        stayed = ask("did the truck leave?", choices=["yes, it drove off", "no, it stayed parked"])
        assert stayed.text.startswith("No: entity #1 (truck) was still in view when camera street's recording ended")
        assert stayed.choice == "no, it stayed parked"
        went = ask("did the car leave?", choices=["yes, it drove off", "no, it stayed parked"])
        assert went.text.startswith("Yes: entity #2 (car) left: last seen") and went.choice == "yes, it drove off"
        assert "recorded on until" in went.text
        assert ask("did the car leave before 09:00:02?").text.startswith("No: ")  # as of then it was still there
        when = ask("when did the truck leave?").text  # it had not: not "last seen (before it left)"
        assert when.startswith("It did not leave while recorded: entity #1 (truck) was still in view"), when
        assert ask("when did the car leave?").text.startswith("Entity #2 (car) was last seen (before it left)")
        whole = ask("was the truck there the whole time?", choices=["yes", "no"])
        assert whole.choice == "yes" and "the whole 20 s its camera recorded" in whole.text, whole.text
        assert ask("was the car there the whole time?", choices=["yes", "no"]).choice == "no"


def test_did_anyone_leave_is_whether_any_of_them_left(tmp_path, embedder) -> None:
    home = tmp_path / "home"
    with Store(home) as store:
        van = observation(1, T, (400, 50, 600, 200), VAN, category="truck", frames=20, description=said("truck"))
        walker = observation(3, T, (50, 80, 90, 180), CAR, category="person", frames=6, description=said("person"))
        store.ingest_clip(clip(T, 10.0, "street"), [van, walker])  # the walker is gone after 3 s, the van stays
        later = observation(1, T + 10, (400, 50, 600, 200), VAN, category="truck", frames=20, description=said("truck"))
        store.ingest_clip(clip(T + 10, 10.0, "street"), [later])
    with Store(home, mode="read") as store:
        ask = DeterministicController(store, embedder).ask
        drove = ask("did anyone drive off?", choices=["yes", "no"])  # the one who drives is a vehicle: none left
        assert drove.text.startswith("No: the 1 vehicle seen did not leave view"), drove.text
        assert drove.choice == "no"
        walked = ask("did anybody leave?", choices=["yes", "no"])
        assert walked.text.startswith("Yes: the 1 person seen left view, the last to leave at"), walked.text
        assert walked.choice == "yes"
        assert ask("did anybody leave before 09:00:02?").text.startswith("No: ")  # as of then the walker was there


def test_anything_going_on_is_what_happened_not_leaving(tmp_path, embedder) -> None:
    home = tmp_path / "home"
    with Store(home) as store:
        car = observation(2, T, (50, 80, 200, 180), CAR, category="car", frames=6, description=said("car"))
        store.ingest_clip(clip(T, 10.0, "street"), [car])
    with Store(home, mode="read") as store:
        answer = DeterministicController(store, embedder).ask("anything going on out on the street?")
        assert answer.text.startswith("1 thing seen on camera street: car #1"), answer.text


def test_still_there_and_everyone_ask_of_each_of_several(tmp_path, embedder) -> None:
    """Of two walkers, one goes after 3 s and one stays to the end: "was anyone still there?" is yes (the one who
    stayed), "did anyone leave?" yes, "did everyone leave?" no; the answer says how many did which."""
    home = tmp_path / "home"
    other = unit(np.r_[np.ones(4), np.zeros(12)])
    with Store(home) as store:
        goes = observation(3, T, (50, 80, 90, 180), CAR, category="person", frames=6, description=said("person"))
        stays = observation(4, T, (300, 80, 340, 180), other, category="person", frames=20, description=said("person"))
        store.ingest_clip(clip(T, 10.0, "street"), [goes, stays])
    with Store(home, mode="read") as store:
        ask = DeterministicController(store, embedder).ask
        still = ask("was anyone still on the street when the recording ended?", choices=["yes", "no"])
        assert still.choice == "yes", still.text
        assert "1 of the 2 people seen on camera street left view, 1 was still in view" in still.text, still.text
        assert ask("did anyone leave?", choices=["yes", "no"]).choice == "yes"
        everyone = ask("did everyone leave?", choices=["yes", "no"])
        assert everyone.choice == "no" and everyone.text.startswith("No: 1 of the 2 people seen left view"), (
            everyone.text
        )


def test_a_thing_unseen_for_the_last_seconds_of_the_recording_is_not_said_to_be_in_view(tmp_path, embedder) -> None:
    """Unseen for its camera's last 3 s, too few to say it left: the answer stays no, and says it was last seen 3 s
    before the recording ended, not that it was still in view then."""
    home = tmp_path / "home"
    with Store(home) as store:
        van = observation(1, T, (400, 50, 600, 200), VAN, category="truck", frames=14, description=said("truck"))
        store.ingest_clip(clip(T, 10.0, "street"), [van])  # seen until T + 6.5 s of a 10 s recording
    with Store(home, mode="read") as store:
        text = DeterministicController(store, embedder).ask("did the truck leave?").text
    assert text.startswith("No, not that memory can tell: entity #1 (truck) was last seen"), text
    assert "4 s before camera street's recording ended" in text and "still in view" not in text
