"""A real mosquitto broker on loopback for the MQTT tests (Debian's mosquitto package; the tests skip where it is
not installed), with persistence on disk as a home install keeps it, so that it can be restarted mid-run."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from pathlib import Path

import pytest

__all__ = ["Mosquitto", "free_port"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Mosquitto:
    """``start``, ``stop`` (SIGTERM: it saves its queues) and ``restart`` a broker at ``port`` in ``folder``."""

    def __init__(self, folder: Path, *, persistence: bool = True, extra: str = "", anonymous: bool = True) -> None:
        exe = shutil.which("mosquitto") or ("/usr/sbin/mosquitto" if Path("/usr/sbin/mosquitto").exists() else None)
        if exe is None:
            pytest.skip("mosquitto is not installed (apt-get install mosquitto)")
        self.exe = exe
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        self.conf = folder / "mosquitto.conf"
        lines = [f"listener {self.port} 127.0.0.1", f"allow_anonymous {'true' if anonymous else 'false'}"]
        if os.geteuid() == 0:  # started as root it would become the mosquitto user, who cannot reach pytest's tmp
            lines.append("user root")
        if persistence:
            lines += ["persistence true", f"persistence_location {folder}/", "autosave_interval 1"]
        else:
            lines.append("persistence false")
        self.conf.write_text("\n".join(lines) + "\n" + extra)
        self.log = folder / "mosquitto.log"
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"mqtt://127.0.0.1:{self.port}"

    def start(self) -> Mosquitto:
        with self.log.open("ab") as log:
            self.proc = subprocess.Popen([self.exe, "-c", str(self.conf)], stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 10
        while True:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.5).close()
                return self
            except OSError:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"mosquitto did not start: {self.log.read_text(errors='replace')}")
                time.sleep(0.05)

    def stop(self) -> None:
        if self.proc is None:
            return
        self.proc.terminate()
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.proc = None

    def restart(self) -> None:
        self.stop()
        self.start()
