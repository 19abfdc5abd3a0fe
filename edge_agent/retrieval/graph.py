"""The memory graph for retrieval (GEB section 3.4): nodes are observations, entities, clips and
episodes; edges are the memory's own links, weighted by relation. Graph edges are not a separate
store: they are the foreign keys, made into compact arrays (CSR) when a question needs them.

The arrays are saved beside the database (``<home>/index/graph/``) with the memory's graph revision (moved by
schema triggers whenever a node or link changes), the relation weights they were made with and the rows they were
made of. A process that finds them current opens them memory-mapped instead of reading a year of rows again, and
only the pages local push walks become resident; one that finds them behind reads only the rows changed since
(memory records which, per revision). Where memory only added (clips, observations, episodes, entities, relations:
what ingest does), the arrays are grown from the earlier ones in one pass, touched rows re-weighted from each node's
saved weight sum; where it changed or let go of rows (a merge, a correction, retention), the arrays are remade from
the saved rows with the changed ones. A question about an earlier moment (``as_of``) is answered from the rows that
existed then, cut from the same arrays."""

from __future__ import annotations

import json
import logging
import os
import shutil
import uuid
from dataclasses import dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from edge_agent import native
from edge_agent.config.retrieval import RelationWeights
from edge_agent.errors import EdgeAgentError
from edge_agent.memory import Store, derived

if TYPE_CHECKING:  # SciPy is imported where a matrix is made: a process answering from saved arrays skips it
    import scipy.sparse as sp

__all__ = ["Csr", "GraphRows", "MemoryGraph", "RelationWeights", "load_graph"]

log = logging.getLogger(__name__)

#: 2: the shares are float32; 3: the rows are saved with the arrays; 4: and each node's weight sum; 5: and each file's
#: size and checksum (memory/derived.py)
_FORMAT = 5
SCALES = ("clip", "10min", "hour", "day")  #: episode scales, by code


@dataclass
class Csr:
    """A square sparse matrix as the native kernels take it: row offsets (int64), column indices (int32), values."""

    indptr: np.ndarray
    indices: np.ndarray
    data: np.ndarray

    @property
    def shape(self) -> tuple[int, int]:
        n = len(self.indptr) - 1
        return (n, n)


