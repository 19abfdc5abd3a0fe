"""Benchmark question files: M3-Bench on the real annotation files, EgoLifeQA / Ego-R1-Bench / MultiHop-EgoQA
on small fixtures in their published shapes, malformed files, and scoring with known numbers."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from edge_agent.eval.benchmarks import (
    BENCHMARKS,
    BenchmarkFormatError,
    BenchmarkItem,
    Prediction,
    choice_from_text,
    load,
    offline_judge,
    parse_clock,
    parse_egolife_time,
    score,
    temporal_iou,
    token_f1,
    video_for,
)


def _annotations() -> Path:
    """M3-Bench's robot.json / web.json: $EDGE_AGENT_SHARED/data/annotations, else ../shared beside the checkout."""
    env = os.environ.get("EDGE_AGENT_SHARED")
    shared = Path(env) if env else Path(__file__).resolve().parents[3] / "shared"
    path = shared / "data" / "annotations"
    if not (path / "robot.json").is_file() or not (path / "web.json").is_file():
        pytest.skip(f"{path}/robot.json and web.json are absent (set EDGE_AGENT_SHARED to the shared folder)")
    return path


def _write(path: Path, data: Any) -> Path:
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


# EgoLifeQA item as published (EgoRAG README); two wearers' files share question ids.
EGOLIFE = {
    "ID": "1",
    "query_time": {"date": "DAY1", "time": "11210217"},
    "type": "EntityLog",
    "type_chinese": "实体日志",
    "need_audio": False,
    "need_name": True,
    "last_time": False,
    "trigger": "The table was filled with various tools and parts",
    "question": "Who used the screwdriver first?",
    "choice_a": "Tasha",
    "choice_b": "Alice",
    "choice_c": "Shure",
    "choice_d": "Lucia",
    "answer": "B",
    "target_time": {"date": "DAY1", "time": "11152408"},
    "keywords": "use screwdriver",
    "reason": "Saw Alice tightening screws with a screwdriver",
    "identity": "A1_JAKE",
}


def _egolife_file(tmp_path: Path) -> Path:
    second = dict(
        EGOLIFE,
        ID="2",
        query_time={"date": "DAY3", "time": "09000000"},
        type="EventRecall",
        question="What did I buy yesterday?",
        answer="D",
        target_time={"date": "DAY2", "time": "15300000-15310000"},
    )
    third = dict(
        EGOLIFE,
        ID="3",
        question="Where was the tape?",
        answer="A",
        target_time={"date": "DAY1", "time": "10000000DAY2 11000000"},
    )
    return _write(tmp_path / "EgoLifeQA_A1_JAKE.json", [EGOLIFE, second, third])


# Ego-R1-Bench items: no identity field (the file name names the wearer), query_time as a one-element list,
# time_list targets, "N/A" last_time, a numeric choice.
def _ego_r1_file(tmp_path: Path) -> Path:
    items = [
        {
            "ID": 7,
            "query_time": [{"date": "DAY5", "time": "18000000"}],
            "type": "HabitInsight",
            "last_time": "N/A",
            "question": "How many cups did I drink?",
            "choice_a": 1,
            "choice_b": 2,
            "choice_c": 3,
            "choice_d": 4,
            "answer": "C",
            "target_time": {"date": "DAY5", "time_list": ["10000000", "14000000", "17000000"]},
        },
        {
            "ID": 8,
            "query_time": {"date": "DAY6", "time": "12000000"},
            "type": "TaskMaster",
            "question": "What was left to buy?",
            "choice_a": "Eggs",
            "choice_b": "Milk",
            "choice_c": "Flour",
            "choice_d": "Sugar",
            "answer": "A",
            "target_time": {"date": "DAY6", "time": "11000000"},
        },
    ]
    return _write(tmp_path / "A2_ALICE.json", items)


# MultiHop-EgoQA test items (benchmark/metrics MultiHop-EgoQA.json: sample_id, segment_id, category, Q, A, T).
MULTIHOP = [
    {
        "sample_id": 0,
        "segment_id": "seg-a",
        "category": "Counting",
        "Q": "How many times did I open the tap?",
        "A": "You opened the tap <T1>twice</T1>.",
        "T": [[9, 15], [120, 135]],
    },
    {
        "sample_id": 1,
        "segment_id": "seg-a",
        "category": "Temporal",
        "Q": "When did I cut the onion?",
        "A": "<T1></T1>",
        "T": [40, 49],
    },
    {
        "sample_id": 2,
        "segment_id": "seg-b",
        "category": "Counting",
        "Q": "What did I put in the bowl?",
        "A": "Flour and two eggs.",
        "T": [[100, 119]],
    },
]


