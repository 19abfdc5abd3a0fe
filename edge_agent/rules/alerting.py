"""Rules at work beside ingest: after each clip memory commits, the resolver checks it and queues
the alerts it raises; the dispatcher's thread delivers them to the configured sinks. Ingest only
writes rows: a slow or unreachable sink never holds it up."""

from __future__ import annotations

import time

from edge_agent.config import Config
from edge_agent.memory import Store, identity, rulebook
from edge_agent.rules.book import Alert
from edge_agent.rules.resolver import Resolver, ResolverSettings
from edge_agent.rules.sinks import Dispatcher, build_sinks

__all__ = ["Alerting", "settings_of"]


def settings_of(config: Config) -> ResolverSettings:
    """The resolver's settings of ``config``'s ``[rules]``."""
    return ResolverSettings.of(config.rules)


class Alerting:
    """Use as a context manager around an ingest run; call :meth:`after_clip` after each clip."""

    def __init__(self, store: Store, config: Config, *, grace_s: float = 3.0) -> None:
        self.sinks = build_sinks(config.alerts.sinks, install_id=identity.install_id(store))
        self.resolver = Resolver(store, zones=config.zones, settings=settings_of(config), sinks=list(self.sinks))
        self.dispatcher = Dispatcher(store.database_path, self.sinks)
        self.raised: list[Alert] = []
        self.grace_s = grace_s

    def __enter__(self) -> Alerting:
        self.resolver.process()  # clips committed while no resolver ran (a crash between the two)
        self.dispatcher.start()  # connects the sinks, and delivers what a previous run left pending
        return self

    def after_clip(self) -> None:
        """Checks the rules against the clip; the dispatcher's thread then delivers what they raised and brings
        the sinks' view of memory up to date (a named entity's sighting in Home Assistant): once per clip."""
        self.raised.extend(self.resolver.process())
        self.dispatcher.wake()

    def __exit__(self, *exc: object) -> None:
        """Gives the thread a moment to deliver what is due, then stops it; anything still pending
        stays queued in memory and goes out on the next run."""
        self.dispatcher.wake()
        deadline = time.monotonic() + self.grace_s
        while time.monotonic() < deadline and self._due():
            time.sleep(0.05)
        self.dispatcher.stop()

    def _due(self) -> bool:
        return rulebook.has_due_notification(self.resolver.store, time.time())
