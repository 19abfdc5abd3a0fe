"""The memory graph for retrieval (GEB section 3.4): nodes are observations, entities, clips and
episodes; edges are the memory's own links, weighted by relation. Graph edges are not a separate
store: they are the foreign keys, made into compact arrays (CSR) when a question needs them.

The arrays are saved beside the database (``<home>/index/graph/``) with the memory's graph revision (moved by
schema triggers whenever a node or link changes) and the relation weights they were made with; a process
that finds them current opens them memory-mapped instead of reading a year of rows again, and only the
pages local push walks become resident."""

from __future__ import annotations

import json
import logging
import os
import shutil
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from edge_agent.config.retrieval import RelationWeights
from edge_agent.memory import Store
from edge_agent.retrieval.ppr import transition_matrix

if TYPE_CHECKING:  # SciPy is imported where a matrix is made: a process answering from saved arrays skips it
    import scipy.sparse as sp

__all__ = ["Csr", "MemoryGraph", "RelationWeights", "load_graph"]

log = logging.getLogger(__name__)

#: The arrays a graph is saved as (``<name>.npy`` each).
_ARRAYS = (
    "indptr",
    "indices",
    "data",
    "observation_ids",
    "entity_ids",
    "clip_ids",
    "episode_ids",
    "observation_entity",
    "observation_clip",
)
_FORMAT = 2  #: 2: the shares are float32


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
class MemoryGraph:
    passes: Csr  #: where each node passes its relevance, row-stochastic (row u: u's links), for local push
    observation_ids: np.ndarray  # node i < n_obs is observation_ids[i]
    entity_ids: np.ndarray
    clip_ids: np.ndarray
    episode_ids: np.ndarray
    observation_entity: np.ndarray  # entity id per observation node (-1: none)
    observation_clip: np.ndarray  # clip id per observation node
    _transitions: sp.csr_matrix | None = None
    _by_clip: tuple[np.ndarray, np.ndarray] | None = None

    def observations_of_clip(self, clip_id: int) -> np.ndarray:
        """The observation nodes of a clip (the nodes ordered by clip on first use)."""
        if self._by_clip is None:
            order = np.argsort(self.observation_clip, kind="stable")
            self._by_clip = (order, np.asarray(self.observation_clip)[order])
        order, clips = self._by_clip
        lo, hi = np.searchsorted(clips, clip_id, side="left"), np.searchsorted(clips, clip_id, side="right")
        return order[lo:hi]

    @property
    def transitions(self) -> sp.csr_matrix:
        """Column-stochastic transitions (the passes' transpose), for power iteration; made on first use."""
        if self._transitions is None:
            import scipy.sparse as sp

            p = self.passes
            self._transitions = sp.csr_matrix((p.data, p.indices, p.indptr), shape=p.shape).T.tocsr()
        return self._transitions

    @property
    def n(self) -> int:
        return len(self.passes.indptr) - 1

    def save(self, folder: Path, key: dict[str, Any]) -> None:
        """Writes the arrays into a new folder inside ``folder``, then points ``folder``/current.json at it
        (atomically) and removes the earlier ones: a reader sees the old graph or the new one, never half of one."""
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        name = f"r{key['revision']}-{uuid.uuid4().hex[:8]}"
        target = folder / name
        target.mkdir(mode=0o700)
        arrays = {
            "indptr": self.passes.indptr,
            "indices": self.passes.indices,
            "data": self.passes.data,
            "observation_ids": self.observation_ids,
            "entity_ids": self.entity_ids,
            "clip_ids": self.clip_ids,
            "episode_ids": self.episode_ids,
            "observation_entity": self.observation_entity,
            "observation_clip": self.observation_clip,
        }
        for array_name, array in arrays.items():
            with open(target / f"{array_name}.npy", "wb") as f:
                np.save(f, np.ascontiguousarray(array), allow_pickle=False)
        manifest = folder / "current.json"
        tmp = folder / f".current.{uuid.uuid4().hex[:8]}.tmp"
        tmp.write_text(json.dumps({**key, "folder": name}))
        os.replace(tmp, manifest)
        for old in folder.iterdir():  # earlier graphs (a process still reading one keeps its mapped pages)
            if old.is_dir() and old.name != name:
                shutil.rmtree(old, ignore_errors=True)

    @classmethod
    def load(cls, folder: Path, key: dict[str, Any]) -> MemoryGraph | None:
        """The graph saved in ``folder`` when it was made with ``key`` (revision, weights), memory-mapped; else None."""
        try:
            manifest = json.loads((folder / "current.json").read_text())
            if {k: manifest.get(k) for k in key} != key:
                return None
            saved = folder / str(manifest["folder"])
            a = {name: np.load(saved / f"{name}.npy", mmap_mode="r", allow_pickle=False) for name in _ARRAYS}
        except (OSError, ValueError, KeyError, TypeError) as exc:
            if not isinstance(exc, FileNotFoundError):
                log.warning("the saved memory graph in %s is unreadable (%s): rebuilding it", folder, exc)
            return None
        n_nodes = len(a["indptr"]) - 1
        counted = len(a["observation_ids"]) + len(a["entity_ids"]) + len(a["clip_ids"]) + len(a["episode_ids"])
        if (
            n_nodes != counted
            or a["indptr"].dtype != np.int64
            or a["indices"].dtype != np.int32
            or a["data"].dtype != np.float32
            or len(a["indices"]) != int(a["indptr"][-1])
        ):
            log.warning("the saved memory graph in %s does not add up: rebuilding it", folder)
            return None
        return cls(
            Csr(a["indptr"], a["indices"], a["data"]),
            a["observation_ids"],
            a["entity_ids"],
            a["clip_ids"],
            a["episode_ids"],
            a["observation_entity"],
            a["observation_clip"],
        )

    @classmethod
    def build(cls, store: Store, weights: RelationWeights | None = None, before: float | None = None) -> MemoryGraph:
        if weights is None:
            weights = RelationWeights()
        rows = store.graph_rows(before)
        obs, clips, episodes = rows["observations"], rows["clips"], rows["episodes"]
        entity_ids = np.unique(obs[:, 1][obs[:, 1] >= 0])
        n_obs, n_ent, n_clip = len(obs), len(entity_ids), len(clips)
        ent_base, clip_base, ep_base = n_obs, n_obs + n_ent, n_obs + n_ent + n_clip
        clip_sorted = np.sort(clips)
        clip_node = lambda ids: clip_base + np.searchsorted(clip_sorted, ids)  # noqa: E731
        src, dst, w = [], [], []

        def add(a: np.ndarray, b: np.ndarray, weight: float) -> None:
            if weight > 0 and len(a):
                src.append(a)
                dst.append(b)
                w.append(np.full(len(a), weight))

        obs_nodes = np.arange(n_obs)
        has_entity = obs[:, 1] >= 0
        add(obs_nodes[has_entity], ent_base + np.searchsorted(entity_ids, obs[has_entity, 1]), weights.membership)
        related = rows["entity_relations"]
        if len(related) and weights.possibly_same > 0:  # unresolved identity: a weaker entity - entity edge
            a, b = related[:, 0].astype(np.int64), related[:, 1].astype(np.int64)
            known = np.isin(a, entity_ids) & np.isin(b, entity_ids)
            if known.any():
                src.append(ent_base + np.searchsorted(entity_ids, a[known]))
                dst.append(ent_base + np.searchsorted(entity_ids, b[known]))
                w.append(weights.possibly_same * related[known, 2])
        in_clips = np.isin(obs[:, 2], clip_sorted)
        add(obs_nodes[in_clips], clip_node(obs[in_clips, 2]), weights.provenance)
        adjacency = rows["clip_adjacency"]
        add(clip_node(adjacency[:, 0]), clip_node(adjacency[:, 1]), weights.adjacency)
        if len(episodes):
            ep_ids = episodes[:, 0]
            ep_nodes = ep_base + np.arange(len(episodes))
            with_clip = episodes[:, 1] >= 0
            # Each observation to the episode(s) of its clip.
            order = np.argsort(episodes[with_clip, 1], kind="stable")
            ep_clip, ep_node = episodes[with_clip, 1][order], ep_nodes[with_clip][order]
            position = np.searchsorted(ep_clip, obs[:, 2])
            found = (
                (position < len(ep_clip)) & (ep_clip[np.minimum(position, len(ep_clip) - 1)] == obs[:, 2])
                if len(ep_clip)
                else np.zeros(n_obs, bool)
            )
            add(obs_nodes[found], ep_node[position[found]], weights.context)
            with_parent = np.isin(episodes[:, 2], ep_ids)
            add(ep_nodes[with_parent], ep_base + np.searchsorted(ep_ids, episodes[with_parent, 2]), weights.containment)
            pairs = rows["episode_adjacency"]
            pairs = pairs[np.isin(pairs, ep_ids).all(axis=1)] if len(pairs) else pairs
            add(
                ep_base + np.searchsorted(ep_ids, pairs[:, 0]),
                ep_base + np.searchsorted(ep_ids, pairs[:, 1]),
                weights.adjacency,
            )
        n = ep_base + len(episodes)
        if src:
            transitions = transition_matrix(n, np.concatenate(src), np.concatenate(dst), np.concatenate(w))
        else:
            transitions = transition_matrix(n, np.empty(0, np.int64), np.empty(0, np.int64), np.empty(0))
        passes = transitions.T.tocsr()
        return cls(
            Csr(passes.indptr.astype(np.int64), passes.indices.astype(np.int32), passes.data.astype(np.float32)),
            obs[:, 0].copy(),
            entity_ids,
            clip_sorted,
            episodes[:, 0].copy() if len(episodes) else np.empty(0, np.int64),
            obs[:, 1].copy(),
            obs[:, 2].copy(),
        )


def load_graph(store: Store, weights: RelationWeights) -> MemoryGraph:
    """The whole memory's graph: the one saved beside the database when it is current (memory-mapped), else
    built from memory and saved for the next process (where the folder can be written)."""
    folder = store.home / "index" / "graph"
    key = {"format": _FORMAT, "revision": store.graph_revision(), "weights": weights.model_dump()}
    graph = MemoryGraph.load(folder, key)
    if graph is not None:
        return graph
    graph = MemoryGraph.build(store, weights)
    if not store.readonly:
        try:
            graph.save(folder, key)
        except OSError as exc:
            log.warning("cannot save the memory graph under %s: %s", folder, exc)
    return graph