# ---------------------------------------------------------------------------------------- M3-Bench


@pytest.mark.shared
def test_m3_bench_robot_real_file() -> None:
    items = load("m3-bench", _annotations() / "robot.json")
    assert len(items) == 1276
    assert len({i.video for i in items}) == 100
    assert all(i.query_time is not None and i.choices == () and i.answer_index is None for i in items)
    first = next(i for i in items if i.item_id == "living_room_06_Q01")
    assert first.video == "robot/living_room_06.mp4"
    assert first.query_time == 43.0  # "00:43"
    assert first.answer == "Coffee."
    assert first.tags == ("Cross-Modal Reasoning",)
    assert first.raw["video_key"] == "living_room_06"
    # the 30-second clip index the benchmark stores is the last whole clip before the question
    assert all(i.raw["before_clip"] == int(i.query_time // 30) - 1 for i in items if i.query_time is not None)


@pytest.mark.shared
def test_m3_bench_web_real_file_and_folder() -> None:
    web = load("m3-bench", _annotations() / "web.json")
    assert len(web) == 3214
    assert len({i.video for i in web}) == 920
    assert all(i.query_time is None and i.video.startswith("web/") for i in web)
    assert all(i.raw["video"]["video_url"].startswith("https://www.youtube.com/") for i in web)
    both = load("m3-bench", _annotations())  # the folder: robot.json and web.json
    assert len(both) == 1276 + 3214


@pytest.mark.shared
def test_m3_bench_video_for(tmp_path: Path) -> None:
    item = next(i for i in load("m3-bench", _annotations() / "web.json") if i.video == "web/Efk3K4epEzg.mp4")
    with pytest.raises(FileNotFoundError, match=r"web/Efk3K4epEzg\.mp4.*youtube\.com/watch\?v=Efk3K4epEzg"):
        video_for(item, tmp_path)
    (tmp_path / "Efk3K4epEzg.mp4").write_bytes(b"")  # flat folder: the file name alone
    assert video_for(item, tmp_path) == tmp_path / "Efk3K4epEzg.mp4"
    (tmp_path / "web").mkdir()
    (tmp_path / "web" / "Efk3K4epEzg.mp4").write_bytes(b"")
    assert video_for(item, tmp_path) == tmp_path / "web" / "Efk3K4epEzg.mp4"


def test_parse_clock() -> None:
    assert parse_clock("00:43") == 43.0
    assert parse_clock("57:09") == 3429.0
    assert parse_clock("75:00") == 4500.0  # minutes past an hour, as long robot videos write them
    assert parse_clock("1:02:03") == 3723.0
    assert parse_clock("00:01:02.5") == 62.5
    for bad in ("12", "1:75", "a:b", "1:2:3:4"):
        with pytest.raises(ValueError):
            parse_clock(bad)


def test_m3_bench_malformed(tmp_path: Path) -> None:
    good = {
        "question": "Q?",
        "answer": "A.",
        "question_id": "v_Q01",
        "timestamp": "01:05",
        "type": ["Multi-Hop Reasoning"],
    }
    ok = load(
        "m3-bench", _write(tmp_path / "ok.json", {"v": {"video_path": "data/videos/robot/v.mp4", "qa_list": [good]}})
    )
    assert ok[0].query_time == 65.0 and ok[0].video == "robot/v.mp4"
    bad_answer = {k: v for k, v in good.items() if k != "answer"}
    path = _write(
        tmp_path / "robot.json", {"v": {"video_path": "x.mp4", "qa_list": [good | {"question_id": "a"}, bad_answer]}}
    )
    with pytest.raises(
        BenchmarkFormatError, match=r"robot\.json: item 1 \(video 'v', question 1\): field 'answer': missing"
    ) as e:
        load("m3-bench", path)
    assert e.value.field == "answer"
    path = _write(tmp_path / "ts.json", {"v": {"video_path": "x.mp4", "qa_list": [good | {"timestamp": "soon"}]}})
    with pytest.raises(BenchmarkFormatError, match="'timestamp'"):
        load("m3-bench", path)
    with pytest.raises(BenchmarkFormatError, match="'qa_list'"):
        load("m3-bench", _write(tmp_path / "noqa.json", {"v": {"video_path": "x.mp4"}}))
    with pytest.raises(BenchmarkFormatError, match="expected an object"):
        load("m3-bench", _write(tmp_path / "list.json", [good]))


# ----------------------------------------------------------------------------- EgoLifeQA / Ego-R1


def test_parse_egolife_time() -> None:
    assert parse_egolife_time("DAY1", "11210217") == pytest.approx(11 * 3600 + 21 * 60 + 2 + 17 / 20)
    assert parse_egolife_time("DAY3", "09000000") == 2 * 86400 + 9 * 3600
    assert parse_egolife_time("DAY2", 9100000) == 86400 + 9 * 3600 + 10 * 60  # an int that lost its leading zero
    assert parse_egolife_time("DAY1", "11210225") == 11 * 3600 + 21 * 60 + 2  # FF >= 20 read as 00, as Ego-R1 does
    for date, time in (("DAY0", "11000000"), ("Monday", "11000000"), ("DAY1", "25000000"), ("DAY1", "11h")):
        with pytest.raises(ValueError):
            parse_egolife_time(date, time)


def test_egolifeqa_fixture(tmp_path: Path) -> None:
    items = load("egolifeqa", _egolife_file(tmp_path))
    assert [i.item_id for i in items] == ["A1_JAKE-1", "A1_JAKE-2", "A1_JAKE-3"]
    first = items[0]
    assert first.benchmark == "egolifeqa" and first.video == "A1_JAKE"
    assert first.choices == ("Tasha", "Alice", "Shure", "Lucia")
    assert (first.answer_index, first.answer_letter, first.answer) == (1, "B", "Alice")
    assert first.query_time == pytest.approx(11 * 3600 + 21 * 60 + 2.85)
    assert first.evidence == ((11 * 3600 + 15 * 60 + 24.4, 11 * 3600 + 15 * 60 + 24.4),)
    assert first.tags == ("EntityLog",)
    assert first.raw["keywords"] == "use screwdriver"
    day2 = 86400.0
    assert items[1].query_time == 2 * day2 + 9 * 3600
    assert items[1].evidence == ((day2 + 15.5 * 3600, day2 + 15.5 * 3600 + 60),)  # "HHMMSSFF-HHMMSSFF": one span
    assert items[2].evidence == ((10 * 3600.0, 10 * 3600.0), (day2 + 11 * 3600, day2 + 11 * 3600))  # DAY token


def test_egolifeqa_folder_of_wearers_and_videos(tmp_path: Path) -> None:
    _egolife_file(tmp_path)
    _write(tmp_path / "EgoLifeQA_A2_ALICE.json", [dict(EGOLIFE, identity="A2_ALICE")])
    items = load("egolifeqa", tmp_path)
    assert [i.item_id for i in items] == ["A1_JAKE-1", "A1_JAKE-2", "A1_JAKE-3", "A2_ALICE-1"]
    videos = tmp_path / "videos"
    with pytest.raises(FileNotFoundError, match=r"videos/A2_ALICE.*DAYn"):
        video_for(items[-1], videos)
    (videos / "A2_ALICE" / "DAY1").mkdir(parents=True)
    assert video_for(items[-1], videos) == videos / "A2_ALICE"


def test_ego_r1_bench_fixture(tmp_path: Path) -> None:
    items = load("ego-r1-bench", _ego_r1_file(tmp_path))
    assert [i.item_id for i in items] == ["A2_ALICE-7", "A2_ALICE-8"]
    assert items[0].video == "A2_ALICE"  # from the file name
    assert items[0].choices == ("1", "2", "3", "4") and items[0].answer == "3"
    assert items[0].query_time == 4 * 86400 + 18 * 3600
    assert [s[0] for s in items[0].evidence] == [4 * 86400 + h * 3600 for h in (10, 14, 17)]
    assert items[1].query_time == 5 * 86400 + 12 * 3600


@pytest.mark.parametrize(
    ("change", "field", "index"),
    [
        ({"question": None}, "question", 0),
        ({"answer": None}, "answer", 0),
        ({"answer": "E"}, "answer", 0),
        ({"choice_b": None}, "choice_b", 0),
        ({"query_time": None}, "query_time", 0),
        ({"query_time": {"date": "DAY1"}}, "query_time.time", 0),
        ({"query_time": {"date": "DAY1", "time": "noon"}}, "query_time", 0),
        ({"target_time": {"date": "DAY1"}}, "target_time", 0),
        ({"ID": None}, "ID", 0),
    ],
)
def test_egolifeqa_malformed_names_the_field(tmp_path: Path, change: dict[str, Any], field: str, index: int) -> None:
    rec = {k: v for k, v in (EGOLIFE | change).items() if v is not None}
    path = _write(tmp_path / "EgoLifeQA_A1_JAKE.json", [rec])
    with pytest.raises(BenchmarkFormatError) as e:
        load("egolifeqa", path)
    assert (e.value.field, e.value.index) == (field, index)
    assert str(path) in str(e.value) and f"item {index}" in str(e.value) and repr(field) in str(e.value)


def test_egolifeqa_malformed_files(tmp_path: Path) -> None:
    no_identity = {k: v for k, v in EGOLIFE.items() if k != "identity"}
    with pytest.raises(BenchmarkFormatError, match="'identity'"):
        load("egolifeqa", _write(tmp_path / "questions.json", [EGOLIFE, no_identity]))
    with pytest.raises(BenchmarkFormatError, match=r"'ID'.*repeats"):
        load("egolifeqa", _write(tmp_path / "dup.json", [EGOLIFE, EGOLIFE]))
    with pytest.raises(BenchmarkFormatError, match="expected a list"):
        load("egolifeqa", _write(tmp_path / "obj.json", {"x": 1}))
    (tmp_path / "broken.json").write_text("[{", encoding="utf-8")
    with pytest.raises(BenchmarkFormatError, match="not JSON"):
        load("egolifeqa", tmp_path / "broken.json")
    with pytest.raises(FileNotFoundError):
        load("egolifeqa", tmp_path / "absent.json")


def test_unknown_benchmark_lists_the_names(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="egolifeqa, ego-r1-bench, m3-bench, multihop-egoqa"):
        load("videomme", tmp_path)
    assert BENCHMARKS == ("egolifeqa", "ego-r1-bench", "m3-bench", "multihop-egoqa")


# --------------------------------------------------------------------------------- MultiHop-EgoQA


def test_multihop_fixture(tmp_path: Path) -> None:
    items = load("multihop-egoqa", _write(tmp_path / "MultiHop-EgoQA.json", MULTIHOP))
    assert [i.item_id for i in items] == ["0", "1", "2"]
    assert items[0].video == "seg-a.mp4" and items[0].query_time is None
    assert items[0].answer == "You opened the tap twice."  # grounding tags removed
    assert items[0].evidence == ((9.0, 15.0), (120.0, 135.0))
    assert items[1].evidence == ((40.0, 49.0),)  # a single [s, e]
    assert items[1].tags == ("Temporal", "grounding-only")
    assert items[2].tags == ("Counting",)


def test_multihop_nested_training_shape(tmp_path: Path) -> None:
    nested = [
        {
            "segment_id": "seg-c",
            "annotated_QA": [
                {"Q": "Where is the knife?", "A": "On the <T1>board</T1>.", "T": [[3, 8]], "Evidence": {"1": [3, 8]}}
            ],
        }
    ]
    items = load("multihop-egoqa", _write(tmp_path / "train_annotations.json", nested))
    assert [(i.item_id, i.video, i.answer) for i in items] == [("seg-c_0", "seg-c.mp4", "On the board.")]


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"T": [[15, 9]]}, "T"),
        ({"T": "9-15"}, "T"),
        ({"T": None}, "T"),
        ({"Q": None}, "Q"),
        ({"A": None}, "A"),
        ({"segment_id": None}, "segment_id"),
    ],
)
def test_multihop_malformed(tmp_path: Path, change: dict[str, Any], field: str) -> None:
    rec = {k: v for k, v in (MULTIHOP[0] | change).items() if v is not None}
    with pytest.raises(BenchmarkFormatError) as e:
        load("multihop-egoqa", _write(tmp_path / "m.json", [MULTIHOP[2], rec]))
    assert (e.value.field, e.value.index) == (field, 1)