@dataclass
class GraphRows:
    """What the memory graph is made of: memory's rows as columns in id order (cameras as codes into ``cameras``,
    scales as codes into :data:`SCALES`)."""

    observation_ids: np.ndarray
    observation_entities: np.ndarray  # -1: none
    observation_clips: np.ndarray
    observation_times: np.ndarray
    clip_ids: np.ndarray
    clip_times: np.ndarray
    clip_cameras: np.ndarray
    episode_ids: np.ndarray
    episode_clips: np.ndarray  # -1: none
    episode_parents: np.ndarray  # -1: none
    episode_times: np.ndarray
    episode_cameras: np.ndarray
    episode_scales: np.ndarray
    entity_relations: np.ndarray  # (n, 3): entity a, entity b, similarity
    cameras: list[str]

    #: the columns of each table, its ids first
    COLUMNS = {
        "observations": ("observation_ids", "observation_entities", "observation_clips", "observation_times"),
        "clips": ("clip_ids", "clip_times", "clip_cameras"),
        "episodes": (
            "episode_ids",
            "episode_clips",
            "episode_parents",
            "episode_times",
            "episode_cameras",
            "episode_scales",
        ),
    }

    @classmethod
    def _from_memory(cls, raw: dict[str, np.ndarray], cameras: list[str]) -> GraphRows:
        """From :meth:`Store.graph_rows`' arrays, naming cameras by their codes in ``cameras`` (new names added)."""
        codes = {name: i for i, name in enumerate(cameras)}

        def code(names: np.ndarray) -> np.ndarray:
            return np.array([codes.setdefault(str(c), len(codes)) for c in names], dtype=np.int32)

        obs, episodes = raw["observations"], raw["episodes"]
        clip_cameras, episode_cameras = code(raw["clip_cameras"]), code(raw["episode_cameras"])
        return cls(
            obs[:, 0].copy(),
            obs[:, 1].copy(),
            obs[:, 2].copy(),
            raw["observation_times"],
            raw["clips"],
            raw["clip_times"],
            clip_cameras,
            episodes[:, 0].copy(),
            episodes[:, 1].copy(),
            episodes[:, 2].copy(),
            raw["episode_times"],
            episode_cameras,
            np.array([SCALES.index(str(s)) for s in raw["episode_scales"]], dtype=np.int8),
            raw["entity_relations"],
            list(codes),
        )

    @classmethod
    def read(cls, store: Store) -> GraphRows:
        """All of memory's graph rows."""
        return cls._from_memory(store.graph_rows(), [])

    def changes(self, store: Store, since: int, until: int) -> tuple[dict[str, np.ndarray], GraphRows] | None:
        """What changed in memory after revision ``since`` (these rows' revision) up to ``until``: the ids changed per
        table and those rows as memory holds them now (cameras by these rows' codes); None when memory no longer knows
        which rows those are."""
        return _changes(store, since, until, self.cameras)

    def updated(self, store: Store, since: int, until: int) -> GraphRows | None:
        """These rows (memory's at revision ``since``) with the rows changed up to ``until`` read again; None when
        memory no longer knows which rows those are."""
        read = self.changes(store, since, until)
        return self.merged(*read) if read is not None else None

    def merged(self, changed: dict[str, np.ndarray], fresh: GraphRows) -> GraphRows:
        """These rows with ``changed`` (ids per table) replaced by ``fresh`` (those that still exist, read again)."""
        columns: dict[str, Any] = {"entity_relations": fresh.entity_relations, "cameras": fresh.cameras}
        for table, names in self.COLUMNS.items():
            old_ids, gone = getattr(self, names[0]), changed[table]
            position = np.searchsorted(old_ids, gone)
            found = position < len(old_ids)
            found[found] = old_ids[position[found]] == gone[found]
            keep = np.ones(len(old_ids), bool)
            keep[position[found]] = False  # changed or deleted: what memory holds now is in fresh
            kept_ids = old_ids[keep]
            at = np.searchsorted(kept_ids, getattr(fresh, names[0]))
            for name in names:
                columns[name] = np.insert(np.asarray(getattr(self, name))[keep], at, getattr(fresh, name))
        return GraphRows(**columns)

    def joined(self, added: GraphRows) -> GraphRows:
        """These rows with ``added`` after them in each table (ids above these'), and ``added``'s relations and
        cameras (memory's as they were read last)."""
        return GraphRows(
            **{
                name: np.concatenate([np.asarray(getattr(self, name)), getattr(added, name)])
                for names in self.COLUMNS.values()
                for name in names
            },
            entity_relations=added.entity_relations,
            cameras=added.cameras,
        )

    def all_before(self, t: float) -> bool:
        """Whether every row started before ``t``: the memory asked as of ``t`` is all of it (nothing to cut)."""
        for names in self.COLUMNS.values():
            times = np.asarray(getattr(self, names[0].replace("_ids", "_times")))
            if len(times) and float(times.max()) >= t:
                return False
        return True

    def before(self, t: float) -> GraphRows:
        """The rows of what started before ``t`` (the memory a question asked as of ``t`` is answered from)."""
        columns: dict[str, Any] = {"entity_relations": self.entity_relations, "cameras": self.cameras}
        for names in self.COLUMNS.values():
            kept = np.asarray(getattr(self, names[0].replace("_ids", "_times"))) < t
            columns.update({name: np.asarray(getattr(self, name))[kept] for name in names})
        return GraphRows(**columns)

    def arrays(self) -> dict[str, np.ndarray]:
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name != "cameras"}


#: The blocks of a graph's nodes, in order: node i < n_obs is observation i of its rows, then the entities, the clips
#: and the episodes, each in id order.
KINDS = ("observation", "entity", "clip", "episode")


