"""The memory graph for retrieval (GEB section 3.4): nodes are observations, entities, clips and
episodes; edges are the memory's own links, weighted by relation. Graph edges are not a separate
store: they are the foreign keys, loaded into a sparse matrix when a query needs it."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from edge_agent.config.retrieval import RelationWeights
from edge_agent.memory import Store
from edge_agent.retrieval.ppr import transition_matrix

__all__ = ["MemoryGraph", "RelationWeights"]


@dataclass
class MemoryGraph:
    transitions: sp.csr_matrix
    observation_ids: np.ndarray  # node i < n_obs is observation_ids[i]
    entity_ids: np.ndarray
    clip_ids: np.ndarray
    episode_ids: np.ndarray
    observation_entity: np.ndarray  # entity id per observation node (-1: none)
    observation_clip: np.ndarray  # clip id per observation node
    _passes: sp.csr_matrix | None = None

    @property
    def passes(self) -> sp.csr_matrix:
        """Where each node passes its relevance, row-stochastic (the transitions' transpose, for local push), with
        the index arrays the native push takes; made once per graph."""
        if self._passes is None:
            passes = self.transitions.T.tocsr()
            passes.indptr = passes.indptr.astype(np.int64)
            passes.indices = passes.indices.astype(np.int32)
            self._passes = passes
        return self._passes

    @property
    def n(self) -> int:
        return self.transitions.shape[0]

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
        return cls(
            transitions,
            obs[:, 0].copy(),
            entity_ids,
            clip_sorted,
            episodes[:, 0].copy() if len(episodes) else np.empty(0, np.int64),
            obs[:, 1].copy(),
            obs[:, 2].copy(),
        )