# ---------------------------------------------------------------------------------------- scoring


def test_temporal_iou_known_spans() -> None:
    assert temporal_iou([(0, 10)], [(5, 15)]) == pytest.approx(5 / 15)
    assert temporal_iou([(0, 10)], [(0, 10)]) == 1.0
    assert temporal_iou([(0, 10)], [(20, 30)]) == 0.0
    assert temporal_iou([], [(0, 10)]) == 0.0
    # unions first: overlapping predictions count once
    assert temporal_iou([(0, 6), (4, 10)], [(0, 10)]) == 1.0
    # two gold spans [0,10] and [20,30]; prediction [5,25]: intersection 5 + 5, union 0..30 = 30
    assert temporal_iou([(5, 25)], [(0, 10), (20, 30)]) == pytest.approx(10 / 30)
    # whole seconds, as MultiHop-EgoQA counts them: [9, 15] holds 7 seconds, [12, 20] 9, shared 12..15 = 4
    assert temporal_iou([(12, 20)], [(9, 15)], inclusive=True) == pytest.approx(4 / 12)


def test_token_f1_and_offline_judge() -> None:
    assert token_f1("Coffee.", "coffee") == 1.0
    assert token_f1("the red mug", "A red mug!") == 1.0
    assert token_f1("flour and eggs", "Flour and two eggs.") == pytest.approx(2 * 1.0 * 0.75 / 1.75)
    assert token_f1("", "x") == 0.0
    assert offline_judge("q", "Pirate Ship Float", "the pirate ship float")
    assert offline_judge("q", "Flour and two eggs.", "flour and eggs")
    assert not offline_judge("q", "Coffee.", "tea")
    assert not offline_judge("q", "Coffee.", "")


