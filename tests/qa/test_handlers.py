"""Each intent's handler on a tiny house (three cameras, a handful of things), through the whole controller: the
answer is about what was asked, in the place and window asked; and, property-based, for every intent and any
camera and time window, every observation a handler cites lies inside them."""

from __future__ import annotations

import numpy as np
import pytest
from helpers.memory import DAY, clip, observation, said, unit
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from edge_agent.clock import format_utc
from edge_agent.language.grammar import Aggregate, Event, Intent, Order, Place, Query, Side, Subject, Time
from edge_agent.memory import Store
from edge_agent.qa import DeterministicController
from edge_agent.qa.handlers import HANDLERS, Context
from edge_agent.qa.scope import View
from edge_agent.retrieval.retrieve import Evidence


def _vector(k: int) -> np.ndarray:
    return unit(np.eye(16, dtype=np.float32)[k] + 0.01)


#: (camera, start, track, kind, category, colour, box) of each sighting: a kitchen in the morning, a living room at
#: noon, a street in the afternoon.
SIGHTINGS = [
    ("kitchen", DAY + 9 * 3600, 1, "person", "person", "red", (200, 50, 260, 300)),
    ("kitchen", DAY + 9 * 3600, 2, "object", "cup", "red", (100, 200, 130, 230)),
    ("kitchen", DAY + 9 * 3600 + 30, 2, "object", "cup", "red", (100, 200, 130, 230)),
    ("kitchen", DAY + 9 * 3600 + 300, 3, "animal", "dog", "grey", (10, 200, 90, 280)),
    ("living-room", DAY + 12 * 3600, 4, "object", "couch", "blue", (400, 200, 620, 340)),
    ("living-room", DAY + 12 * 3600, 5, "object", "tv", "black", (10, 10, 150, 100)),
    ("living-room", DAY + 12 * 3600 + 20, 6, "person", "person", "green", (300, 200, 360, 340)),
    ("street", DAY + 15 * 3600, 7, "object", "truck", "white", (500, 20, 630, 120)),
    ("street", DAY + 15 * 3600 + 10, 7, "object", "truck", "white", (500, 20, 630, 120)),
    ("street", DAY + 15 * 3600 + 80, 7, "object", "truck", "white", (500, 20, 630, 120)),
    ("street", DAY + 15 * 3600 + 10, 8, "object", "car", "grey", (560, 40, 640, 110)),
]


@pytest.fixture(scope="module")
def house(tmp_path_factory):
    home = tmp_path_factory.mktemp("house") / "home"
    with Store(home) as store:
        by_clip: dict[tuple[str, float], list] = {}
        for camera, t, track, kind, category, colour, box in SIGHTINGS:
            by_clip.setdefault((camera, t), []).append(
                observation(
                    track,
                    t,
                    list(box),
                    _vector(track),
                    kind=kind,
                    category=category,
                    description=said(category, colour=colour),
                )
            )
        for (camera, t), records in sorted(by_clip.items(), key=lambda item: item[0][1]):
            store.ingest_clip(clip(t, camera=camera), records)
        store.close_episodes()
    return home


@pytest.fixture(scope="module")
def ask(house, embedder):
    store = Store(house, mode="read")
    controller = DeterministicController(store, embedder)
    yield lambda question, *choices: controller.ask(question, choices=list(choices))
    store.close()


def _t(hour: float) -> str:
    return format_utc(DAY + hour * 3600, zone=True)


