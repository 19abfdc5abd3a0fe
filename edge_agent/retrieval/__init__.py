"""The read path: hybrid seeds, Personalized PageRank over the memory graph, budgeted evidence and its
rendering (GEB section 3.4)."""

from edge_agent.retrieval.graph import MemoryGraph, RelationWeights
from edge_agent.retrieval.render import render
from edge_agent.retrieval.retrieve import Evidence, RetrievalConfig, Retriever

__all__ = ["Evidence", "MemoryGraph", "RelationWeights", "RetrievalConfig", "Retriever", "render"]
