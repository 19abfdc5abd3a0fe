"""The people world (issue 20): clothes change from day to day while faces stay; faces are drawn and read back
from the rendered pixels by the stand-in face embedder, in a space shaped like dlib's (the same thresholds)."""

from __future__ import annotations

import numpy as np

from edge_agent.config import FacesConfig
from edge_agent.eval.draw import _background, render_frame
from edge_agent.eval.faces import DRAWN_FACE_SPACE, DrawnFaces, portrait
from edge_agent.eval.world import SCENARIOS, load_scenario, simulate
from edge_agent.perception.observe import crop


def _crops(world, person, most=400):
    """(day, crop) of ``person`` over the rendered frames, as the tracker would cut them (5% margin)."""
    out = []
    for session in world.sessions:
        for f, shown in enumerate(session.boxes):
            box = next((b for i, b in shown if i == person), None)
            if box is None or f % 7:
                continue
            image = render_frame(world, session, f, _background(world, session.light), np.random.default_rng(f))
            out.append((session.day, crop(image, np.asarray(box, np.float32))))
            if len(out) >= most:
                return out
    return out


def test_people_change_clothes_between_days_while_faces_stay():
    scenario = load_scenario(SCENARIOS / "people-days.json")
    world = simulate(scenario, seed=0)
    assert {s.day for s in world.sessions} == set(range(scenario.days))
    ann = scenario.people[0]
    assert ann.colour_on(0) != ann.colour_on(1) and ann.colour_on(7) == ann.colour_on(0)
    assert [p.id for p in scenario.people if p.named] == ["ann", "ben"]
    seen = {p.id: sum(1 for s in world.sessions if s.visible(p.id)) for p in scenario.people}
    assert seen["ann"] > seen["courier"]  # the household comes more often than a visitor


def test_drawn_faces_read_back_from_pixels_are_one_person_across_days():
    world = simulate(load_scenario(SCENARIOS / "people-days.json"), seed=0)
    reader = DrawnFaces()
    thresholds = FacesConfig().thresholds(DRAWN_FACE_SPACE)
    faces = {}
    for person in ("ann", "courier"):
        crops = _crops(world, person, most=60)
        read = [(day, reader.read(c)) for day, c in crops]
        found = [(day, f) for day, f in read if f is not None]
        assert 0.25 < len(found) / len(read) < 0.8  # turned away about half the time (scenario: faces 0.5)
        assert len({day for day, _ in found}) >= 2
        faces[person] = np.stack([f.vector for _, f in found])
    own = faces["ann"] @ faces["ann"].T
    assert np.percentile(own[np.triu_indices(len(own), 1)], 5) >= thresholds.same  # other clothes, the same face
    assert (faces["ann"] @ faces["courier"].T).max() < thresholds.different
    enrolled = reader.best([portrait(0)])[0].vector
    assert np.median(faces["ann"] @ enrolled) >= thresholds.same and (faces["courier"] @ enrolled).max() < 0.9


def test_a_person_turned_away_or_too_small_shows_no_face():
    reader = DrawnFaces()
    picture = portrait(1)
    assert reader.read(picture) is not None
    assert reader.read(np.full_like(picture, 90)) is None  # hair, or a wall: no pattern
    small = picture[::4, ::4]
    assert reader.read(small) is None