@dataclass
class MemoryGraph:
    """The memory graph as local push and power iteration take it. A graph grown by what memory added keeps the
    arrays it was grown from (``passes``, memory-mapped from disk when opened saved) with a patch of the rows that
    differ (:class:`edge_agent.native.Patch`: the added nodes' and the rows their links touch) and the rows added
    (``added``): growing it costs what was added since that base, not a copy of the year's arrays; :meth:`flat`
    joins them."""

    passes: Csr  #: where each node of the base passes its relevance, row-stochastic (row u: u's links), for local push
    base_rows: GraphRows  #: what the base was made of (blocks in :data:`KINDS` order)
    entity_ids: np.ndarray  #: the entities, in id order (the base's first)
    revision: int  #: memory's graph revision it was made at (-1: not known)
    degree: np.ndarray  #: each base node's sum of edge weights (0: none), what the graph is grown from
    base_revision: int = -1  #: the revision its base was made at (its own where there is no patch)
    patch: native.Patch | None = None  #: the rows that differ from the base's, in this graph's numbering
    added: GraphRows | None = None  #: the rows memory added since the base, after the base's in each table
    _rows: GraphRows | None = None
    _flat: MemoryGraph | None = None
    _transitions: sp.csr_matrix | None = None
    _by_clip: tuple[np.ndarray, np.ndarray] | None = None

    @property
    def rows(self) -> GraphRows:
        """What it is made of: the base's rows with the added ones (joined on first use)."""
        if self.added is None:
            return self.base_rows
        if self._rows is None:
            self._rows = self.base_rows.joined(self.added)
        return self._rows

    @property
    def observation_ids(self) -> np.ndarray:
        return self.rows.observation_ids

    @property
    def observation_entity(self) -> np.ndarray:
        """Entity id per observation node (-1: none)."""
        return self.rows.observation_entities

    @property
    def observation_clip(self) -> np.ndarray:
        return self.rows.observation_clips

    @property
    def clip_ids(self) -> np.ndarray:
        return self.rows.clip_ids

    @property
    def episode_ids(self) -> np.ndarray:
        return self.rows.episode_ids

    @property
    def cameras(self) -> list[str]:
        """The cameras its rows name by code."""
        return (self.added if self.added is not None else self.base_rows).cameras

    def changes(self, store: Store, until: int) -> tuple[dict[str, np.ndarray], GraphRows] | None:
        """What changed in memory after this graph's revision up to ``until`` (:meth:`GraphRows.changes`)."""
        return _changes(store, self.revision, until, self.cameras)

    def _parts(self, name: str) -> tuple[np.ndarray, np.ndarray]:
        """A column of the rows as the base's and the added ones' (these follow those)."""
        base = np.asarray(getattr(self.base_rows, name))
        return base, getattr(self.added, name) if self.added is not None else base[:0]

    def sizes(self) -> list[int]:
        """Nodes per block, in :data:`KINDS` order."""
        return [
            len(self.entity_ids) if kind == "entity" else sum(len(part) for part in self._parts(f"{kind}_ids"))
            for kind in KINDS
        ]

    def block(self, kind: str) -> tuple[int, int]:
        """The nodes of a kind (:data:`KINDS`): first and one past the last."""
        sizes = self.sizes()
        k = KINDS.index(kind)
        start = sum(sizes[:k])
        return start, start + sizes[k]

    def positions(self, kind: str, ids: Any) -> np.ndarray:
        """Where ``ids`` of a kind (observation, clip, episode) are in its table, -1 where the graph has none."""
        base, added = self._parts(f"{kind}_ids")
        ids = np.asarray(ids, dtype=np.int64).reshape(-1)
        at = np.full(len(ids), -1, np.int64)
        for offset, column in ((0, base), (len(base), added)):
            if len(column):
                position = np.minimum(np.searchsorted(column, ids), len(column) - 1)
                found = (column[position] == ids) & (at < 0)
                at[found] = offset + position[found]
        return at

    def nodes(self, kind: str, ids: Any) -> np.ndarray:
        """The nodes of ``ids`` of a kind (observation, clip, episode), -1 where the graph has none."""
        at = self.positions(kind, ids)
        return np.where(at >= 0, self.block(kind)[0] + at, -1)

    def column(self, name: str, positions: Any) -> np.ndarray:
        """A column of the rows (``observation_ids``, ``observation_entities``, ``episode_ids``, ...) at ``positions``
        within its table, read from the base's and the added rows without joining them."""
        base, added = self._parts(name)
        positions = np.asarray(positions, dtype=np.int64).reshape(-1)
        in_base = positions < len(base)
        out = np.empty(len(positions), base.dtype)
        out[in_base] = base[positions[in_base]]
        out[~in_base] = added[positions[~in_base] - len(base)]
        return out

    def observations_of_clip(self, clip_id: int) -> np.ndarray:
        """The observation nodes of a clip (the nodes ordered by clip on first use)."""
        if self._by_clip is None:
            order = np.argsort(self.observation_clip, kind="stable")
            self._by_clip = (order, np.asarray(self.observation_clip)[order])
        order, clips = self._by_clip
        lo, hi = np.searchsorted(clips, clip_id, side="left"), np.searchsorted(clips, clip_id, side="right")
        return order[lo:hi]

    def push(
        self, nodes: np.ndarray, weights: np.ndarray, *, restart: float, epsilon: float
    ) -> tuple[np.ndarray, np.ndarray]:
        """Personalized PageRank by local push from the seed ``nodes`` (with their weights) over this graph: (nodes,
        scores) of the nodes reached."""
        from edge_agent.retrieval.ppr import push_from

        return push_from(self.passes, nodes, weights, restart=restart, epsilon=epsilon, patch=self.patch)

    def flat(self) -> MemoryGraph:
        """This graph as arrays of its own (the patch joined to the base's), made on first use."""
        if self.patch is None:
            return self
        if self._flat is None:
            p = self.passes
            indptr, indices, data, degree = native.row_stochastic_flatten(
                (p.indptr, p.indices, p.data, self.degree), self.patch
            )
            self._flat = MemoryGraph(
                Csr(indptr, indices, data), self.rows, self.entity_ids, self.revision, degree, self.revision
            )
        return self._flat

    @property
    def transitions(self) -> sp.csr_matrix:
        """Column-stochastic transitions (the passes' transpose), for power iteration; made on first use."""
        if self._transitions is None:
            import scipy.sparse as sp

            p = self.flat().passes
            self._transitions = sp.csr_matrix((p.data, p.indices, p.indptr), shape=p.shape).T.tocsr()
        return self._transitions

    @property
    def n(self) -> int:
        return self.patch.n if self.patch is not None else len(self.passes.indptr) - 1

    def save(self, folder: Path, weights: RelationWeights) -> None:
        """Writes the arrays into a new folder inside ``folder``, then points ``folder``/current.json at it
        (atomically) and removes the earlier ones: a reader sees the old graph or the new one, never half of one. A
        graph made at an earlier revision than the one saved there is not saved."""
        saved = _manifest(folder)
        if saved is not None and saved.get("format") == _FORMAT and int(saved.get("revision", -1)) > self.revision:
            return
        graph = self.flat()
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        name = f"r{self.revision}-{uuid.uuid4().hex[:8]}"
        target = folder / name
        target.mkdir(mode=0o700)
        arrays = {
            "indptr": graph.passes.indptr,
            "indices": graph.passes.indices,
            "data": graph.passes.data,
            "entity_ids": graph.entity_ids,
            "degree": graph.degree,
            **graph.rows.arrays(),
        }
        files: dict[str, Any] = {}
        for array_name, array in arrays.items():
            path = target / f"{array_name}.npy"
            with open(path, "wb") as f:
                np.save(f, np.ascontiguousarray(array), allow_pickle=False)
            files[f"{name}/{path.name}"] = derived.file_record(path)
        manifest = {
            "format": _FORMAT,
            "revision": self.revision,
            "weights": weights.model_dump(),
            "cameras": graph.rows.cameras,
            "folder": name,
            "files": files,
        }
        tmp = folder / f".current.{uuid.uuid4().hex[:8]}.tmp"
        tmp.write_text(json.dumps(manifest))
        os.replace(tmp, folder / "current.json")
        for old in folder.iterdir():  # earlier graphs (a process still reading one keeps its mapped pages)
            if old.is_dir() and old.name != name:
                shutil.rmtree(old, ignore_errors=True)

    @classmethod
    def load(cls, folder: Path) -> tuple[MemoryGraph, dict[str, Any]] | None:
        """The graph saved in ``folder``, memory-mapped, with its manifest (revision, weights); None when there is
        none, it is of an earlier format, or unreadable or damaged (said; a damaged one is set aside). Each file's
        checksum is checked first: one pass over the arrays (a million observations: 107 MB, 9.8 ms from the page
        cache, against 2.3 ms to map them unchecked), and a question may then trust them (an index out of range, a NaN
        share, a row id overwritten would otherwise fail every question or answer wrongly)."""
        manifest = _manifest(folder)
        if manifest is None or manifest.get("format") != _FORMAT:
            return None
        files = manifest.get("files")
        damage = derived.damage(folder, files) if isinstance(files, dict) else f"{folder}/current.json names no files"
        if damage is not None:
            saved_in = folder / str(manifest.get("folder", ""))
            derived.set_aside(folder.parent, [saved_in] if saved_in != folder else [], damage)
            return None
        names = [
            "indptr",
            "indices",
            "data",
            "entity_ids",
            "degree",
            *(f.name for f in fields(GraphRows) if f.name != "cameras"),
        ]
        try:
            saved = folder / str(manifest["folder"])
            a = {name: np.load(saved / f"{name}.npy", mmap_mode="r", allow_pickle=False) for name in names}
            cameras = [str(c) for c in manifest["cameras"]]
            revision = int(manifest["revision"])
        except (OSError, ValueError, KeyError, TypeError) as exc:
            log.warning("the saved memory graph in %s is unreadable (%s): rebuilding it", folder, exc)
            return None
        passes = Csr(a.pop("indptr"), a.pop("indices"), a.pop("data"))
        entity_ids, degree = a.pop("entity_ids"), a.pop("degree")
        rows = GraphRows(**a, cameras=cameras)
        n_nodes = len(passes.indptr) - 1
        counted = len(rows.observation_ids) + len(entity_ids) + len(rows.clip_ids) + len(rows.episode_ids)
        lengths_agree = all(
            len(getattr(rows, name)) == len(getattr(rows, names[0]))
            for names in GraphRows.COLUMNS.values()
            for name in names
        )
        if (
            n_nodes != counted
            or not lengths_agree
            or passes.indptr.dtype != np.int64
            or passes.indices.dtype != np.int32
            or passes.data.dtype != np.float32
            or len(passes.indices) != int(passes.indptr[-1])
            or len(degree) != n_nodes
        ):
            log.warning("the saved memory graph in %s does not add up: rebuilding it", folder)
            return None
        return cls(passes, rows, entity_ids, revision, degree, revision), manifest

    @classmethod
    def build(cls, store: Store, weights: RelationWeights | None = None, before: float | None = None) -> MemoryGraph:
        """The graph of all of memory (of what started before ``before``), read whole."""
        revision = store.graph_revision()
        rows = GraphRows.read(store)
        return cls.of(rows if before is None else rows.before(before), weights, revision)

    @classmethod
    def of(cls, rows: GraphRows, weights: RelationWeights | None = None, revision: int = -1) -> MemoryGraph:
        """The graph made of ``rows``."""
        entity_ids, n, src, dst, w = _edges(rows, weights if weights is not None else RelationWeights())
        indptr, indices, data, degree = native.row_stochastic(n, src, dst, w)
        return cls(Csr(indptr, indices, data), rows, entity_ids, revision, degree, revision)

    def grown(
        self, changed: dict[str, np.ndarray], fresh: GraphRows, revision: int, weights: RelationWeights
    ) -> MemoryGraph | None:
        """This graph (made with ``weights``) with what memory added up to ``revision`` (clips, observations, episodes,
        entities, possibly-same relations), as its base with a patch of the rows that differ
        (:func:`edge_agent.native.row_stochastic_patch`): the cost of what was added since the base, not of copying or
        remaking the arrays. None when memory changed otherwise (a row changed or let go, a relation changed, a clip or
        episode earlier than one already in the base on its camera, an id below the base's): then the graph is remade
        from the rows. ``changed``, ``fresh``: :meth:`GraphRows.changes` since this graph's revision."""
        new = _appended(self, fresh, changed)
        if new is None:
            return None
        base = self.base_rows
        added = self.added.joined(new) if self.added is not None else new
        base_sizes = [len(base.observation_ids), 0, len(base.clip_ids), len(base.episode_ids)]
        base_sizes[1] = len(self.passes.indptr) - 1 - sum(base_sizes)
        base_entities = np.asarray(self.entity_ids[: base_sizes[1]])
        new_entities = _distinct(new.observation_entities)
        new_entities = new_entities[~np.isin(new_entities, self.entity_ids)]
        if len(new_entities) and len(self.entity_ids) and new_entities[0] <= self.entity_ids[-1]:
            return None  # an entity seen before this graph without an observation in it (enrolled): remade
        entity_ids = np.concatenate([np.asarray(self.entity_ids), new_entities])
        edges = _added_edges(base, added, base_entities, entity_ids, weights)
        if edges is None:
            return None
        sizes = [
            base_sizes[0] + len(added.observation_ids),
            len(entity_ids),
            base_sizes[2] + len(added.clip_ids),
            base_sizes[3] + len(added.episode_ids),
        ]
        p = self.passes
        patch = native.row_stochastic_patch(
            (p.indptr, p.indices, p.data, self.degree),
            np.r_[0, np.cumsum(base_sizes)],
            np.r_[0, np.cumsum(sizes)],
            *edges,
        )
        return MemoryGraph(
            self.passes, base, entity_ids, revision, self.degree, self.base_revision, patch=patch, added=added
        )


