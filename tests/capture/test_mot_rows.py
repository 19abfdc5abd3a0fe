"""An empty MOT ground truth is "nothing in view" (issue 43): the loaders, the ground-truth detector, the world's
ground truth and ingest take it as such; a file that is not MOT rows is refused in one line naming it."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from edge_agent.capture.frames import CaptureError, Frame
from edge_agent.capture.images import MOT_COLUMNS, read_mot_rows
from edge_agent.cli import main
from edge_agent.eval.groundtruth import GroundTruth
from edge_agent.memory import Store
from edge_agent.perception.detect import GroundTruthDetector, ModelError


def sequence(root: Path, gt: str) -> Path:
    (root / "img1").mkdir(parents=True)
    (root / "gt").mkdir()
    for k in range(1, 5):
        cv2.imwrite(str(root / "img1" / f"{k:06d}.jpg"), np.full((120, 160, 3), 100, np.uint8))
    (root / "gt" / "gt.txt").write_text(gt)
    (root / "seqinfo.ini").write_text(
        "[Sequence]\nname=seq\nimDir=img1\nframeRate=2\nseqLength=4\nimWidth=160\nimHeight=120\nimExt=.jpg\n"
        "classes=person,cup\n"
    )
    return root


@pytest.mark.parametrize("text", ["", "\n", "  \n\n"])
def test_an_empty_ground_truth_is_nothing_in_view(tmp_path, text, capsys):
    seq = sequence(tmp_path / "seq", text)
    assert read_mot_rows(seq / "gt" / "gt.txt").shape == (0, MOT_COLUMNS)
    detector = GroundTruthDetector.from_mot(seq)
    assert len(detector.detect(Frame(1, 0.0, np.zeros((120, 160, 3), np.uint8)))) == 0
    assert GroundTruth().add_mot(seq, "c", 0.0) == 0
    home = tmp_path / "home"
    assert main(["--home", str(home), "ingest", str(seq), "--detector", "gt", "--quiet", "--camera", "c"]) == 0
    with Store(home, mode="read") as store:
        assert store.entities() == [] and store.counts()["clips"] >= 0


def test_rows_that_are_not_mot_are_refused_naming_the_file(tmp_path):
    seq = sequence(tmp_path / "seq", "1,2,3\n")
    with pytest.raises(CaptureError, match=r"gt\.txt: expected at least 8 columns, got 3"):
        read_mot_rows(seq / "gt" / "gt.txt")
    with pytest.raises(ModelError, match=r"gt\.txt: expected at least 8 columns"):
        GroundTruthDetector.from_mot(seq)
    (seq / "gt" / "gt.txt").write_text("frame,id\n")
    with pytest.raises(CaptureError, match="not MOT gt rows"):
        read_mot_rows(seq / "gt" / "gt.txt")