@pytest.mark.parametrize(
    ("question", "choices", "expected", "text"),
    [
        ("was there a dog in the kitchen?", ("yes", "no"), "yes", "Yes: 1 dog seen on camera kitchen"),
        ("was a dog in the living room?", ("yes", "no"), "no", "No: I have not seen a dog on camera living-room"),
        ("was nobody in the kitchen?", ("yes", "no"), "no", "No: 1 person seen on camera kitchen"),
        ("did you not see a cat?", ("right, no cat was seen", "a cat was seen"), "right, no cat was seen", "No: "),
        ("anything other than people in the living room?", ("yes", "no"), "yes", "Yes: 2 things seen"),
        ("where was the tv?", ("at the top left", "at the bottom right"), "at the top left", "Entity #"),
        ("when was the dog first seen?", (_t(9), _t(9.08)), _t(9.08), "first seen"),
        ("how many people were seen?", ("one", "two", "three"), "two", "2 people"),
        ("on how many cameras was a person seen?", ("1", "2", "3"), "2", "2 cameras"),
        ("were there more people in the kitchen than on the street?", ("yes", "no"), "yes", "Yes: 1 person"),
        (
            "were there more people than cups in the kitchen?",
            ("yes", "no"),
            "no",
            "No: 1 person on camera kitchen against 1 cup",
        ),
        ("what colour was the couch?", ("blue", "red"), "blue", "Blue: "),
        ("was the couch blue or red?", ("blue", "red", "neither"), "blue", "Blue: "),
        ("was the truck moving or parked?", ("moving", "parked"), "parked", "Still: "),
        ("was the thing in the kitchen a dog or an animal?", (), None, "Dog: dog: 1 observation; animal: 0"),
        ("was the white vehicle a truck or a car?", (), None, "Truck, no car: truck: 3 observations; car: 0"),
        (
            "after about 9:01, was memory still seeing a person in the kitchen, or just things?",
            (),
            None,
            "Things, no person: person: 0 observations; things: 1 observation on camera kitchen",
        ),
        ("was there a person or a dog in the kitchen?", (), None, "Both: person: 1 observation; dog: 1 observation"),
        ("where was the vehicle that was seen the least?", (), None, "Entity #8 (car)"),
        ("what showed up in the kitchen after 9:00:10?", (), None, "1 thing seen on camera kitchen after"),
        ("where was the truck at 15:00:11?", (), None, "entity #7 (truck) was seen (then) 1970-01-02 15:00:10"),
        (
            "was the dog in the kitchen before or after 10?",
            (),
            None,
            "Before 10: a dog was seen before 10 (before 10: 1",
        ),
        ("did the truck come in the morning or in the afternoon?", (), None, "In the afternoon: a truck was seen"),
        ("rank the cameras by how many sightings they had", (), None, "saw 4 each; then living-room 3"),
        ("was the front door camera showing anyone?", (), None, "No: there is no camera called 'front door'"),
        ("what came right after the dog?", (), None, "2 things seen after 1970-01-02 09:05:00 UTC: couch #4"),
        ("who was in the kitchen and what was she wearing?", (), None, "1 person seen on camera kitchen: person #1"),
        ("what left the kitchen first?", (), None, "Entity #1 (person) was last seen (before it left)"),
        ("what was in the kitchen before the dog showed up?", (), None, "2 things seen on camera kitchen before"),
        ("who was in the living room after the couch appeared?", (), None, "1 person seen on camera living-room after"),
        ("what was the thing that appeared in the kitchen after the person left?", (), None, "dog #3"),
        (
            "count the entities on every camera except the street",
            (),
            None,
            "6 entities on camera kitchen or living-room",
        ),
        ("nobody new came into the kitchen after 9:00:10, right?", ("yes", "no"), "yes", "Yes: no person came on"),
        (
            "the dog didn't stay as long as the cup, did it?",
            ("yes", "no"),
            "yes",
            "Yes: the dog was seen for less time",
        ),
        ("did the truck stay as long as the car?", ("yes", "no"), "yes", "Yes: the truck was seen as long"),
        ("did the truck and the car stay for the same amount of time?", ("yes", "no"), "no", "No: the truck was not"),
        ("did the dog come back later?", ("yes", "no"), "no", "No: entity #3 (dog) was last seen"),
        ("did the truck come back?", ("yes", "no"), "yes", "Yes: entity #7 (truck) came back 1970-01-02 15:01:20"),
        ("is anything missing from the kitchen?", ("yes", "no"), "yes", "Yes: "),
        ("were there more cars or trucks on the street?", (), None, "The same: 1 car on camera street against 1 truck"),
        (
            "was the car or the truck seen more often?",
            (),
            None,
            "The truck: a truck seen 3 times against a car seen 1 time",
        ),
        ("which was there for less time, the truck or the couch?", (), None, "The couch, for less time: seen for"),
        ("the vehicle that showed up the most: where was it?", (), None, "Entity #7 (truck)"),
        ("which camera saw the dog?", ("kitchen", "street"), "kitchen", "on camera kitchen"),
        ("which camera saw a person first?", ("kitchen", "living-room"), "kitchen", "Camera kitchen was the first"),
        ("which camera saw no people?", ("kitchen", "living-room", "street"), "street", "Camera street saw no"),
        (
            "which camera saw the fewest things?",
            ("kitchen", "living-room", "street"),
            "street",
            "Camera street saw the fewest things: 2; then",
        ),  # fmt: skip
        ("where did you see the most cars?", ("kitchen", "street"), "street", "Camera street saw the most cars: 1"),
        ("is the couch in the kitchen or in the living room?", ("kitchen", "living room"), "living room", ""),
        ("who was with the cup?", ("a person in red", "nobody"), "a person in red", "was with entity"),
        ("what was with the truck?", (), None, "Car #8 was with entity #7 (truck) at 1970-01-02 15:00:10"),
        ("where was the person in green?", (), None, "Entity #6 (person) was last seen"),
        ("who was in the kitchen?", ("a person in red", "a person in green"), "a person in red", "1 person seen"),
        ("did the dog come before the couch?", ("yes", "no"), "yes", "Yes: the dog first seen"),
        ("was the couch in the living room before the person got there?", ("yes", "no"), "yes", "Yes: the couch"),
        ("what did the cup do after 10 am?", (), None, f"Nothing after {_t(10)}: entity #2 was last"),
        ("which came first, the tv or the cup?", ("the tv", "the cup"), "the cup", "The cup came first"),
        ("did the couch come before the tv?", ("yes", "no"), "no", "No, at the same time: the couch first seen"),
        ("was the tv there before the couch or after?", (), None, "At the same time: the tv first seen"),
        (
            "how long was the truck there?",
            ("under 10 seconds", "about a minute and a half", "over an hour"),
            "about a minute and a half",
            "About 1 min 22 s",
        ),  # fmt: skip
        ("how long after the cup did the truck show up?", ("about 6 hours", "about a minute"), "about 6 hours", ""),
        (
            "which came first: the truck, the couch or the cup?",
            ("truck, then couch, then cup", "cup, then couch, then truck"),
            "cup, then couch, then truck",
            "The cup came first: in order cup, then couch, then truck",
        ),  # fmt: skip
        (
            "put these in order, earliest first: the truck, the dog and the tv",
            ("dog, then tv, then truck", "truck, then tv, then dog"),
            "dog, then tv, then truck",
            "In order: dog",
        ),  # fmt: skip
        (
            "in what order did the street, living room and kitchen cameras see something?",
            ("street, living room, kitchen", "kitchen, living room, street"),
            "kitchen, living room, street",
            "In order: kitchen, then living-room, then street",
        ),  # fmt: skip
        (
            "who stayed longer, the truck on the street or the couch in the living room?",
            ("the truck", "the couch"),
            "the truck",
            "The truck, longer: ",
        ),  # fmt: skip
        ("did the cup have company?", ("yes, a person", "no, it was alone"), "yes, a person", ""),
        ("was the truck there for more than a minute?", ("yes", "no"), "yes", "Yes: about 1 min 22 s, more than 1 min"),
        ("how many cars and trucks did the street camera see?", ("one", "two", "three"), "two", "2 cars and trucks"),
        ("is anything grey?", ("yes", "no"), "yes", "Yes: 2 grey things seen"),
        ("what was the person in the living room wearing?", ("green", "red"), "green", "Green: "),
        ("who was the last person you saw?", (), None, "Entity #6 (person) was last seen"),
        ("tell me about the truck", (), None, "Truck #7: seen 3 times on camera street, first"),
        (
            "which vehicle did you see most often?",
            ("the truck", "the car"),
            "the truck",
            "Truck #7 was seen most often",
        ),
        ("is the truck still on the street?", ("yes", "no"), "no", "No: entity #7 (truck) left: last seen"),
        ("has the couch moved?", ("yes", "no"), "no", "No: entity #4 (couch) was not seen moved"),
        ("what do you know about the person in the living room?", (), None, "Person #6: seen 1 time on camera living"),
        ("when did the truck come back?", (_t(15), _t(15 + 80 / 3600)), _t(15 + 80 / 3600), "last arrived"),
        ("was the truck there for under a minute?", ("yes", "no"), "no", "No: about 1 min 22 s, not less than 1 min"),
        (
            "which did you see first, a person in the living room or a person in the kitchen?",
            ("the one in the living room", "the one in the kitchen"),
            "the one in the kitchen",
            "The person on camera kitchen came first: the person on camera living-room first seen",
        ),  # fmt: skip
        ("apart from the street, how many cameras saw something?", ("one", "two", "three"), "two", "2 cameras"),
        ("what was the very first thing the cameras caught?", ("a person", "a truck"), "a person", "first seen"),
        (
            "which of these was never seen in the kitchen: a cup, a dog or a tv?",
            ("a cup", "a dog", "a tv"),
            "a tv",
            "Tv: ",
        ),  # fmt: skip
        ("what did you see after 2 pm?", (), None, "2 things seen after"),
        ("was there a gizmo?", ("yes", "no"), "no", "I don't know what a 'gizmo' is"),
        # a count held against a number, by what follows it (things, cameras, times)
        ("were there more than 1 person?", ("yes", "no"), "yes", "Yes: 2 people"),
        ("was the truck seen on two different cameras?", ("yes", "no"), "no", "(not 2 or more)"),
        ("did at least two cameras see a person?", ("yes", "no"), "yes", "(2 or more)"),
        ("did you see fewer than 3 dogs?", ("yes", "no"), "yes", "(fewer than 3)"),
        ("did you see the truck more than 5 times?", ("yes", "no"), "no", "(not more than 5)"),
        ("were there exactly two things in the living room?", ("yes", "no"), "no", "(not exactly 2)"),
        # the same thing, or two
        ("is the person in the kitchen the same as the one in the living room?", ("yes", "no"), "no", "as two"),
        ("was the truck at 15:00 the same one as the truck at 15:01?", ("yes", "no"), "yes", "both are entity #7"),
        ("is #7 the same as entity 8?", ("yes", "no"), "no", "entity #7 (truck)"),
        ("did the couch and the tv appear at the same time?", ("yes", "no"), "yes", "Yes: the couch first seen"),
        ("was the dog seen at the same time as the cup?", ("yes", "no"), "no", "No: the dog first seen"),
        ("were the truck and the car seen at the same time?", ("yes", "no"), "yes", "in view together"),
        ("was the truck there longer than the car?", ("yes", "no"), "yes", "Yes: the truck was seen longer"),
        ("was the car seen for less time than the truck?", ("yes", "no"), "yes", "seen for less time"),
        ("was the dog alone in the kitchen?", ("yes", "no"), "yes", "Yes: no person was seen together"),
        ("was the cup alone?", ("yes", "no"), "no", "No: person #1 was with entity #2 (cup)"),
        ("how many people were standing still?", ("one", "two"), "two", "2 stationary people"),
        ("did you see anyone walking?", ("yes", "no"), "no", "No: I have not seen a moving person"),
        ("how many trucks were parked?", ("none", "one"), "one", "1 stationary truck"),
        # cameras asked for, and two cameras compared
        ("list every camera that saw a person", ("kitchen and living-room", "street"), None, "on camera kitchen"),
        ("between the kitchen and the street, where were more things?", ("kitchen", "street"), "kitchen", "The kitch"),
        ("when was someone last at the back porch?", (), None, "I don't know a place called 'back porch'"),
    ],
)
def test_each_intent_answers_what_was_asked(ask, question, choices, expected, text):
    answer = ask(question, *choices)
    assert text in answer.text, answer.text
    if expected is not None:
        assert answer.choice == expected, answer.text
    assert "Most relevant in memory" not in answer.text


