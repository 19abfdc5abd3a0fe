"""The one filter a question's constraints go through (issue 38): the cameras or places it names and its time
window (with the as-of bound) make a :class:`Scope`; handlers read memory only through a :class:`View` of it, so
no handler can forget a constraint, and :meth:`Scope.holds` checks every observation an answer cites."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from edge_agent.language.grammar import Place, Side, Subject, Time
from edge_agent.memory import Observation, Store, queries
from edge_agent.memory.queries import Sighting

__all__ = ["Scope", "View"]

#: At most this many entities are listed for a question that names no kind (a year of memory holds many).
LIST_LIMIT = 200


@dataclass(frozen=True)
class Scope:
    """Where and when a side of a question is about: observations on ``cameras`` (all if empty) overlapping
    [start, end), at ``zones`` / ``regions`` (any if empty)."""

    cameras: tuple[str, ...] = ()
    start: float | None = None
    end: float | None = None
    zones: tuple[str, ...] = ()
    regions: tuple[str, ...] = ()

    @classmethod
    def of(cls, place: Place, time: Time) -> Scope:
        return cls(place.cameras, time.start, time.end, place.zones, place.regions)

    def holds(self, o: Observation) -> bool:
        """Whether an observation is inside the scope's cameras and time (the constraints an answer may not break)."""
        return (
            (not self.cameras or o.camera in self.cameras)
            and (self.start is None or o.t_end >= self.start)
            and (self.end is None or o.t_start < self.end)
        )

    def at_place(self, o: Observation) -> bool:
        return (not self.zones and not self.regions) or o.zone in self.zones or o.region in self.regions

    @property
    def narrowed(self) -> bool:
        return bool(self.cameras or self.zones or self.regions) or self.start is not None or self.end is not None


class View:
    """Memory as one side of a question sees it: every read goes through its scope."""

    def __init__(self, store: Store, scope: Scope) -> None:
        self.store = store
        self.scope = scope

    @classmethod
    def of(cls, store: Store, side: Side) -> View:
        scope = Scope.of(side.place, side.time)
        if side.place.not_cameras:  # every camera but those
            others = [c for c in (side.place.cameras or store.cameras()) if c not in side.place.not_cameras]
            scope = replace(scope, cameras=tuple(others) or ("",))
        if side.time.of_recording:
            scope = _of_recording(store, scope, side.time)
        return cls(store, scope)

    def sightings(self, subject: Subject, *, limit: int | None = None, detail: bool = False) -> list[Sighting]:
        """The entities the subject may be (its kinds, its entity, or any kind for a generic one), as seen in scope;
        most recently seen first. ``detail``: with how many observations and which cameras even where nothing
        narrows the scope (a scan of the kind's observations)."""
        s = self.scope
        if subject.entity_id is None and not subject.kinds and not subject.generic:
            return []
        return queries.sightings_in(
            self.store,
            None if subject.generic and not subject.kinds else list(subject.kinds),
            entity_id=subject.entity_id,
            exclude=subject.exclude,
            cameras=s.cameras,
            start=s.start,
            end=s.end,
            zones=s.zones,
            regions=s.regions,
            limit=limit if limit is not None else (LIST_LIMIT if subject.generic and not subject.kinds else None),
            detail=detail,
        )

    def history(self, entity_id: int) -> list[Observation]:
        """The entity's observations in scope, in time order."""
        return [o for o in self.store.observations(entity_id) if self.scope.holds(o) and self.scope.at_place(o)]

    def context(self, entity_id: int) -> list[Observation]:
        """The entity's observations up to the scope's end, on every camera and place: what came before a move."""
        end = self.scope.end
        return [o for o in self.store.observations(entity_id) if end is None or o.t_start < end]

    def cameras_seeing(self, entity_ids: Sequence[int]) -> list[queries.CameraSighting]:
        rows = queries.cameras_seeing(self.store, entity_ids, start=self.scope.start, end=self.scope.end)
        return [r for r in rows if not self.scope.cameras or r.camera in self.scope.cameras]

    def described_as(self, entity_ids: Sequence[int], field: str) -> list[tuple[str, int, int, float]]:
        s = self.scope
        return queries.described_as(self.store, entity_ids, field, before=s.end, after=s.start, cameras=s.cameras)

    def likeliest(self, entity_ids: Sequence[int], field: str) -> dict[int, str]:
        s = self.scope
        return queries.likeliest(self.store, entity_ids, field, before=s.end, after=s.start, cameras=s.cameras)

    def cameras(self) -> list[str]:
        """The cameras in scope: those named, else every camera memory knows."""
        return list(self.scope.cameras) or self.store.cameras()


def _of_recording(store: Store, scope: Scope, time: Time) -> Scope:
    """ "In the first minute of the street video", "at the end of the recording": that stretch of what the scope's
    cameras recorded (its part said, else a tenth of it where no length is said), within the scope's window."""
    recorded = store.recordings(scope.cameras, scope.start, scope.end)
    if not recorded:
        return scope
    first, last = min(r.start for r in recorded), max(r.end for r in recorded)
    span = time.recording_s or max(1.0, (last - first) * (time.recording_part or 0.1))
    start, end = (first, first + span) if time.of_recording == "first" else (last - span, last)
    return replace(
        scope,
        start=max(start, scope.start) if scope.start is not None else start,
        end=min(end, scope.end) if scope.end is not None else end,
    )
