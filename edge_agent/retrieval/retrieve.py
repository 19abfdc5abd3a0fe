"""Retrieval through identity (GEB section 3.4): hybrid seeds (text vectors + FTS5 BM25, fused by
reciprocal rank) -> Personalized PageRank over the memory graph -> a rank mixing PPR and question-text
similarity -> one shared budget of evidence units with a per-entity cap, so a frequently seen subject
cannot crowd out the episodes. Entity nodes pass relevance on but are never returned. A question asked
as of T sees only what was recorded before T."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from edge_agent.config.retrieval import RetrievalConfig
from edge_agent.memory import Store
from edge_agent.memory.textindex import KeyframeIndex, TextHit, TextIndex
from edge_agent.memory.vectorindex import searchers
from edge_agent.perception.text import TextEmbedder
from edge_agent.retrieval.graph import MemoryGraph, load_graph
from edge_agent.retrieval.ppr import personalized_pagerank
from edge_agent.timing import timed

if TYPE_CHECKING:  # an image-text model is optional, and its module imports OpenCV
    from edge_agent.perception.imagetext import ImageTextEmbedder

__all__ = ["Evidence", "RetrievalConfig", "Retriever"]


@dataclass
class Evidence:
    observation_ids: list[int]
    episode_ids: list[int]
    seeds: dict[str, int]  #: how many seeds each index gave
    as_of: float | None
    timings_ms: dict[str, float]
    scores: dict[tuple[str, int], float] = field(default_factory=dict)
    question: str = ""


class Retriever:
    def __init__(
        self,
        store: Store,
        embedder: TextEmbedder,
        config: RetrievalConfig | None = None,
        image_text: ImageTextEmbedder | None = None,
    ) -> None:
        """``image_text``: a CLIP-style model; when given, the question is also matched to clip keyframes."""
        self.store = store
        self.embedder = embedder
        self.config = config or RetrievalConfig()
        self.index = TextIndex(store, embedder.embed, embedder.space, embedder.dims, self.config.vectors)
        self.image_text = image_text
        self.keyframes = (
            KeyframeIndex(store, image_text.embed_images, image_text.space, image_text.dims, self.config.vectors)
            if image_text is not None
            else None
        )
        self._graph: tuple[int, MemoryGraph] | None = None

    def _graph_for(self, as_of: float | None) -> MemoryGraph:
        revision = self.store.graph_revision()
        if self._graph is None or self._graph[0] != revision:
            have = self._graph[1] if self._graph is not None else None
            self._graph = (revision, load_graph(self.store, self.config.weights, have))
        graph = self._graph[1]
        if as_of is not None and not graph.rows.all_before(as_of):  # what memory held then: the rows that started
            return MemoryGraph.of(graph.rows.before(as_of), self.config.weights)  # before, cut from the graph's
        return graph  # (as of a time after all of it: the whole graph, not a copy cut from its rows)

    def warm(self) -> None:
        """Does now what the next question would otherwise do first: embeds what memory added, brings the
        vector index up to date (sealing full segments) and loads (or rebuilds and saves) the graph."""
        self.index.update()
        self.index.sync()
        if self.keyframes is not None:
            self.keyframes.update()
        self._graph_for(None)

    def _keyframes(self, question: str, as_of: float | None) -> list[tuple[str, int]]:
        """The clips whose keyframes match the question (with an image-text model), as seeds."""
        if self.keyframes is None or self.image_text is None:
            return []
        vector = self.image_text.embed_texts([question])[0]
        return [("clip", c) for c, _ in self.keyframes.search(vector, self.config.seeds_per_index, before=as_of)]

    def _moments(self, around: Sequence[float], as_of: float | None) -> list[tuple[str, int]]:
        """What memory holds of the moments a question names (before ``as_of``), as seeds."""
        seeds: list[tuple[str, int]] = []
        for moment in around:
            if as_of is None or moment < as_of:
                half = self.config.around_seconds
                observations, episodes = self.store.items_between(moment - half, moment + half, before=as_of)
                seeds += [("observation", i) for i in observations] + [("episode", i) for i in episodes]
        return seeds

    def _semantic(self, question: str, as_of: float | None) -> tuple[np.ndarray, list[TextHit]]:
        """The question's vector and the text index's nearest records: the question is embedded (the encoder opened
        by a process's first) while the vector segments are brought up to date."""
        embedded = searchers().submit(self.embedder.embed, [question])
        self.index.sync()
        q: np.ndarray = embedded.result()[0]
        return q, self.index.search(q, self.config.seeds_per_index, before=as_of)

    def retrieve(
        self, question: str, *, as_of: float | None = None, around: Sequence[float] = (), until: float | None = None
    ) -> Evidence:
        """``as_of``: the moment the question is asked as of (the walk runs over what memory held then). ``until``:
        the end of a window the question names ("between 8 and 9"): what started later is no evidence, but the walk
        runs over what memory holds now, as the question is asked now (and the graph it keeps serves). ``around``:
        moments the question names ("the cup that was by the sink at 17:56"): what memory holds of them joins the
        seeds, as strongly as the best text match."""
        cfg = self.config
        walked_as_of = as_of
        if until is not None:
            as_of = until if as_of is None else min(as_of, until)
        timings: dict[str, float] = {}
        with timed(timings, "index"):
            self.index.update()
            if self.keyframes is not None:
                self.keyframes.update()

        with timed(timings, "seeds"):
            # The lexical half needs no vector: it runs while the question is embedded (both let go of the GIL).
            lexical_search = searchers().submit(
                self.index.lexical, question, cfg.seeds_per_index, before=as_of, window=cfg.lexical_window
            )
            q, semantic = self._semantic(question, as_of)
            lexical = lexical_search.result()
            visual = self._keyframes(question, as_of)
            moments = self._moments(around, as_of)
            fused: dict[tuple[str, int], float] = {key: 1.0 / 60 for key in moments}
            for ranking in ([(h.kind, h.id) for h in semantic], [(k, i) for k, i, _ in lexical], visual):
                for rank, key in enumerate(ranking):
                    fused[key] = fused.get(key, 0.0) + 1.0 / (60 + rank)  # reciprocal rank fusion

        with timed(timings, "ppr"):
            graph = self._graph_for(walked_as_of)
            seeds: dict[int, float] = {}  # node -> weight
            for (kind, item), weight in fused.items():
                node = int(graph.nodes(kind, [item])[0])
                if node >= 0:
                    # a keyframe match is evidence about what the clip holds: half to its observations
                    if kind == "clip":
                        inside = graph.observations_of_clip(item)
                        if len(inside):
                            for o in inside.tolist():
                                seeds[o] = seeds.get(o, 0.0) + weight / 2 / len(inside)
                            weight /= 2
                    seeds[node] = seeds.get(node, 0.0) + weight
            seed_nodes = np.fromiter(seeds, np.int64, len(seeds))
            seed_weights = np.fromiter(seeds.values(), np.float64, len(seeds))
            if cfg.ppr == "push":
                nodes, values = graph.push(seed_nodes, seed_weights, restart=cfg.restart, epsilon=cfg.push_epsilon)
            else:
                dense = np.zeros(graph.n)
                dense[seed_nodes] = seed_weights
                dense = personalized_pagerank(
                    graph.transitions, dense, restart=cfg.restart, tol=cfg.ppr_tolerance, max_iter=cfg.ppr_steps
                )
                nodes = np.flatnonzero(dense)
                values = dense[nodes]

        with timed(timings, "select"):
            n_obs, ep_base = graph.block("observation")[1], graph.block("episode")[0]
            is_obs, is_ep = nodes < n_obs, nodes >= ep_base
            obs_nodes, obs_scores = nodes[is_obs], values[is_obs]
            ep_nodes, ep_scores = nodes[is_ep] - ep_base, values[is_ep]
            if as_of is not None and as_of != walked_as_of:  # reached through later memory: left out
                obs_nodes, obs_scores = _before(graph, "observation", obs_nodes, obs_scores, as_of)
                ep_nodes, ep_scores = _before(graph, "episode", ep_nodes, ep_scores, as_of)
            top = max(float(obs_scores.max(initial=0)), float(ep_scores.max(initial=0)), 1e-12)
            pool = cfg.budget * 8

            def best(scores: np.ndarray) -> np.ndarray:  # the pool's best, without sorting every node reached
                if len(scores) <= pool:
                    return np.argsort(-scores, kind="stable")
                part = np.argpartition(-scores, pool)[:pool]
                return part[np.argsort(-scores[part], kind="stable")]

            obs_order = best(obs_scores)
            ep_order = best(ep_scores)
            obs_candidates = obs_nodes[obs_order]
            ep_candidates = ep_nodes[ep_order]
            obs_top, ep_top = obs_scores[obs_order], ep_scores[ep_order]
            obs_ids = graph.column("observation_ids", obs_candidates).tolist()
            ep_ids = graph.column("episode_ids", ep_candidates).tolist()
            obs_entities = graph.column("observation_entities", obs_candidates).tolist()
            # Question similarity of the items the semantic search reached; the rest count as 0 (reading
            # every candidate's vector back from sqlite-vec cost more than the whole PPR).
            obs_sim = {h.id: h.similarity for h in semantic if h.kind == "observation"}
            ep_sim = {h.id: h.similarity for h in semantic if h.kind == "episode"}
            # The records of a moment the question names: how well each matches it decides among them.
            obs_sim.update(
                self.index.similarities(
                    q, "observation", [i for k, i in moments if k == "observation" and i not in obs_sim]
                )
            )
            ep_sim.update(
                self.index.similarities(q, "episode", [i for k, i in moments if k == "episode" and i not in ep_sim])
            )
            ranked: list[tuple[float, str, int, int]] = []
            named = set(moments)  # records of a moment the question names come first: the question is about them
            for item, entity, relevance in zip(obs_ids, obs_entities, obs_top):
                score = cfg.ppr_share * relevance / top + (1 - cfg.ppr_share) * max(obs_sim.get(item, 0.0), 0.0)
                ranked.append((score + (("observation", item) in named), "observation", item, entity))
            for item, relevance in zip(ep_ids, ep_top):
                score = cfg.ppr_share * relevance / top + (1 - cfg.ppr_share) * max(ep_sim.get(item, 0.0), 0.0)
                ranked.append((score + (("episode", item) in named), "episode", item, -1))
            ranked.sort(key=lambda r: (-r[0], r[1], r[2]))
            chosen_obs, chosen_ep, scores = _choose(ranked, cfg)
        return Evidence(
            chosen_obs,
            chosen_ep,
            {"semantic": len(semantic), "lexical": len(lexical), "keyframes": len(visual), "moments": len(moments)},
            as_of,
            timings,
            scores,
            question,
        )


def _before(
    graph: MemoryGraph, kind: str, nodes: np.ndarray, scores: np.ndarray, t: float
) -> tuple[np.ndarray, np.ndarray]:
    """The nodes of a kind (positions in its block) and their scores, less those that started at ``t`` or later."""
    earlier = graph.column(f"{kind}_times", nodes) < t
    return nodes[earlier], scores[earlier]


def _choose(
    ranked: list[tuple[float, str, int, int]], cfg: RetrievalConfig
) -> tuple[list[int], list[int], dict[tuple[str, int], float]]:
    """The records evidence holds, best first within ``cfg.budget``: at most ``per_entity_cap`` observations of one
    entity and ``episode_cap`` episodes; (observation ids, episode ids, each one's score)."""
    chosen_obs: list[int] = []
    chosen_ep: list[int] = []
    per_entity: dict[int, int] = {}
    scores: dict[tuple[str, int], float] = {}
    for score, kind, item, entity in ranked:
        if len(chosen_obs) + len(chosen_ep) >= cfg.budget:
            break
        if kind == "observation":
            if entity >= 0 and per_entity.get(entity, 0) >= cfg.per_entity_cap:
                continue
            per_entity[entity] = per_entity.get(entity, 0) + 1
            chosen_obs.append(item)
        else:
            if len(chosen_ep) >= cfg.episode_cap:
                continue
            chosen_ep.append(item)
        scores[(kind, item)] = score
    return chosen_obs, chosen_ep, scores