def test_what_happened_in_a_place_is_that_place_s(ask):
    answer = ask("what happened in the living room?")
    assert "living-room" in answer.text and "kitchen" not in answer.text
    assert answer.evidence and {e["camera"] for e in answer.evidence} == {"living-room"}


# -- property: the constraints hold for every cited observation ----------------------------------------------------

KINDS = [("person",), ("cup",), ("dog",), ("couch",), ("tv",), ("truck", "car"), ()]
CAMERAS = ["kitchen", "living-room", "street"]
HOURS = st.floats(min_value=8.0, max_value=17.0, allow_nan=False)


@st.composite
def queries(draw):
    kinds = draw(st.sampled_from(KINDS))
    subject = Subject(kinds=kinds, said=kinds[0] if kinds else "thing", generic=not kinds)
    cameras = tuple(draw(st.lists(st.sampled_from(CAMERAS), max_size=2, unique=True)))
    start = draw(st.one_of(st.none(), HOURS))
    end = draw(st.one_of(st.none(), HOURS))
    time = Time(
        start=DAY + start * 3600 if start is not None else None,
        end=DAY + end * 3600 if end is not None else None,
        moments=tuple(DAY + h * 3600 for h in draw(st.lists(HOURS, max_size=1))),
    )
    other = None
    if draw(st.booleans()):
        other_kinds = draw(st.sampled_from(KINDS[:-1]))
        other = Side(subject=Subject(kinds=other_kinds, said=other_kinds[0]), place=Place(cameras=cameras[:1]))
    return Query(
        draw(st.sampled_from(list(Intent))),
        subject=subject,
        place=Place(cameras=cameras),
        time=time,
        other=other,
        order=draw(st.one_of(st.none(), st.sampled_from(list(Order)))),
        event=draw(st.sampled_from(list(Event))),
        aggregate=draw(st.one_of(st.none(), st.sampled_from(list(Aggregate)))),
        yes_no=draw(st.booleans()),
        negated=draw(st.booleans()),
        compare=draw(st.sampled_from(["", "more", "fewer"])) if other is not None else "",
    )


@given(query=queries())
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_every_cited_observation_is_in_the_camera_and_window_asked(house, query):
    with Store(house, mode="read") as store:
        mine, theirs = query.sides()
        views = [View.of(store, mine)] + ([View.of(store, theirs)] if theirs is not None else [])
        nothing = Evidence([], [], {}, None, {})
        context = Context(store, views[0], views[1] if len(views) > 1 else None, lambda: nothing, 20.0,
                          query.time.moments)  # fmt: skip
        finding = HANDLERS[query.intent](query, context)
        for o in finding.evidence:
            assert any(v.scope.holds(o) for v in views), (query.intent, o.camera, o.t_start, views[0].scope)


@pytest.mark.parametrize(
    ("question", "text"),
    [
        ("when did the street recording start?", f"The recording started {_t(15)}: camera street from {_t(15)}"),
        ("what time did the kitchen camera stop recording?", "The recording stopped"),
        ("how long is the living room video?", "About 20 s: camera living-room"),
        ("which camera recorded the longest?", "recorded the longest: 30 s; then"),
        ("how long did the street camera record?", "About 30 s: camera street"),
    ],
)
def test_the_recording_itself_is_asked_about(ask, question, text):
    """When a camera's recording started or stopped, how long it ran, which ran longest: from what was recorded."""
    answer = ask(question)
    assert text in answer.text, answer.text


@pytest.mark.parametrize(
    ("question", "choices", "expected", "text"),
    [
        ("were there any people not in the kitchen?", ("yes", "no"), "yes", "on camera living-room"),
        ("the thing that was white, where was it?", (), None, "(truck)"),
        ("which camera was quietest?", ("kitchen", "street"), "street", "Camera street saw the fewest things"),
        ("did the street or the kitchen see something first?", (), None, "In order: kitchen, then street"),
        ("how long were people seen?", (), None, "2 people (any of them) were seen"),
        ("where was the last person you saw?", (), None, "Entity #6 (person) was last seen"),
        ("were the truck and the car seen together?", ("yes", "no"), "yes", "Yes: car #8 was with entity #7"),
        ("were the dog and the truck seen together?", ("yes", "no"), "no", "No: "),
        ("how many things were seen in the first 20 seconds of the kitchen video?", ("one", "two", "three"), "two", ""),
        ("what happened at the end of the street video?", (), None, "1 thing seen on camera street between"),
        ("how many cameras do I have?", (), None, "3 cameras: kitchen, living-room, street."),
        ("what did you see most of?", ("people", "cups"), "people", "Most were people: 2 of the 8 things seen; then"),
        ("were the truck and the car both white?", ("yes", "no"), "no", "No: memory says colour white most often of"),
        ("which thing stayed the longest on the street?", (), None, "Entity #7 (truck) was seen on camera street"),
        ("were the cup and the dog both grey?", ("yes", "no"), "no", "No: memory does not say colour grey"),
        ("were the cup and the person in the kitchen both red?", ("yes", "no"), "yes", "Yes: "),
        ("what did the street camera see least of?", (), None, "Fewest were cars, trucks: 1 each of the 2 things"),
        ("the truck, was it white or grey?", ("white", "grey"), "white", "White: "),
        ("couch colour", (), None, "Blue: "),
        ("any1 in the livingroom?", ("yes", "no"), "yes", "Yes: 1 person seen on camera living-room"),
        ("was somebody hanging around the truck?", ("yes", "no"), "no", "No: I have not seen a person with a truck"),
        ("did anything come after the truck left?", ("yes", "no"), "no", "the truck left"),
    ],
)
def test_more_forms_a_helper_wrote(ask, question, choices, expected, text):
    """Phrasings written by someone who did not read the reader: "not in X", a colour said in a clause, "busiest",
    two cameras in order, how long several were there."""
    answer = ask(question, *choices)
    assert text in answer.text, answer.text
    if expected is not None:
        assert answer.choice == expected, answer.text


