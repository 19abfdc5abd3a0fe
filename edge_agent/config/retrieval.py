"""GEB section 3.4: retrieval. Hybrid seeds (semantic and lexical), Personalized PageRank over the memory
graph with a weight per relation, and one budget of evidence with a per-entity cap."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from edge_agent.config.base import StrictModel

__all__ = ["RelationWeights", "RetrievalConfig", "VectorIndexConfig"]


class RelationWeights(StrictModel):
    """Edge weight per relation of the memory graph (0 removes it: the no-identity-edges and no-episode-edges
    ablations)."""

    membership: float = Field(1.0, ge=0, description="observation - entity (identity: the biography)")
    context: float = Field(0.7, ge=0, description="observation - the episode of its clip")
    provenance: float = Field(0.5, ge=0, description="observation - clip")
    adjacency: float = Field(
        0.3, ge=0, description="clip - next clip of the same camera; episode - next episode of its camera and scale"
    )
    containment: float = Field(0.5, ge=0, description="episode - coarser episode containing it")
    possibly_same: float = Field(
        0.3, ge=0, description="entity - entity recorded as possibly the same instance (times their similarity)"
    )


class VectorIndexConfig(StrictModel):
    """How the nearest text and keyframe vectors are found (memory/vectorindex.py)."""

    approximate: bool = Field(
        True,
        description="HNSW segments (usearch, int8 graphs memory-mapped from beside the database, what they find "
        "scored again on the rows' float16 vectors), the newest rows scanned exactly; False: every vector scanned "
        "exactly in RAM",
    )
    segment_rows: int = Field(
        32_768, ge=1024, description="rows per sealed HNSW segment (the exact tail holds fewer than this)"
    )
    breadth: int = Field(
        256,
        ge=16,
        description="candidates an HNSW search keeps (usearch's expansion_search): more finds the true nearest more "
        "often and costs more (measured at a million observations, int8 graphs, the benchmark's questions: "
        "recall@10 0.946 at 64, 0.971 at 128, 0.975-0.988 at 256)",
    )


class RetrievalConfig(StrictModel):
    seeds_per_index: int = Field(
        30, ge=1, description="nearest items taken from each of the semantic and lexical indexes"
    )
    lexical_window: int = Field(
        2000,
        ge=1,
        description="lexical seeds are ranked (BM25) among the newest this many records matching the question's words: "
        "a common word in a year of memory costs what the window holds",
    )
    restart: float = Field(0.25, gt=0, lt=1, description="PPR restart probability (higher: stay closer to the seeds)")
    ppr_steps: int = Field(
        20, ge=1, description="PPR power-iteration steps at most (the error shrinks by 1 - restart a step)"
    )
    ppr_tolerance: float = Field(
        1e-3, gt=0, description="PPR stops earlier once a step changes the scores by less (L1)"
    )
    ppr: Literal["push", "power"] = Field(
        "push",
        description="PPR by local push (Andersen-Chung-Lang: touches only what is near the seeds) or by power "
        "iteration over the whole graph (the exact reference)",
    )
    push_epsilon: float = Field(
        5e-6,
        gt=0,
        description="local push: a node passes its mass on while its residual exceeds this times its edges (smaller: "
        "closer to exact PPR, more work; measured on a million-observation memory, 150 questions against power "
        "iteration to 1e-12: the same evidence on 97.3% at 1e-5 (5.5 ms p50), 99.3% at 5e-6 (7.5 ms), 100% at 3e-6 "
        "(11.6 ms)",
    )
    ppr_share: float = Field(
        0.6, ge=0, le=1, description="final rank = ppr_share x PPR + (1 - ppr_share) x question similarity"
    )
    budget: int = Field(24, ge=1, description="evidence units (observations + episodes) in the context")
    per_entity_cap: int = Field(6, ge=1, description="observations of one entity at most")
    episode_cap: int = Field(
        8,
        ge=0,
        description="episodes at most (summaries match many questions well: they must not crowd out appearances)",
    )
    weights: RelationWeights = Field(default_factory=RelationWeights, description="edge weight per relation")
    vectors: VectorIndexConfig = Field(default_factory=VectorIndexConfig, description="the vector index")
    biography_text: bool = Field(True, description="render entity biography excerpts (False: a flat list, an ablation)")
    around_seconds: float = Field(
        20.0, ge=0, description="a moment the question names seeds what memory holds within this many seconds of it"
    )
