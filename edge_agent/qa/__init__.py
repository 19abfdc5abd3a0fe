"""Question answering over memory: controllers that search, read and answer with cited evidence."""

from edge_agent.qa.deterministic import Answer, DeterministicController
from edge_agent.qa.llm import LLMController, load_llama

__all__ = ["Answer", "DeterministicController", "LLMController", "load_llama"]