def test_a_conversation_s_pronouns_are_the_things_its_answers_were_about(house, embedder):
    """ "she" is the person the last answer was about, "it" the thing, "there" the camera they were seen on; a pronoun
    of a thing is not taken by a person answered about in between."""
    from edge_agent.qa.conversation import Conversation

    with Store(house, mode="read") as store:
        chat = Conversation(DeterministicController(store, embedder))
        assert "1 person seen on camera kitchen" in chat.ask("was there anyone in the kitchen?").text
        assert "Cup #2 was with entity #1 (person)" in chat.ask("what was she holding?").text
        assert "Entity #1 (person) was last seen" in chat.ask("when was she last seen?").text
        chat = Conversation(DeterministicController(store, embedder))
        assert "Entity #2 (cup)" in chat.ask("where was the cup?").text
        assert "person #1" in chat.ask("who else was there?").text
        assert "the cup was" in chat.ask("was it there longer than the dog?").text


def test_a_conversation_points_back_corrects_and_moves_its_window(house, embedder):
    """Turns a tester wrote: "what was she wearing?" is her clothes; "that person" and "the person, ... they" are the
    person the answers cited; "no, I meant the car" asks the last question of the car; "how many of them were in
    ..." keeps who and when; "and before that?" / "and after?" move the window the user named."""
    from edge_agent.qa.conversation import Conversation

    with Store(house, mode="read") as store:
        chat = Conversation(DeterministicController(store, embedder))
        chat.ask("who was in the kitchen?")
        assert chat.ask("what was she wearing?").text.startswith("Red: "), "her clothes, not what was with her"
        chat = Conversation(DeterministicController(store, embedder))
        assert "truck" in chat.ask("how long was the truck on the street?").text
        assert "Entity #8 (car)" in chat.ask("no, I meant the car").text
        chat = Conversation(DeterministicController(store, embedder))
        chat.ask("what did the living room camera see?")  # the couch, the tv and person #6
        chat.ask("when did the tv show up?")
        assert "Entity #6 (person) was first seen" in chat.ask("and the person, when did they arrive?").text
        chat = Conversation(DeterministicController(store, embedder))
        chat.ask("anyone in the living room?")
        assert chat.ask("what colour was that person wearing?").text.startswith("Green: ")
        chat = Conversation(DeterministicController(store, embedder))
        assert chat.ask("was anything seen between 11:00 and 13:00?").text.startswith("Yes: ")
        before = chat.ask("what about before that?").text
        assert before.startswith("Yes: ") and "before 1970-01-02 11:00:00" in before, before
        after = chat.ask("and after?").text
        assert after.startswith("Yes: ") and "after 1970-01-02 13:00:00" in after, after
        chat = Conversation(DeterministicController(store, embedder))
        chat.ask("how many things were on the street?")
        assert "1 grey thing" in chat.ask("how many of them were grey?").text
        assert "on camera street" in chat.ask("how many were white?").text  # of those on the street
        chat = Conversation(DeterministicController(store, embedder))
        chat.ask("was anyone in the living room?")
        assert "Entity #6 (person) was last seen" in chat.ask("when was the baby last seen?").text
        assert "Entity #6 (person)" in chat.ask("what time was that?").text
        chat = Conversation(DeterministicController(store, embedder))
        chat.ask("who was in the kitchen?")
        chat.ask("how long was she there?")
        assert "Entity #6 (person)" in chat.ask("and the living room?").text  # a person there, not the couch


def test_a_conversation_orders_those_it_named_and_asks_where_else(house, embedder):
    """ "Which of those was first?" orders the last two things the answers were about; "where else was she seen?"
    is anywhere but the camera she was seen on."""
    from edge_agent.qa.conversation import Conversation

    with Store(house, mode="read") as store:
        chat = Conversation(DeterministicController(store, embedder))
        chat.ask("who was in the kitchen?")  # person #1, at nine
        chat.ask("and the living room?")  # person #6, at noon
        first = chat.ask("which of those was first?").text
        assert first.startswith("The person #1 came first"), first
        chat = Conversation(DeterministicController(store, embedder))
        chat.ask("anyone in the living room around noon?")
        chat.ask("what about the street?")  # nobody there around noon
        first = chat.ask("which one came first?").text  # the two asked about, whenever each was seen
        assert first.startswith("The person on camera living-room came first"), first
        chat = Conversation(DeterministicController(store, embedder))
        chat.ask("who was in the kitchen?")  # person #1, at nine
        chat.ask("when did she leave?")
        after = chat.ask("and what showed up after her?").text  # the dog, in the kitchen, after her
        assert "dog #3" in after and "on camera kitchen" in after and "person #1" not in after, after
        chat = Conversation(DeterministicController(store, embedder))
        chat.ask("who was in the living room?")  # person #6, at 12:00:20
        before = chat.ask("what was there before that?").text  # the couch and the tv, there before him
        assert "couch #4" in before and "before 1970-01-02 12:00:20" in before, before
        chat = Conversation(DeterministicController(store, embedder))
        chat.ask("who was in the living room?")  # person #6
        assert chat.ask("who else?").text.startswith("I have not seen a person other than #6 on camera living-room")
        assert "couch #4" in chat.ask("what else was there?").text
        chat = Conversation(DeterministicController(store, embedder))
        chat.ask("who was in the kitchen today?")  # a day asked: "after that" moves from the person, not the day
        assert "dog #3" in chat.ask("and after that?").text
        chat = Conversation(DeterministicController(store, embedder))
        chat.ask("what was in the living room?")
        assert chat.ask("which came first?").text.startswith(("The couch", "The tv", "The person", "At the same"))
        chat = Conversation(DeterministicController(store, embedder))
        chat.ask("what was in the kitchen?")
        assert "on camera kitchen" in chat.ask("what showed up after the person?").text  # there, as talked about
        chat = Conversation(DeterministicController(store, embedder))
        chat.ask("was the truck on the street at 15:01?")
        chat.ask("what about the car?")
        assert chat.ask("which of the two got there first?").text.startswith("The truck came first")
        chat = Conversation(DeterministicController(store, embedder))
        chat.ask("who was in the kitchen?")
        chat.ask("what was she wearing?")
        elsewhere = chat.ask("where else was she seen?").text
        assert elsewhere.startswith("I have not seen a person on camera living-room or street"), elsewhere


def test_a_conversation_s_it_they_and_the_other_one(house, embedder):
    """ "It" after "what was she holding?" is the thing held; "the other one" is the thing named with the one talked
    about; "anything next to her?" is what was with her."""
    from edge_agent.qa.conversation import Conversation

    with Store(house, mode="read") as store:
        chat = Conversation(DeterministicController(store, embedder))
        chat.ask("who was in the kitchen?")
        assert "Cup #2 was with entity #1" in chat.ask("what was she holding?").text
        assert chat.ask("what colour is it?").text.startswith("Red: 2 of 2 observations of cup #2")
        assert chat.ask("was anything next to her?").text.startswith("Yes: cup #2 was with entity #1")
        chat = Conversation(DeterministicController(store, embedder))
        chat.ask("what vehicles were on the street?")  # the truck and the car
        assert "Entity #7 (truck)" in chat.ask("how long was the white one there?").text
        assert "Entity #8 (car)" in chat.ask("what about the other one?").text


