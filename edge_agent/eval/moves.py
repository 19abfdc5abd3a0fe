"""What memory holds of a synthetic world's moves (issue 41): the script's puts and takes of things against the
observations memory kept, and how many of the true boxes perception found at all, per instance. The change finder
(ReflectWorld-MM / GEB: things the detector has no class for, found by what changed) is judged here: a put is
recalled when the thing is seen where it was put soon after; of a take, the log holds the event, and memory may
hold the thing in the taker's hands or the region it left."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from typing import Any

import numpy as np

from edge_agent import native
from edge_agent.eval.scene import box_of
from edge_agent.eval.world import ANIMALS, Event, Session, World
from edge_agent.memory import Store, queries
from edge_agent.memory.takings import TakingRow

__all__ = ["MOVE_WINDOW_S", "TAKING_WINDOW_S", "box_recall", "score_moves"]

MOVE_WINDOW_S = 10.0  #: seconds after a put (or take) within which memory must have seen it to recall it
#: A taking memory kept is of a take in the script from this long before it (its last frame to the hand) until the
#: thing is put down again (carried out of view, it goes with the person).
TAKING_WINDOW_S = 3.0
MATCH_IOU = 0.5  #: a memory box and a true box are the same thing at this IoU or more (as GroundTruth labels)

_Boxes = dict[int, tuple[np.ndarray, np.ndarray]]  # observation id -> (frame ms (N,), xyxy (N, 4))


def _session_at(world: World, t: float) -> Session | None:
    return next((s for s in world.sessions if s.t_start <= t <= s.t_end), None)


def _drawn_box(world: World, session: Session, instance: str, t: float) -> np.ndarray | None:
    """Where the instance is drawn at the frame holding ``t``, hidden or not (a thing being picked up is behind the
    person taking it); None when it is not in the picture then."""
    frame = int(np.clip(np.floor((t - session.t_start) * session.fps + 1e-6), 0, session.frames - 1))
    centre = session.positions[frame].get(instance)
    if centre is None:
        return None
    category = next(e.category for e in world.scenario.entities if e.id == instance)
    x0, y0, x1, y1 = box_of(centre, category, session.scale, session.turns.get(instance, 0.0))
    view = session.view_x[frame]
    return np.array([x0 - view, y0, x1 - view, y1], np.float32)


def _frames_between(boxes: _Boxes, ids: list[int], t0: float, t1: float) -> list[tuple[int, float, np.ndarray]]:
    """(observation id, frame time s, box) of the given observations' frames within [t0, t1]."""
    out = []
    for o in ids:
        frames, xyxy = boxes[o]
        times = frames / 1000.0
        for k in np.flatnonzero((times >= t0 - 1e-3) & (times <= t1 + 1e-3)):
            out.append((o, float(times[k]), xyxy[k]))
    return sorted(out, key=lambda x: x[1])


def score_moves(world: World, store: Store, labels: dict[int, str], window: float = MOVE_WINDOW_S) -> dict[str, Any]:
    """Puts (``put_down``, ``bring_back``) and takes (``pick_up``, ``take_out``) of things (not animals) against
    memory's observations (``labels``: observation id -> the true instance, :meth:`GroundTruth.label_observations`).

    - a put is *recalled* when an observation of the thing has a frame within ``window`` seconds after the put
      (the thing stays where it was put until it is next taken; its delay is reported either way, or None when
      memory never saw it there before it was taken again);
    - a take: ``in_hands`` when an observation of the thing has a frame while it is carried (up to its next put,
      else the end of the session), within ``window``; ``left_region`` when an observation of something else (or
      of nothing true) has a frame within ``window`` after the take whose box is where the thing was drawn just
      before it (IoU >= 0.5): the changed region it left behind; ``recorded`` when memory kept a taking of the
      thing (:mod:`edge_agent.memory.takings`) within :data:`TAKING_WINDOW_S` of it, ``by_actor`` when by the one
      who took it. ``takings_true``: of the takings memory kept (``takings_kept``), those of a take in the script."""
    boxes = store.observation_boxes(world.camera)
    by_instance: dict[str, list[int]] = defaultdict(list)
    for o, instance in labels.items():
        if o in boxes:
            by_instance[instance].append(o)
    things = {e.id for e in world.scenario.things if e.category not in ANIMALS}
    kept = store.takings(world.camera)
    events = [e for e in world.events if e.subject in things]
    puts: list[dict[str, Any]] = []
    takes: list[dict[str, Any]] = []
    for k, e in enumerate(events):
        later = [n for n in events[k + 1 :] if n.subject == e.subject]
        if e.kind in ("put_down", "bring_back"):
            until = next((n.t for n in later if n.kind in ("pick_up", "take_out")), world.sessions[-1].t_end)
            seen = _frames_between(boxes, by_instance[e.subject], e.t, until)
            delay = seen[0][1] - e.t if seen else None
            puts.append(_event(e) | {"delay_s": delay, "recalled": delay is not None and delay <= window})
        elif e.kind in ("pick_up", "take_out"):
            until = next((n.t for n in later if n.kind in ("put_down", "bring_back")), world.sessions[-1].t_end)
            takes.append(
                _event(e) | _take(world, boxes, by_instance, e, later, window) | _taken(kept, labels, e, until)
            )
    return {
        "window_s": window,
        "puts": len(puts),
        "puts_recalled": sum(p["recalled"] for p in puts),
        "puts_seen_later": sum(p["delay_s"] is not None and not p["recalled"] for p in puts),
        "takes": len(takes),
        "takes_in_hands": sum(t["in_hands"] for t in takes),
        "takes_left_region": sum(t["left_region"] for t in takes),
        "takes_recorded": sum(t["recorded"] for t in takes),
        "takes_recorded_by_actor": sum(t["by_actor"] for t in takes),
        "takings_kept": len(kept),
        "takings_true": sum(any(o in truly for truly in (_near(kept, labels, x) for x in takes)) for o, _, _ in kept),
        "put_events": puts,
        "take_events": takes,
    }


