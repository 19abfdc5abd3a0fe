"""What memory has learnt (semantic facts) reaches the reader: the deterministic facts tool, the LLM's
facts tool, the rendered context, and the rank boost by importance."""

from __future__ import annotations

import json

import numpy as np
from helpers.llm import Scripted
from helpers.memory import clip, observation, said, unit

from edge_agent.memory import Store, consolidate
from edge_agent.qa import DeterministicController
from edge_agent.qa.llm import LLMController
from edge_agent.retrieval import render

MUG = unit(np.r_[np.ones(8), np.zeros(8)])
T0 = 1_772_438_400.0


def _memory(home):
    store = Store(home)
    t = T0
    for k in range(6):  # the red cup rests by the counter five times, once by the sink
        place, box = ("sink", (400, 100, 440, 140)) if k == 3 else ("counter", (100, 100, 140, 140))
        store.ingest_clip(clip(t), [observation(1, t, box, MUG, description=said(colour="red", zone=place))])
        t += 3600
    return store


def test_usual_place_from_facts(tmp_path, embedder):
    with _memory(tmp_path / "home") as store:
        known = {f.value: f.importance for f in consolidate.facts(store, [1]) if f.kind == "place"}
        assert known["counter"] > known["sink"]
        answer = DeterministicController(store, embedder).ask("Where is the red cup usually?")
        assert answer.tool == "habit" and answer.text.startswith("Entity #1 (cup): red cup: usually by the counter")
        context = render(store, DeterministicController(store, embedder).retriever.retrieve("red cup"))
        assert "learnt: red cup: usually by the counter" in context


def test_the_llm_reads_facts(tmp_path, embedder):
    with _memory(tmp_path / "home") as store:
        llm = Scripted(
            json.dumps({"tool": "facts", "entity": 1}),
            json.dumps({"tool": "answer", "text": "Usually by the counter.", "evidence": []}),
        )
        answer = LLMController(store, embedder, llm).ask("Where does the red cup usually stay?")
        assert answer.text == "Usually by the counter." and "usually by the counter (importance" in llm.seen[1]


def test_facts_in_context_are_ranked_by_what_the_question_asks_then_importance(tmp_path, embedder):
    with _memory(tmp_path / "home") as store:
        retriever = DeterministicController(store, embedder).retriever
        plain = render(store, retriever.retrieve("red cup"))
        assert plain.index("usually by the counter") < plain.index("usually by the sink")  # more important first
        asked = render(store, retriever.retrieve("was the red cup ever by the sink?"))
        assert asked.index("usually by the sink") < asked.index(
            "usually by the counter"
        )  # what the question asks first