def test_a_conversation_s_thanks_those_and_what_came_after(house, embedder):
    """ "How many trucks was that?" counts there and then; "and after that?" of a colour asks what happened after the
    thing was seen; "ok thanks" is no question."""
    from edge_agent.qa.conversation import Conversation

    with Store(house, mode="read") as store:
        chat = Conversation(DeterministicController(store, embedder))
        chat.ask("what was on the street?")
        assert "on camera street" in chat.ask("how many trucks was that?").text
        chat = Conversation(DeterministicController(store, embedder))
        assert chat.ask("what colour was the cup?").text.startswith("Red: ")
        after = chat.ask("and after that?")
        assert after.tool == "list" and after.text.startswith("6 things seen after") and "dog #3" in after.text, (
            after.text
        )
    assert Conversation.thanks("ok thanks") and Conversation.thanks("great, thank you!")
    assert not Conversation.thanks("thanks, where was the cup?") and not Conversation.thanks("thanks, bye")


@pytest.mark.parametrize(
    ("question", "shown", "left_out"),
    [
        ("what happened after the couch was seen?", "street", "kitchen"),
        ("anything happen before the tv showed up?", "kitchen", "street"),
        ("what happened after the dog left?", "living-room", "kitchen, 1970"),
    ],
)
def test_what_happened_after_a_thing_is_from_its_moment_on(ask, question, shown, left_out):
    """ "What happened after X was seen / left?": what was seen from that moment (or until it), not which of
    "anything" and X came first."""
    answer = ask(question)
    assert answer.tool == "what_happened" and shown in answer.text and left_out not in answer.text, answer.text


@pytest.mark.parametrize(
    ("question", "choices", "expected", "text"),
    [
        ("were there more people in the house or on the street?", (), None, "The house: 2 people on camera kitchen or"),
        ("more things outside or inside?", (), None, "Inside: 6 things on camera kitchen or living-room against 2"),
        ("were there fewer people outside than in the house?", ("yes", "no"), "yes", "Yes: 0 people on camera"),
    ],
)
def test_the_house_and_outside_are_the_cameras_indoors_and_outdoors(ask, question, choices, expected, text):
    """ "The house", "inside", "outside" as one side of a count: the cameras whose names say indoors (or outdoors)."""
    answer = ask(question, *choices)
    assert text in answer.text, answer.text
    if expected is not None:
        assert answer.choice == expected, answer.text


def test_a_conversation_s_bare_questions_they_on_it_and_then(house, embedder):
    """ "What colour?" asks of the thing talked about; "what colour were they?" of all of them; "who was on it?" who
    was with it; "who was around then?" who was seen around the moment the last answer was about."""
    from edge_agent.qa.conversation import Conversation

    with Store(house, mode="read") as store:
        chat = Conversation(DeterministicController(store, embedder))
        chat.ask("where was the truck?")
        chat.ask("no, I meant the car")
        assert chat.ask("what colour?").text.startswith("Grey: "), "of the car, not of everything"
        chat = Conversation(DeterministicController(store, embedder))
        chat.ask("what was on the street?")
        assert "the 2 things seen" in chat.ask("what colour were they?").text
        chat = Conversation(DeterministicController(store, embedder))
        chat.ask("what colour was the couch?")
        assert chat.ask("who was on it?").text == "No person was seen together with entity #4."  # the couch's company
        chat = Conversation(DeterministicController(store, embedder))
        chat.ask("where was the dog?")  # in the kitchen at 9:05, five minutes after the person
        assert "1970-01-02 09:04:00" in chat.ask("who was around then?").text


def test_someone_appearing_counts_every_person_and_rooms_are_ordered_by_their_first_visitor(ask):
    """ "How many times did someone appear?" counts every person's sightings (not one person's); "in what order did
    the rooms get visitors?" orders the cameras indoors by their first person, the times said in that order."""
    assert ask("how many times was someone seen in the kitchen or the living room?").text.startswith("2 times")
    answer = ask("in what order did the rooms get visitors?")
    assert answer.text.startswith("In order: kitchen, then living-room (the kitchen first seen"), answer.text


@pytest.mark.parametrize(
    ("question", "expected", "text"),
    [
        ("was there anyone other than the person in red in the kitchen?", "no", "No: 1 person on camera kitchen"),
        ("did the kitchen camera see anyone besides the cook?", "no", "(not more than 1)"),
        ("anything in the kitchen other than people?", "yes", "Yes: 2 things seen on camera kitchen"),
    ],
)
def test_anyone_besides_one_of_them_is_whether_there_was_more_than_one(ask, question, expected, text):
    answer = ask(question, "yes", "no")
    assert text in answer.text and answer.choice == expected, answer.text


def test_more_of_one_colour_or_another_counts_each(ask):
    """ "Were there more things in red or in grey?": the things of each colour counted, the colour with more said."""
    answer = ask("were there more things in red or in white?")
    assert answer.text.startswith("Red: 2 red things against"), answer.text


def test_what_showed_up_after_someone_left_is_what_came_there_then(ask):
    """ "What showed up after the person left the kitchen?": what was first seen there after the person's last
    sighting (the dog), not the cup that was there already, nor what happened elsewhere."""
    for question in ("what showed up after the person left the kitchen?",
                     "right after the person left the kitchen, what showed up?"):  # fmt: skip
        answer = ask(question)
        assert "dog #3" in answer.text and "cup" not in answer.text, answer.text
        assert "living-room" not in answer.text
    after_cup = ask("after the cup showed up in the kitchen, what else came?")  # not the cup, nor who came with it
    assert "dog #3" in after_cup.text and "cup #2" not in after_cup.text and "person #1" not in after_cup.text


def test_a_pronoun_asked_alone_and_the_recordings_counted_and_ranked(ask):
    """ "Where did it go?" on its own points at nothing: it says so instead of picking a thing; "how many videos do
    you have?" counts what the cameras recorded; "what's the longest clip?" ranks them."""
    assert ask("where did it go?").text.startswith("I don't know what 'it' refers to")
    assert ask("how many videos do you have?").text.startswith("3 cameras recorded: ")
    assert ask("what's the longest clip?").text.startswith("Camera kitchen recorded the longest: 30 s")
    assert ask("which recording was the shortest?").text.startswith("Camera living-room recorded the shortest")


def test_a_colour_left_out_is_not_asked_for(ask):
    """ "How many people were seen, not counting the ones in red?": those not described in red (the one in green)."""
    answer = ask("how many people were seen, not counting the ones in red?")
    assert answer.text.startswith("1 non-red person"), answer.text
    assert ask("how many people in red were seen?").text.startswith("1 person in red")


def test_a_camera_memory_has_none_of_is_said_so(ask):
    """ "Is there any footage from the garage camera?": no camera is called so (not an answer about every camera)."""
    for question in ("Is there any footage from the garage camera?", "what did the garage cam see?"):
        answer = ask(question)
        assert answer.text.startswith("No: there is no camera called 'garage'; the cameras are "), answer.text
    assert ask("what did the kitchen camera see?").text.startswith("3 things seen on camera kitchen")


