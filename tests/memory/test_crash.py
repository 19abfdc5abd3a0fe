"""Crash safety: a writer killed with SIGKILL in the middle of writing clips. On reopening, the clip
log and the rows agree, nothing committed is lost, and writing the clips again duplicates nothing."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from helpers.memory import synthetic_clip

from edge_agent.memory import Store

CLIPS = 12
PER_CLIP = 30
WRITER = textwrap.dedent("""
    import sys
    from helpers.memory import synthetic_clip
    from edge_agent.memory import Store
    with Store(sys.argv[1]) as store:
        for i in range(int(sys.argv[2])):
            clip, observations = synthetic_clip(i)
            print("begin", i, flush=True)
            store.ingest_clip(clip, observations)
            print("done", i, flush=True)
""")


def _consistent(home: Path) -> int:
    with Store(home) as store:
        db = store.db
        logged = db.query("SELECT clip_t_start, clip_id, observations FROM ingest_log ORDER BY clip_t_start")
        clips = db.query("SELECT t_start, id FROM clips ORDER BY t_start")
        assert [(t, c) for t, c, _ in logged] == clips  # one log row per committed clip, nothing partial
        for _, clip_id, n in logged:
            assert db.query_one("SELECT count(*) FROM observations WHERE clip_id = ?", (clip_id,))[0] == n == PER_CLIP
            assert (
                db.query_one("SELECT count(*) FROM observations WHERE clip_id = ? AND entity_id IS NULL", (clip_id,))[0]
                == 0
            )
        assert [t for t, _ in clips] == [i * 10.0 for i in range(len(clips))]  # a prefix: nothing committed lost
        assert db.query_one("SELECT count(*) FROM association_log")[0] == len(clips) * PER_CLIP
        assert store.counts()["vec_obs"] == len(clips) * PER_CLIP
        return len(clips)


@pytest.mark.parametrize("kill_after", [2, 5, 9])
def test_sigkill_mid_write_then_reingest(tmp_path, kill_after):
    home = tmp_path / "home"
    env = dict(
        os.environ, PYTHONPATH=os.pathsep.join([str(Path(__file__).parents[1]), os.environ.get("PYTHONPATH", "")])
    )
    # cwd: not the repository root, whose source tree (without the compiled core) would shadow the install
    writer = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(home), str(CLIPS)], stdout=subprocess.PIPE, text=True, env=env, cwd=tmp_path
    )
    try:
        for line in writer.stdout:
            if line.split() == ["begin", str(kill_after)]:
                time.sleep(0.002 * (kill_after % 4))  # 0-6 ms: inside the clip's transaction (~15 ms)
                writer.send_signal(signal.SIGKILL)
                break
    finally:
        writer.wait(timeout=60)
        writer.stdout.close()
    assert writer.returncode == -signal.SIGKILL

    committed = _consistent(home)
    assert kill_after <= committed < CLIPS  # killed mid-run; whether mid-clip depends on timing

    with Store(home) as store:
        assert store.resume_point("kitchen") == (committed - 1) * 10.0 + 10.0
        results = [store.ingest_clip(*synthetic_clip(i)) for i in range(CLIPS)]
    assert [r.created for r in results] == [False] * committed + [True] * (CLIPS - committed)
    assert _consistent(home) == CLIPS