def _edges(rows: GraphRows, weights: RelationWeights) -> tuple[np.ndarray, int, np.ndarray, np.ndarray, np.ndarray]:
    """The graph's nodes and edges made of ``rows``: (entity ids, number of nodes, edge ends a and b, weights); node
    i < n_obs is observation i of the rows, then the entities, the clips and the episodes, each in id order."""
    entity_ids = _distinct(rows.observation_entities)
    n_obs, n_ent, n_clip = len(rows.observation_ids), len(entity_ids), len(rows.clip_ids)
    ent_base, clip_base, ep_base = n_obs, n_obs + n_ent, n_obs + n_ent + n_clip
    clip_ids, ep_ids = rows.clip_ids, rows.episode_ids
    src: list[np.ndarray] = []
    dst: list[np.ndarray] = []
    w: list[np.ndarray] = []

    def add(a: np.ndarray, b: np.ndarray, weight: float | np.ndarray) -> None:
        if np.any(np.asarray(weight) > 0) and len(a):
            src.append(a)
            dst.append(b)
            w.append(np.broadcast_to(np.asarray(weight, np.float64), (len(a),)))

    obs_nodes = np.arange(n_obs)
    entity = rows.observation_entities
    has_entity = entity >= 0
    add(obs_nodes[has_entity], ent_base + _positions(entity_ids, entity[has_entity]), weights.membership)
    related = _relations(rows.entity_relations, entity_ids)
    if len(related) and weights.possibly_same > 0:  # unresolved identity: a weaker entity - entity edge
        add(
            ent_base + np.searchsorted(entity_ids, related[:, 0].astype(np.int64)),
            ent_base + np.searchsorted(entity_ids, related[:, 1].astype(np.int64)),
            weights.possibly_same * related[:, 2],
        )
    clip_of = _positions(clip_ids, rows.observation_clips)
    in_clips = clip_of >= 0
    add(obs_nodes[in_clips], clip_base + clip_of[in_clips], weights.provenance)
    # Consecutive clips of one camera are temporally adjacent, and so are its consecutive episodes of one scale.
    before, after = _consecutive(clip_ids, rows.clip_times, rows.clip_cameras)
    add(
        clip_base + _positions(clip_ids, before),
        clip_base + _positions(clip_ids, after),
        weights.adjacency,
    )
    if len(ep_ids):
        ep_nodes = ep_base + np.arange(len(ep_ids))
        with_clip = rows.episode_clips >= 0
        # Each observation to the episode(s) of its clip.
        order = np.argsort(rows.episode_clips[with_clip], kind="stable")
        ep_clip, ep_node = rows.episode_clips[with_clip][order], ep_nodes[with_clip][order]
        position = np.searchsorted(ep_clip, rows.observation_clips)
        found = (
            (position < len(ep_clip)) & (ep_clip[np.minimum(position, len(ep_clip) - 1)] == rows.observation_clips)
            if len(ep_clip)
            else np.zeros(n_obs, bool)
        )
        add(obs_nodes[found], ep_node[position[found]], weights.context)
        parent = _positions(ep_ids, rows.episode_parents)
        with_parent = parent >= 0
        add(
            ep_nodes[with_parent],
            ep_base + parent[with_parent],
            weights.containment,
        )
        coarser = rows.episode_scales != SCALES.index("clip")
        group = rows.episode_cameras[coarser].astype(np.int64) * len(SCALES) + rows.episode_scales[coarser]
        before, after = _consecutive(ep_ids[coarser], rows.episode_times[coarser], group)
        add(ep_base + _positions(ep_ids, before), ep_base + _positions(ep_ids, after), weights.adjacency)
    empty = np.empty(0, np.int64)
    return (
        entity_ids,
        ep_base + len(ep_ids),
        np.concatenate(src) if src else empty,
        np.concatenate(dst) if dst else empty,
        np.concatenate(w) if w else np.empty(0),
    )