def test_how_long_until_something_left_that_never_did_says_so(ask, tmp_path, embedder):
    """ "How long after the truck came did the car leave?": the car was still in view when the street's recording
    ended, which is said, and the time to its last sighting is the least it can have been; one that left gets the
    time between."""
    assert ask("how long after the car came did the truck leave?").text.startswith("About 1 min 12 s")
    with Store(tmp_path / "home") as store:
        truck = observation(1, DAY, [500, 20, 630, 120], _vector(1), category="truck", frames=4)
        car = observation(2, DAY + 5, [100, 40, 180, 110], _vector(2), category="car", frames=10)  # to the clip's end
        store.ingest_clip(clip(DAY, 10.0, camera="street"), [truck, car])
        answer = DeterministicController(store, embedder).ask("how long after the truck came did the car leave?")
    assert answer.text.startswith("At least ") and "car last seen, still in view when its recording ended" in (
        answer.text
    ), answer.text


def test_round_eleven_forms(ask):
    """ "Was anyone still in the kitchen after noon?": no one was there then, so no; "did the person show up before or
    after the tv?": the person on the tv's camera (not the first person anywhere); a pronoun after a place named in
    the same question ("who was in the kitchen and what did they have with them?") is not asked alone."""
    assert ask("was anyone still in the kitchen after noon?").text.startswith("No: I have not seen a person")
    answer = ask("did the person show up before or after the tv?")
    assert answer.text.startswith("After: "), answer.text
    assert not ask("who was in the kitchen and what did they have with them?").text.startswith("I don't know what")


def test_a_question_asked_as_two_is_answered_as_two(ask):
    """ "When did the truck arrive and when did it leave?": each part, the second's "it" the truck of the first."""
    answer = ask("when did the truck arrive and when did it leave?")
    assert answer.text.startswith("Entity #7 (truck) was first seen"), answer.text
    assert "Entity #7 (truck) was last seen (before it left)" in answer.text, answer.text
    assert [p["intent"] for p in answer.query["parts"]] == ["when", "when"]


def test_a_count_of_a_few_things_names_them_in_the_singular_for_one(ask):
    """ "Not counting people, how many things were in the kitchen?": one thing (not "1 things"), and which it is;
    a count of a few things names each of them."""
    one = ask("not counting people, how many things were in the kitchen before noon?")
    assert one.text.startswith("2 things on camera kitchen") and "cup #2" in one.text and "dog #3" in one.text, one.text
    couch = ask("how many couches were there?")
    assert couch.text.startswith("1 couch: couch #4 ("), couch.text
    things = ask("how many things other than people and cups were in the kitchen?")
    assert things.text.startswith("1 thing on camera kitchen: dog #3"), things.text


def test_the_thing_that_was_next_to_another_is_picked_by_it(tmp_path, embedder):
    """ "What colour was the thing that was next to the couch?": the thing seen with the couch (the tv), not a tally
    over every thing in memory."""
    with Store(tmp_path / "home") as store:
        store.ingest_clip(
            clip(DAY, camera="living-room"),
            [
                observation(1, DAY, [10, 10, 150, 100], _vector(1), category="tv",
                            description=said("tv", colour="black", company=(("couch", 1),))),
                observation(2, DAY, [400, 200, 620, 340], _vector(2), category="couch",
                            description=said("couch", colour="blue", company=(("tv", 1),))),
            ],
        )  # fmt: skip
        store.ingest_clip(
            clip(DAY + 60, camera="street"),
            [
                observation(
                    3, DAY + 60, [10, 10, 50, 50], _vector(3), category="car", description=said("car", colour="red")
                )
            ],
        )
        store.close_episodes()
    with Store(tmp_path / "home", mode="read") as store:
        answer = DeterministicController(store, embedder).ask("what colour was the thing that was next to the couch?")
    assert answer.text.startswith("Black: 1 of 1 observations of the 1 thing seen") and "a black tv" in answer.text, (
        answer.text
    )


def test_a_follow_up_about_there_keeps_the_place_and_the_time_and_a_fragment_names_a_camera(house, embedder):
    """ "What about the living room after 12:00:10?" then "and what things were there?": there, then (not the couch
    seen before); "what about the kitchen?" then "and the street?": the street camera."""
    from edge_agent.qa.conversation import Conversation

    with Store(house, mode="read") as store:
        chat = Conversation(DeterministicController(store, embedder))
        chat.ask("what about the living room after 12:00:10?")
        there = chat.ask("and what things were there?").text
        assert "person #6" in there and "couch" not in there and "tv #5" not in there, there
        chat = Conversation(DeterministicController(store, embedder))
        chat.ask("who was in the kitchen?")
        assert "on camera street" in chat.ask("and the street?").text


def test_how_long_things_described_in_the_plural_stayed_is_of_all_of_them(ask):
    """ "Any vehicles parked on the street? How long did they stay?": the car and the truck, not one of them."""
    answer = ask("Any vehicles parked on the street? How long did they stay?")
    assert "2 stationary vehicles (any of them)" in answer.text, answer.text


def test_how_many_at_the_same_time_is_the_most_in_view_together(ask):
    """ "How many things were in the kitchen at once?": the person and the cup together (the dog came later), when
    that was, and which they were; "were there ever more than 2 at once?" holds it against the number."""
    answer = ask("how many things were in the kitchen at the same time?")
    assert answer.text.startswith("2 things at once on camera kitchen, first at 1970-01-02 09:00:00"), answer.text
    assert "person #1" in answer.text and "cup #2" in answer.text and "dog" not in answer.text
    assert ask("were there ever more than 2 things at once in the kitchen?").text.startswith("No: 2 things at once")


def test_what_came_right_before_a_thing_is_the_last_to_come_before_it(ask):
    """ "What came right before the truck?": the person who came to the living room last before it, not every thing
    seen before; "what did the kitchen camera see just before the dog?": the person and the cup, which came at once."""
    answer = ask("what came right before the truck?")
    assert answer.text.startswith("1 thing seen before") and "person #6" in answer.text, answer.text
    kitchen = ask("what did the kitchen camera see just before the dog?").text
    assert "person #1" in kitchen and "cup #2" in kitchen and "dog" not in kitchen, kitchen


def test_what_was_in_a_room_at_a_second_is_what_was_in_view_then(ask):
    """ "What was in the living room at 12:00:05?": nothing was in view that second (the couch and the tv were seen
    until 12:00:01.5, the person from 12:00:20), not whatever was seen ten seconds around it."""
    assert "couch #4" in ask("what was in the living room at 12:00:01?").text
    later = ask("what was in the living room at 12:00:05?").text
    assert later.startswith("I have not seen") and "couch" not in later, later


def test_how_many_kinds_of_things_is_the_number_of_kinds_and_which(ask):
    answer = ask("how many different kinds of objects did you see?")
    assert answer.text == "6 kinds: 1 car, 1 couch, 1 cup, 1 dog, 1 truck, 1 tv.", answer.text


def test_how_many_times_a_thing_came_counts_its_visits_not_its_sightings(ask):
    """ "How many times did the truck show up?": once (seen three times, the street camera recording nothing without it
    in between), while "how many times was the truck seen?" counts the sightings."""
    assert ask("how many times did the truck show up?").text.startswith("1 time: truck"), "visits"
    assert ask("how many times was the truck seen?").text.startswith("3 times: truck"), "sightings"