def test_choice_from_text() -> None:
    choices = ("Tasha", "Alice", "Shure", "Lucia")
    assert choice_from_text("<answer>B</answer>", choices) == 1
    assert choice_from_text("C. Shure", choices) == 2
    assert choice_from_text("(D)", choices) == 3
    assert choice_from_text("The answer is A.", choices) == 0
    assert choice_from_text("lucia", choices) == 3
    assert choice_from_text("E", choices) is None
    assert choice_from_text("no idea", choices) is None


def test_score_multiple_choice(tmp_path: Path) -> None:
    items = load("egolifeqa", _egolife_file(tmp_path))  # answers B, D, A
    preds = {
        "A1_JAKE-1": Prediction(choice_index=1),
        "A1_JAKE-2": Prediction(text="<answer>C</answer>"),
        "A1_JAKE-3": Prediction(text="A"),
    }
    result = score("egolifeqa", items, preds)
    assert round(result["accuracy"], 4) == 0.6667
    assert (result["answered"], result["total"]) == (3, 3)
    assert result["by_type"] == {"EntityLog": 1.0, "EventRecall": 0.0}
    missing = score("egolifeqa", items, {"A1_JAKE-1": Prediction(choice_index=1)})
    assert (missing["accuracy"], missing["answered"]) == (pytest.approx(1 / 3), 1)
    with pytest.raises(ValueError, match="not given"):
        score("egolifeqa", items, {"1": Prediction(choice_index=1)})
    with pytest.raises(ValueError, match="scored as ego-r1-bench"):
        score("ego-r1-bench", items, {})


