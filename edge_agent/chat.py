"""What the project asks of a local chat model (issue 42): llama-cpp-python's ``create_chat_completion``, the one
method the question answerer, the rule reader, the VLM describer and the episode summarizer call. A Protocol, so
that a stand-in of the same shape (the tests' scripted models) types as one, and so that no module outside the
loader imports llama-cpp-python."""

from __future__ import annotations

from typing import Any, Protocol

__all__ = ["ChatModel"]


class ChatModel(Protocol):
    def create_chat_completion(self, messages: list[dict[str, Any]], **kwargs: Any) -> Any:
        """OpenAI-style chat messages in; a reply ``{"choices": [{"message": {"content": ...}}]}`` out."""
        ...
