"""Question answering over memory: controllers that search, read and answer with cited evidence."""

from edge_agent.qa.deterministic import Answer, DeterministicController

__all__ = ["Answer", "DeterministicController"]