def test_score_open_ended_m3_with_judge_hook() -> None:
    items = [
        BenchmarkItem("m3-bench", f"v_Q{n}", "robot/v.mp4", "q?", answer=a, tags=(t,))
        for n, (a, t) in enumerate(
            [
                ("Coffee.", "Cross-Modal Reasoning"),
                ("Pirate Ship Float", "Multi-Hop Reasoning"),
                ("Three people.", "Person Understanding"),
                ("In the drawer.", "Multi-Hop Reasoning"),
            ]
        )
    ]
    preds = {
        "v_Q0": Prediction(text="coffee"),
        "v_Q1": Prediction(text="a pirate ship"),
        "v_Q2": Prediction(text="four people"),
    }
    result = score("m3-bench", items, preds)
    # F1: 1.0; pirate ship vs pirate ship float = 2*(1*2/3)/(5/3) = 0.8; four people vs three people = 0.5; missing 0
    assert result["token_f1"] == pytest.approx((1.0 + 0.8 + 0.5 + 0.0) / 4)
    assert result["accuracy"] == 0.75 and result["answered"] == 3 and result["total"] == 4
    assert "not the official" in result["judge"]
    assert result["by_type"]["Multi-Hop Reasoning"] == 0.5

    def strict(question: str, reference: str, prediction: str) -> bool:
        return prediction.lower().strip(".") == reference.lower().strip(".")

    judged = score("m3-bench", items, preds, judge=strict)
    assert judged["accuracy"] == 0.25 and judged["judge"] == "strict"
    assert judged["token_f1"] == result["token_f1"]


def test_score_multihop_answers_and_grounding(tmp_path: Path) -> None:
    items = load("multihop-egoqa", _write(tmp_path / "MultiHop-EgoQA.json", MULTIHOP))
    preds = {
        "0": Prediction(text="You opened the tap twice.", spans=((9, 15), (120, 135))),  # IoU 1
        "1": Prediction(text="at 40 s", spans=((45, 54),)),  # grounding only: [40,49] vs [45,54] = 5 / 15
        "2": Prediction(text="sugar", spans=()),  # wrong answer, no spans: IoU 0
    }
    result = score("multihop-egoqa", items, preds)
    assert result["answer_total"] == 2 and result["total"] == 3
    assert result["accuracy"] == 0.5
    assert result["token_f1"] == pytest.approx(0.5)
    assert result["temporal_iou"] == pytest.approx((1.0 + 5 / 15 + 0.0) / 3)
    assert result["iou_at_0.3"] == pytest.approx(2 / 3)
    assert result["grounded"] == 2
    assert result["by_type"] == {"Counting": 0.5}