def _appended(graph: MemoryGraph, fresh: GraphRows, changed: dict[str, np.ndarray]) -> GraphRows | None:
    """The rows memory added since ``graph`` (``fresh``: the rows that changed, as memory holds them now) when it only
    added: every changed row is new, with an id above the graph's, or an episode whose links are as they were (its text
    or end moved); None otherwise."""
    columns: dict[str, Any] = {"entity_relations": fresh.entity_relations, "cameras": fresh.cameras}
    for table, names in GraphRows.COLUMNS.items():
        ids = getattr(fresh, names[0])
        if len(ids) != len(changed[table]):
            return None  # a row let go
        base_ids, added_ids = graph._parts(names[0])
        last = added_ids[-1] if len(added_ids) else base_ids[-1] if len(base_ids) else -1
        new = ids > int(last)
        if not new.all():
            if table != "episodes":
                return None
            at = graph.positions("episode", ids[~new])
            if (at < 0).any() or any(
                not np.array_equal(graph.column(name, at), getattr(fresh, name)[~new]) for name in names
            ):
                return None
        columns.update({name: getattr(fresh, name)[new] for name in names})
    return GraphRows(**columns)


def _latest(ids: np.ndarray, times: np.ndarray, groups: np.ndarray, wanted: np.ndarray) -> dict[int, tuple[float, int]]:
    """Per group of ``wanted``: the (time, id) of its latest row."""
    out = {}
    for g in np.unique(wanted).tolist():
        mine = np.flatnonzero(groups == g)
        if len(mine):
            k = mine[np.lexsort((ids[mine], times[mine]))[-1]]
            out[int(g)] = (float(times[k]), int(ids[k]))
    return out