def test_which_left_first_says_when_one_was_still_there_at_the_end_of_the_recording(tmp_path, embedder):
    """A van and a bike in view when the drive's recording ended: neither left; a cup that left before: it left
    first."""
    with Store(tmp_path / "home") as store:
        store.ingest_clip(
            clip(DAY, camera="drive"),
            [observation(1, DAY + 8.5, [10, 10, 90, 60], _vector(1), category="truck", description=said("truck")),
             observation(2, DAY + 8.5, [200, 10, 260, 60], _vector(2), category="bicycle",
                         description=said("bicycle")),
             observation(3, DAY, [300, 100, 330, 130], _vector(3), category="cup", description=said("cup"))],
        )  # fmt: skip
    with Store(tmp_path / "home", mode="read") as store:
        controller = DeterministicController(store, embedder)
        both = controller.ask("did the truck or the bike leave first?").text
        assert both.startswith("Neither left while the cameras recorded"), both
        one = controller.ask("which left first, the truck or the cup?").text
        assert one.startswith("The cup left first") and "truck was still there as far as memory can tell" in one, one


def test_on_a_thing_is_a_box_inside_its_box_not_beside_it(tmp_path, embedder):
    """ "Was the baby on the couch?": no where its boxes were beside the couch's in the same frames (3.mp4: the baby
    sits on the floor by the couch); yes for the cat whose box lay inside the couch's; "next to the couch" holds for
    both."""
    couch = [400, 200, 620, 340]
    with Store(tmp_path / "home") as store:
        store.ingest_clip(
            clip(DAY, camera="living-room"),
            [observation(1, DAY, couch, _vector(1), category="couch",
                         description=said("couch", company=(("person", 1),))),
             observation(2, DAY, [300, 220, 390, 340], _vector(2), kind="person", category="person",
                         description=said("person", colour="red", company=(("couch", 1),))),
             observation(3, DAY, [450, 230, 520, 300], _vector(3), kind="animal", category="cat",
                         description=said("cat", company=(("couch", 1),)))],
        )  # fmt: skip
    with Store(tmp_path / "home", mode="read") as store:
        controller = DeterministicController(store, embedder)
        assert controller.ask("was the person on the couch?").text.startswith("No: I have not seen a person on a couch")
        assert controller.ask("was the cat on the couch?").text.startswith("Yes")
        assert controller.ask("was the person next to the couch?").text.startswith("Yes")


def test_there_asked_alone_points_at_nothing(house, embedder):
    """ "Still there?", "who was there?" asked alone: where 'there' is was never said, so it says so (not "Yes: 8
    things seen"); "how many people were there?" counts them; in a conversation "there" is the place talked about."""
    with Store(house, mode="read") as store:
        controller = DeterministicController(store, embedder)
        for question in ("still there?", "who was there?"):
            assert controller.ask(question).text.startswith("I don't know what 'there' refers to"), question
        assert controller.ask("how many people were there?").text.startswith("2 people")
        assert (
            "still in view" in controller.ask("is the truck still there?").text
            or "left" in controller.ask("is the truck still there?").text
        )  # a thing named: whether it stayed, not where 'there' is
        assert not controller.ask("is the person still there?").text.startswith("I don't know what 'there'")


def test_how_many_times_one_thing_was_seen_picks_it_once(ask, monkeypatch):
    """The thing counted is picked once (each pick reads the search's evidence: picked per candidate it took 3 s at a
    million observations), and the count is still of that one thing."""
    import edge_agent.qa.handlers as handlers

    calls = []
    real = handlers.among
    monkeypatch.setattr(handlers, "among", lambda *a, **k: calls.append(1) or real(*a, **k))
    assert ask("how many times was the person seen?").text.startswith("1 time: person")  # of two people, one
    assert len(calls) == 1


def test_whether_anybody_was_seen_on_more_than_one_camera_asks_of_each_one(ask):
    """Two people, each on one camera: nobody was on more than one (not "yes: 2 cameras saw a person")."""
    answer = ask("was anybody seen on more than one camera?")
    assert answer.text.startswith("No: 1 camera: person #") and "(seen on the most)" in answer.text, answer.text
    assert ask("did people show up on more than one camera?").text.startswith("Yes: 2 cameras")


def test_a_follow_up_on_the_last_seconds_stays_on_the_recording_talked_about(house, embedder):
    """ "... in the first 10 seconds of the street video?" then "and in the last 10 seconds?": of the street's
    recording (15:01:20 to 15:01:30), not the last ten seconds of all memory."""
    from edge_agent.qa.conversation import Conversation

    with Store(house, mode="read") as store:
        chat = Conversation(DeterministicController(store, embedder))
        chat.ask("how many things were in the first 10 seconds of the street video?")
        last = chat.ask("and in the last 10 seconds?").text
        assert "camera street between 1970-01-02 15:01:20" in last, last


def test_how_many_more_says_by_how_many(ask):
    """ "How many more things were on the street than in the living room?": by how many, then each side; the yes / no
    form still says whether."""
    answer = ask("how many more things were on the street than in the living room?")
    assert answer.text.startswith("None more, 1 fewer: 2 things on camera street against 3 things"), answer.text
    assert ask("how many more things were in the living room than on the street?").text.startswith("1 more: 3 things")
    assert ask("were there more things on the street than in the kitchen?").text.startswith("No: 2 things")


def test_the_colours_things_were_are_counted_each_thing_by_its_likeliest(ask):
    """ "How many colours did the people wear?": the people's colours (red and green), not the people; "how many
    colours did you see?" counts every thing's (red twice: the person and the cup; grey: the dog and the car)."""
    answer = ask("how many colours did the people wear?", "1", "2", "3")
    assert answer.text.startswith("2 colours among 2 people: green (1), red (1)") and answer.choice == "2", answer.text
    every = ask("how many different colours did you see?")
    assert every.text.startswith("6 colours among 8 things: grey (2), red (2), black (1)"), every.text


def test_a_time_alone_the_last_thing_and_a_terse_count(ask):
    """ "After 11?": what was seen then; "last thing seen in the kitchen": which it was; "times truck seen", "number
    of cameras": counts asked without "how many"."""
    assert ask("after 11?").text.startswith("5 things seen after"), ask("after 11?").text
    assert ask("last thing seen in the kitchen").text.startswith("Entity #3 (dog) was last seen")
    assert ask("times truck seen").text.startswith("3 times: truck appears in 3 observations")
    assert ask("number of cameras").text.startswith("3 cameras: kitchen, living-room, street.")


def test_a_family_word_is_the_one_person_seen_where_memory_saw_one_only(ask):
    """ "What was the kid wearing after noon?": memory cannot tell a kid from another person, but it saw one person
    only then, so that one it is; over the whole day it saw two, and lists them."""
    answer = ask("what was the kid wearing after noon?")
    assert answer.text.startswith("(Reading 'kid' as any person") and "Green" in answer.text, answer.text
    assert "2 people seen" in ask("what was the kid wearing?").text


def test_which_cameras_saw_none_of_a_kind_in_a_colour_holds_every_one_of_them(ask):
    """ "Which rooms had no one in red?": the rooms where none in red was seen, not where the likeliest one was not."""
    answer = ask("which cameras had nobody in red?")
    assert answer.text.startswith("Camera living-room, street saw no people in red"), answer.text


