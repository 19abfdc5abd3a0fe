"""Media for tests: a short video with a spoken audio track (espeak-ng + PyAV)."""

from __future__ import annotations

import fractions
import shutil
import subprocess
import wave
from pathlib import Path

import numpy as np
import pytest


def spoken_video(path: Path, sentence: str, *, seconds: float = 6.0, fps: int = 10) -> Path:
    if shutil.which("espeak-ng") is None:
        pytest.skip("espeak-ng is not installed (apt-get install espeak-ng)")
    av = pytest.importorskip("av", reason="PyAV (a dependency of faster-whisper) is not installed")
    wav = path.with_suffix(".wav")
    subprocess.run(["espeak-ng", "-w", str(wav), "-s", "140", sentence], check=True, capture_output=True)
    with wave.open(str(wav)) as w:
        rate = w.getframerate()
        pcm = np.frombuffer(w.readframes(w.getnframes()), np.int16)
    pcm = np.concatenate([np.zeros(rate // 2, np.int16), pcm])
    with av.open(str(path), "w") as out:
        video = out.add_stream("mpeg4", rate=fps)
        video.width, video.height, video.pix_fmt = 160, 120, "yuv420p"
        audio = out.add_stream("aac", rate=rate)
        audio.layout = "mono"
        for i in range(int(seconds * fps)):
            image = np.full((120, 160, 3), (i * 3) % 255, np.uint8)
            for packet in video.encode(av.VideoFrame.from_ndarray(image, format="bgr24")):
                out.mux(packet)
        for start in range(0, len(pcm), 1024):
            frame = av.AudioFrame.from_ndarray(pcm[start : start + 1024].reshape(1, -1), format="s16", layout="mono")
            frame.sample_rate, frame.pts, frame.time_base = rate, start, fractions.Fraction(1, rate)
            for packet in audio.encode(frame):
                out.mux(packet)
        for stream in (video, audio):
            for packet in stream.encode():
                out.mux(packet)
    return path


def spoken_wav(path: Path, sentence: str) -> Path:
    """A WAV of espeak-ng saying the sentence (a spoken question)."""
    if shutil.which("espeak-ng") is None:
        pytest.skip("espeak-ng is not installed (apt-get install espeak-ng)")
    subprocess.run(["espeak-ng", "-w", str(path), "-s", "140", sentence], check=True, capture_output=True)
    return path