def _added_edges(
    base: GraphRows, added: GraphRows, base_entities: np.ndarray, entities: np.ndarray, weights: RelationWeights
) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """The edges (a, b, weight) that ``added`` (the rows appended to ``base``'s in each table; the graph's entities
    ``entities``, ``base_entities`` first) brings, in the grown graph's numbering: those :func:`_edges` makes for the
    added rows with the base's rows they link to (their clips, episodes and parents, the latest clip and episode of
    each of their cameras and scales), where at least one end is added, and the possibly-same relations new between
    the graph's entities. None where an added row would change a base node's other links (a clip or episode earlier
    than one already there on its camera, an episode of a base clip, a relation changed or let go)."""
    clip_ids, ep_ids = np.asarray(base.clip_ids), np.asarray(base.episode_ids)
    if np.isin(added.episode_clips[added.episode_clips >= 0], clip_ids).any():
        return None  # a base clip's observations would be linked to it
    base_cameras, base_scales = np.asarray(base.clip_cameras), np.asarray(base.episode_scales)
    latest_clips = _latest(clip_ids, np.asarray(base.clip_times), base_cameras, added.clip_cameras)
    for camera, (t, _) in latest_clips.items():
        if added.clip_times[added.clip_cameras == camera].min() < t:
            return None
    coarser = base_scales != SCALES.index("clip")
    groups = np.asarray(base.episode_cameras).astype(np.int64) * len(SCALES) + base_scales
    new_groups = added.episode_cameras.astype(np.int64) * len(SCALES) + added.episode_scales
    new_coarser = added.episode_scales != SCALES.index("clip")
    latest_episodes = _latest(
        ep_ids[coarser], np.asarray(base.episode_times)[coarser], groups[coarser], new_groups[new_coarser]
    )
    for group, (t, _) in latest_episodes.items():
        if added.episode_times[new_coarser & (new_groups == group)].min() < t:
            return None
    # The base's rows the added ones link to.
    their_clips = np.setdiff1d(added.observation_clips, added.clip_ids)
    want_clips = np.union1d(their_clips, [i for _, i in latest_clips.values()]).astype(np.int64)
    want_episodes = np.union1d(
        np.union1d(
            np.setdiff1d(added.episode_parents[added.episode_parents >= 0], added.episode_ids),
            [i for _, i in latest_episodes.values()],
        ),
        ep_ids[np.isin(base.episode_clips, their_clips)],
    ).astype(np.int64)
    columns: dict[str, Any] = {"entity_relations": np.empty((0, 3)), "cameras": added.cameras}
    columns.update({name: getattr(added, name) for name in GraphRows.COLUMNS["observations"]})
    for table, wanted in (("clips", want_clips), ("episodes", want_episodes)):
        names = GraphRows.COLUMNS[table]
        at = _positions(np.asarray(getattr(base, names[0])), wanted)
        at = at[at >= 0]
        for name in names:
            columns[name] = np.concatenate([np.asarray(getattr(base, name))[at], getattr(added, name)])
        order = np.argsort(columns[names[0]], kind="stable")
        columns.update({name: columns[name][order] for name in names})
    local = GraphRows(**columns)
    local_entities, _, a, b, w = _edges(local, weights)
    # Local nodes to the grown graph's: a base row keeps its place in its block, an added one follows the base's.
    n_base = [len(base.observation_ids), len(base_entities), len(clip_ids), len(ep_ids)]
    n_grown = [n_base[0] + len(added.observation_ids), len(entities), n_base[2] + len(added.clip_ids)]
    bases = np.cumsum([0, *n_grown])
    blocks = [
        (np.asarray(base.observation_ids), added.observation_ids, local.observation_ids),
        (base_entities, entities[len(base_entities) :], local_entities),
        (clip_ids, added.clip_ids, local.clip_ids),
        (ep_ids, added.episode_ids, local.episode_ids),
    ]
    node, added_node = [], []
    for k, (base_ids, added_ids, local_ids) in enumerate(blocks):
        in_base = local_ids <= (base_ids[-1] if len(base_ids) else -1)
        position = np.where(
            in_base, np.searchsorted(base_ids, local_ids), n_base[k] + np.searchsorted(added_ids, local_ids)
        )
        node.append(bases[k] + position)
        added_node.append(~in_base)
    node_of, is_added = np.concatenate(node).astype(np.int64), np.concatenate(added_node)
    keep = is_added[a] | is_added[b]
    a, b, w = node_of[a[keep]], node_of[b[keep]], w[keep]
    # Possibly-same relations: the base's between its entities as they were; the new ones added.
    before = _relations(base.entity_relations, base_entities)
    after = _relations(added.entity_relations, entities)
    top = int(max(entities.max(initial=0), 0)) + 1
    key_before = before[:, 0].astype(np.int64) * top + before[:, 1].astype(np.int64)
    key_after = after[:, 0].astype(np.int64) * top + after[:, 1].astype(np.int64)
    kept = np.isin(key_after, key_before)
    if kept.sum() != len(before) or not np.array_equal(
        after[kept][np.argsort(key_after[kept])][:, 2], before[np.argsort(key_before)][:, 2]
    ):
        return None
    new = after[~kept]
    if len(new) and weights.possibly_same > 0:
        ent_base = n_grown[0]
        a = np.r_[a, ent_base + np.searchsorted(entities, new[:, 0].astype(np.int64))]
        b = np.r_[b, ent_base + np.searchsorted(entities, new[:, 1].astype(np.int64))]
        w = np.r_[w, weights.possibly_same * new[:, 2]]
    return a, b, w


