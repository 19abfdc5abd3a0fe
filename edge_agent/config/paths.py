"""Where things are, resolved in one place for every command, the server and the tests: the memory folder,
the models folder and the configuration file. An option given on the command line wins, then the
configuration file, then the environment, then the per-user default."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["config_file", "default_home", "home_dir", "models_dir"]


def default_home() -> Path:
    """``$EDGE_AGENT_HOME``, else the per-user data folder (``$XDG_DATA_HOME/edge-agent``)."""
    if os.environ.get("EDGE_AGENT_HOME"):
        return Path(os.environ["EDGE_AGENT_HOME"]).expanduser()
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "edge-agent"


def home_dir(option: Path | str | None, configured: Path | None) -> Path:
    """The memory folder: ``--home``, else the configuration's ``home``, else :func:`default_home`."""
    if option is not None:
        return Path(option).expanduser()
    return configured.expanduser() if configured is not None else default_home()


def models_dir(option: Path | str | None, configured: Path | None, home: Path) -> Path:
    """The models folder: ``--models``, else ``$EDGE_AGENT_MODELS``, else the configuration's ``models``,
    else ``<home>/models``."""
    if option is not None:
        return Path(option).expanduser()
    if os.environ.get("EDGE_AGENT_MODELS"):
        return Path(os.environ["EDGE_AGENT_MODELS"]).expanduser()
    return configured.expanduser() if configured is not None else home / "models"


def config_file(option: Path | str | None) -> Path | None:
    """The configuration file: ``--config``, else ``$EDGE_AGENT_CONFIG``, else none (every default)."""
    if option is not None:
        return Path(option).expanduser()
    return Path(os.environ["EDGE_AGENT_CONFIG"]).expanduser() if os.environ.get("EDGE_AGENT_CONFIG") else None