def _taken(kept: Sequence[TakingRow], labels: dict[int, str], e: Event, until: float) -> dict[str, float | bool]:
    """Whether memory kept a taking (:mod:`edge_agent.memory.takings`) of the thing from :data:`TAKING_WINDOW_S`
    before the take until it was put down again (``recorded``), and by the one who took it (``by_actor``)."""
    near = [(o, by) for o, t, by in kept if labels.get(o) == e.subject and e.t - TAKING_WINDOW_S <= t <= until]
    return {
        "until": until,
        "recorded": bool(near),
        "by_actor": any(by is not None and labels.get(by) == e.actor for _, by in near),
    }


def _near(kept: Sequence[TakingRow], labels: dict[int, str], take: dict[str, Any]) -> set[int]:
    return {
        o for o, t, _ in kept if labels.get(o) == take["thing"] and take["t"] - TAKING_WINDOW_S <= t <= take["until"]
    }


def _event(e: Event) -> dict[str, Any]:
    return {"t": e.t, "kind": e.kind, "thing": e.subject, "actor": e.actor, "place": e.place}


def _take(
    world: World, boxes: _Boxes, by_instance: dict[str, list[int]], e: Event, later: list[Event], window: float
) -> dict[str, bool]:
    session = _session_at(world, e.t)
    if session is None:
        return {"in_hands": False, "left_region": False}
    put = next((n.t for n in later if n.kind in ("put_down", "bring_back") and n.t <= session.t_end), session.t_end)
    in_hands = bool(_frames_between(boxes, by_instance[e.subject], e.t, min(put, e.t + window)))
    before = _drawn_box(world, session, e.subject, e.t - 1.0 / session.fps)
    left = False
    if before is not None:
        theirs = set(by_instance[e.subject])
        others = [o for o in boxes if o not in theirs]
        for _, _, box in _frames_between(boxes, others, e.t, e.t + window):
            if native.iou_matrix(np.asarray(box, np.float32)[None], before[None])[0, 0] >= MATCH_IOU:
                left = True
                break
    return {"in_hands": in_hands, "left_region": left}


def box_recall(world: World, store: Store, labels: dict[int, str]) -> dict[str, Any]:
    """Per true instance, the share of its true boxes (every frame it is in view, before fragmentation) that some
    observation's box matches (IoU >= 0.5) on that frame; and memory's observations and entities per category,
    with how many of each category's observations saw a true instance (``labelled``)."""
    boxes = store.observation_boxes(world.camera)
    at: dict[int, list[np.ndarray]] = defaultdict(list)
    for frames, xyxy in boxes.values():
        for ms, box in zip(frames.tolist(), xyxy):
            at[int(ms)].append(box)
    found: Counter[str] = Counter()
    shown: Counter[str] = Counter()
    for s in world.sessions:
        for f, visible in enumerate(s.true_boxes):
            ms = int(np.round((s.t_start + f / s.fps) * 1000.0))
            mine = at.get(ms) or at.get(ms - 1) or at.get(ms + 1) or []
            for instance, box in visible:
                shown[instance] += 1
                if (
                    mine
                    and native.iou_matrix(np.asarray(box, np.float32)[None], np.asarray(mine, np.float32)).max()
                    >= MATCH_IOU
                ):
                    found[instance] += 1
    entities = queries.observation_entities(store)
    categories: dict[str, dict[str, Any]] = {}
    for o in store.observations_by_id(sorted(boxes)):
        c = categories.setdefault(o.category, {"observations": 0, "labelled": 0, "entities": set(), "instances": {}})
        c["observations"] += 1
        if o.id in entities:
            c["entities"].add(entities[o.id])
        if o.id in labels:
            c["labelled"] += 1
            c["instances"][labels[o.id]] = c["instances"].get(labels[o.id], 0) + 1
    return {
        "boxes_found": {i: round(found[i] / n, 4) for i, n in sorted(shown.items())},
        "by_category": {
            name: c | {"entities": len(c["entities"]), "instances": dict(sorted(c["instances"].items()))}
            for name, c in sorted(categories.items())
        },
    }