def test_who_showed_up_last_is_the_one_that_came_latest(ask):
    """ "Who showed up last?": of them all, the one first seen latest (the car, at 15:00:10), not the one seen last."""
    answer = ask("what showed up last on the street?")
    assert answer.text.startswith("Entity #8 (car) last arrived"), answer.text


def test_a_conversation_s_colour_alone_asks_the_same_of_that_colour(house, embedder):
    """ "How many of them wore red?" then "and green?": the same count, of those in green; "from them" is "of them"."""
    from edge_agent.qa.conversation import Conversation

    with Store(house, mode="read") as store:
        chat = Conversation(DeterministicController(store, embedder))
        assert chat.ask("how many people were seen?").text.startswith("2 people")
        assert chat.ask("how many from them wore red?").text.startswith("1 person in red")
        assert chat.ask("and green?").text.startswith("1 person in green")


def test_a_conversation_about_the_one_person_listed_keeps_them_a_person_elsewhere(house, embedder):
    """ "Who was in the kitchen?" (one person), "how long did they stay?", "and in the living room?": a person there,
    not whatever else was; "which person was not wearing red?" lists those, not who was with them."""
    from edge_agent.qa.conversation import Conversation

    with Store(house, mode="read") as store:
        chat = Conversation(DeterministicController(store, embedder))
        chat.ask("who was in the kitchen?")
        assert "Entity #1 (person)" in chat.ask("how long did they stay?").text
        assert "Entity #6 (person)" in chat.ask("and in the living room?").text
    assert ask_text(house, embedder, "which person was not wearing red?").startswith("1 non-red person seen")


def ask_text(house, embedder, question: str) -> str:
    with Store(house, mode="read") as store:
        return DeterministicController(store, embedder).ask(question).text


@pytest.mark.parametrize(
    ("question", "text"),
    [  # both read as any person: one sighting would answer for both, so no order is claimed
        ("was the baby seen after the woman?", "I cannot tell the baby from the woman"),
        ("what was the person I saw next to the couch wearing?", "Green: "),  # the one with the couch, not the first
        ("what was the guy with the couch wearing?", "I have not seen a guy with a couch"),  # not in view together
        ("did the truck stay long?", "About 1 min"),
        ("microwave?", "I have not seen a microwave"),  # a kind said alone, none seen: not what every camera saw
    ],
)
def test_round_32_answers(ask, question, text):
    answer = ask(question)
    assert text in answer.text, answer.text


def test_a_blind_round_of_conversations(house, embedder):
    """Turns a tester wrote (round 32): a thing memory has no word for is not the one talked about; "no sorry, I
    meant ..." corrects; "who stayed longer?" and "is it the same person?" hold the two talked about against each
    other; "what was the <room> one wearing?" is that person's clothes; a chat answered as of a moment moves its
    window with "before that?"."""
    from edge_agent.qa.conversation import Conversation

    as_of = DAY + 18 * 3600
    with Store(house, mode="read") as store:
        chat = Conversation(DeterministicController(store, embedder))
        chat.ask("what's in the living room?", as_of=as_of)
        assert "I don't know what a 'fireplace' is" in chat.ask("is there a fireplace in there", as_of=as_of).text
        chat = Conversation(DeterministicController(store, embedder))
        chat.ask("what colour was the cup?", as_of=as_of)
        assert chat.ask("no sorry i meant the truck", as_of=as_of).text.startswith("White: ")
        chat = Conversation(DeterministicController(store, embedder))
        chat.ask("who was in the kitchen?", as_of=as_of)
        chat.ask("and in the living room?", as_of=as_of)
        assert "seen for kitchen: 2 s; living-room: 2 s" in chat.ask("who stayed longer", as_of=as_of).text
        assert "memory holds them as two" in chat.ask("is it the same person", as_of=as_of).text
        chat = Conversation(DeterministicController(store, embedder))
        assert chat.ask("what was the living room one wearing", as_of=as_of).text.startswith("Green: ")
        chat = Conversation(DeterministicController(store, embedder))
        chat.ask("what did the cameras see between 11 and 13?", as_of=as_of)
        assert "3 things seen before 1970-01-02 11:00:00 UTC" in chat.ask("before that?", as_of=as_of).text


def test_a_colour_one_sighting_gave_counts_for_whether_any_was_not_how_many(tmp_path, embedder):
    """A person in blue whom one of three sightings called red: "was anyone in red?" may say yes (a sighting did), but
    "how many people in red?" and "which cameras saw someone in red?" count only those mostly so described."""
    home = tmp_path / "home"
    with Store(home) as store:
        for k, colour in enumerate(("blue", "red", "blue")):
            t = DAY + 9 * 3600 + 60 * k
            record = observation(1, t, [200, 50, 260, 300], _vector(1), kind="person", category="person",
                                 description=said("person", colour=colour))  # fmt: skip
            store.ingest_clip(clip(t, camera="street"), [record])
        store.close_episodes()
    with Store(home, mode="read") as store:
        controller = DeterministicController(store, embedder)
        assert controller.ask("how many people in red?").text.startswith("0"), controller.ask("how many in red?").text
        assert "not seen" in controller.ask("which cameras saw someone in red?").text
        assert controller.ask("was anyone in red?").text.startswith("Yes")
        assert controller.ask("how many people in blue?").text.startswith("1 person in blue")


def test_a_list_cut_short_says_what_all_of_them_were(tmp_path, embedder):
    """Fourteen things on the street, twelve listed: the answer ends with what all fourteen were, the two it did not
    list included."""
    home = tmp_path / "home"
    with Store(home) as store:
        records = [
            observation(k, DAY + 9 * 3600, [40 * k, 50, 40 * k + 30, 300], _vector(k), kind="person", category="person")
            for k in range(12)
        ]
        records += [
            observation(12, DAY + 9 * 3600 + 5, [500, 20, 630, 120], _vector(12), category="truck"),
            observation(13, DAY + 9 * 3600 + 5, [560, 200, 640, 300], _vector(13), category="car"),
        ]
        store.ingest_clip(clip(DAY + 9 * 3600, camera="street"), records)
        store.close_episodes()
    with Store(home, mode="read") as store:
        text = DeterministicController(store, embedder).ask("what was on the street?").text
    assert text.startswith("14 things seen on camera street"), text
    assert text.endswith("and 2 more (12 people, 1 car and 1 truck in all)."), text


def test_a_conversation_moves_its_window_a_day_back_or_on_to_later_that_day(house, embedder):
    """ "Who was in the kitchen that morning?" then "and the day before?": the same question of the morning before;
    "what was on the street at 15:00?" then "what about later that day?": what came after that window."""
    from edge_agent.qa.conversation import Conversation

    with Store(house, mode="read") as store:
        chat = Conversation(DeterministicController(store, embedder))
        day = format_utc(DAY, zone=False)[:10]
        assert chat.ask(f"who was in the kitchen on the morning of {day}?").text.startswith("1 person seen")
        before = chat.ask("and the day before?").text
        assert before.startswith("I have not seen a person on camera kitchen between 1970-01-01 06:00:00"), before
        chat.ask(f"what was on the street at 15:00 on {day}?")
        later = chat.ask("what about later that day?").text
        assert "after 1970-01-02 15:" in later or "between 1970-01-02 15:" in later, later