def _relations(related: np.ndarray, entity_ids: np.ndarray) -> np.ndarray:
    """The possibly-same relations (a, b, similarity) between entities of the graph."""
    if not len(related):
        return np.empty((0, 3))
    known = np.isin(related[:, 0].astype(np.int64), entity_ids) & np.isin(related[:, 1].astype(np.int64), entity_ids)
    return related[known]


def _distinct(values: np.ndarray) -> np.ndarray:
    """The sorted distinct values >= 0 of ``values`` (ids): by a table of the ids seen when they are dense (SQLite's
    row ids are; a hash of a million values cost 0.24 s), else np.unique."""
    v = values[values >= 0]
    if len(v) and int(v.max()) < 4 * len(v) + 1_000_000:
        seen = np.zeros(int(v.max()) + 1, bool)
        seen[v] = True
        return np.flatnonzero(seen).astype(values.dtype)
    return np.unique(v)


def _positions(ids: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Where each of ``values`` is in the sorted distinct ``ids`` (-1: not among them): a gather from a table by id
    when the ids are dense (a million binary searches cost 0.1 s), else binary search."""
    values = np.asarray(values)
    out = np.full(len(values), -1, np.int64)
    if not len(ids) or not len(values):
        return out
    top = int(ids[-1])
    if int(ids[0]) >= 0 and top < 4 * len(ids) + 1_000_000:
        table = np.full(top + 1, -1, np.int64)
        table[ids] = np.arange(len(ids))
        inside = (values >= 0) & (values <= top)
        out[inside] = table[values[inside]]
        return out
    position = np.minimum(np.searchsorted(ids, values), len(ids) - 1)
    return np.where(ids[position] == values, position, -1)


def _consecutive(ids: np.ndarray, times: np.ndarray, groups: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The pairs (earlier, next) of ids consecutive in time within a group (ties in time by id)."""
    order = np.lexsort((ids, times, groups))
    ids, groups = ids[order], groups[order]
    same = groups[1:] == groups[:-1]
    return ids[:-1][same], ids[1:][same]


def _changes(
    store: Store, since: int, until: int, cameras: list[str]
) -> tuple[dict[str, np.ndarray], GraphRows] | None:
    changed = store.graph_changes(since, until)
    if changed is None:
        return None
    return changed, GraphRows._from_memory(store.graph_rows(changed), cameras)


def _manifest(folder: Path) -> dict[str, Any] | None:
    try:
        manifest = json.loads((folder / "current.json").read_text())
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        log.warning("the saved memory graph in %s is unreadable (%s): rebuilding it", folder, exc)
        return None
    return manifest if isinstance(manifest, dict) else None


#: A graph brought up to date is joined into arrays of its own (:meth:`MemoryGraph.flat`) once memory has changed by
#: this many rows since its base, and saved again (where the folder can be written) once it has changed by as many
#: since the saved one: a camera's clips do not rewrite a year's arrays (a hundred megabytes at a million observations)
#: on a flash card each, and a new process reads at most this many changed rows and grows the saved graph by them.
SAVE_AFTER_CHANGES = 10_000


def load_graph(store: Store, weights: RelationWeights, have: MemoryGraph | None = None) -> MemoryGraph:
    """The whole memory's graph: the one saved beside the database when it is current (memory-mapped); else grown
    from the most recent of ``have`` (this process's last graph) and the saved one, by the rows changed since (read
    again), or remade from its rows with those (from all of memory when there is neither, or memory no longer knows
    what changed). Saved for the next process (where the folder can be written) when memory was read whole, the
    weights changed or the saved one is :data:`SAVE_AFTER_CHANGES` behind."""
    folder = store.home / "index" / "graph"
    revision = store.graph_revision()
    if have is not None and have.revision == revision:
        return have
    loaded = MemoryGraph.load(folder)
    saved, manifest = loaded if loaded is not None else (None, {})
    same_weights = manifest.get("weights") == weights.model_dump()
    if saved is not None and saved.revision == revision and same_weights:
        return saved
    rows, graph = None, None
    for base in sorted((g for g in (have, saved) if g is not None), key=lambda g: -g.revision):
        if base.revision == revision:  # saved with other weights: its rows are current
            rows = base.rows
            break
        read = base.changes(store, revision)
        if read is None:
            continue
        if base is not saved or same_weights:  # grown from its arrays where memory only added since
            graph = base.grown(*read, revision, weights)
            if graph is not None:
                break
        rows = base.rows.merged(*read)
        break
    read_whole = graph is None and rows is None
    if graph is None:
        graph = MemoryGraph.of(GraphRows.read(store) if rows is None else rows, weights, revision)
    behind = revision - saved.revision if saved is not None else 0
    save = not store.readonly and (read_whole or not same_weights or behind >= SAVE_AFTER_CHANGES)
    if save or revision - graph.base_revision >= SAVE_AFTER_CHANGES:
        graph = graph.flat()
    if save:
        try:
            graph.save(folder, weights)
            store.forget_graph_changes(revision)
        except (OSError, EdgeAgentError) as exc:
            log.warning("cannot save the memory graph under %s: %s", folder, exc)
    return graph
