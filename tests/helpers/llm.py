"""A scripted stand-in for llama-cpp-python's ``create_chat_completion``: it reads a question into the typed
query it is given (an open question by default, so tool rounds follow), then replies with the scripted tool
calls in order, checking each request asks for the schema it should."""

from __future__ import annotations

import json

from edge_agent.qa.llm import TOOL_SCHEMA

#: An open question as the model reads it: a summary asking after nothing memory names (the tool rounds answer it).
OPEN = {
    "intent": "what_happened",
    "kinds": [],
    "colours": [],
    "name": "",
    "cameras": [],
    "other_kinds": [],
    "other_cameras": [],
    "order": "",
    "aggregate": "",
    "asks": "",
    "yes_no": False,
    "negated": False,
}


class Scripted:
    def __init__(self, *calls, query=None):
        self.calls = list(calls)
        self.query = OPEN if query is None else query
        self.seen = []  #: the last message of every tool round
        self.questions = []  #: (question, query schema) of every reading of a question

    def create_chat_completion(self, messages, max_tokens, temperature, response_format):
        schema = response_format["schema"]
        assert response_format["type"] == "json_object"
        if "intent" in schema.get("properties", {}):
            self.questions.append((messages[-1]["content"], schema))
            return {
                "choices": [
                    {"message": {"content": self.query if isinstance(self.query, str) else json.dumps(self.query)}}
                ]
            }
        assert schema is TOOL_SCHEMA
        self.seen.append(messages[-1]["content"])
        return {"choices": [{"message": {"content": self.calls.pop(0)}}]}
