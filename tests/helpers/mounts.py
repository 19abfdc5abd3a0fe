"""Real storage faults for tests: a small tmpfs (a disk that fills up) that can be remounted read-only.
Mounting needs root with CAP_SYS_ADMIN (CI runs as root); elsewhere the test is skipped with the reason."""

from __future__ import annotations

import contextlib
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest


class Tmpfs:
    def __init__(self, path: Path) -> None:
        self.path = path

    def fill(self, leave: int = 0) -> Path:
        """Writes a filler file until only ``leave`` bytes are free; returns it (delete it to free the space)."""
        import shutil

        filler = self.path / "filler"
        free = shutil.disk_usage(self.path).free - leave
        with open(filler, "ab") as f:
            block = b"\0" * 65536
            while free > 0:
                try:
                    f.write(block[: min(len(block), free)])
                    f.flush()
                except OSError:
                    break
                free -= min(len(block), free)
        return filler

    def readonly(self) -> None:
        subprocess.run(["mount", "-o", "remount,ro", str(self.path)], check=True, capture_output=True)


@contextlib.contextmanager
def tmpfs(path: Path, size: str) -> Iterator[Tmpfs]:
    path.mkdir(parents=True, exist_ok=True)
    try:
        done = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", f"size={size},mode=0755", "tmpfs", str(path)], capture_output=True, text=True
        )
    except FileNotFoundError:
        pytest.skip("no mount command to make a small file system")
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here (needs root with CAP_SYS_ADMIN): {done.stderr.strip()}")
    try:
        yield Tmpfs(path)
    finally:
        subprocess.run(["umount", "-l", str(path)], capture_output=True)
