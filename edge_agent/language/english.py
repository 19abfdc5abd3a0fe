"""English words and how often each is used: pyspellchecker's English dictionary (MIT licensed; word counts from
OpenSubtitles), which the lexicon reads to tell a typo ("sombody") from a word it has no phrase for ("came").

The package keeps it as gzip JSON: reading it (and lowercasing every word) cost each process 0.15 to 0.2 s here, a
sixth of a question's second. :func:`english` keeps a copy beside memory (``<home>/index/english-words.npz``: the
words, their counts and the package's version) that loads in about 0.03 s, and makes it again from the package when it
is missing, damaged (set aside, as every derived file) or of another version. The few operations the lexicon needs
are pyspellchecker's own (:meth:`English.edits` is its ``edit_distance_1``), over the same words."""

from __future__ import annotations

import contextlib
import functools
import os
import zipfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np

__all__ = ["English", "english"]


@dataclass(frozen=True, eq=False)
class English:
    """Lowercase English words -> how often each was used; ``letters``: every letter they are spelt with."""

    counts: Mapping[str, int]
    letters: str
    longest: int  #: the longest word's length: a longer one is no word and has no edits

    @classmethod
    def of(cls, counts: Mapping[str, int]) -> English:
        return cls(counts, "".join(sorted(set().union(*counts))), max(map(len, counts), default=0))

    def __contains__(self, word: object) -> bool:
        return word in self.counts

    def count(self, word: str) -> int:
        """How often ``word`` was used (0: not a word)."""
        return self.counts.get(word, 0)

    def edits(self, word: str) -> set[str]:
        """The strings one edit off ``word`` (a letter dropped, two swapped, one changed or one added), as
        pyspellchecker's ``edit_distance_1``."""
        if len(word) > self.longest or word.isnumeric():
            return {word}
        splits = [(word[:i], word[i:]) for i in range(len(word) + 1)]
        deletes = [a + b[1:] for a, b in splits if b]
        transposes = [a + b[1] + b[0] + b[2:] for a, b in splits if len(b) > 1]
        replaces = [a + c + b[1:] for a, b in splits if b for c in self.letters]
        inserts = [a + c + b for a, b in splits for c in self.letters]
        return set(deletes + transposes + replaces + inserts)

    def known(self, words: Iterable[str]) -> set[str]:
        """Those of ``words`` that are words."""
        return {w for w in words if w in self.counts}


def _version() -> str:
    from importlib.metadata import version

    return f"pyspellchecker {version('pyspellchecker')}"


def _from_package() -> English:
    from spellchecker import SpellChecker

    return English.of(dict(SpellChecker(distance=1).word_frequency.dictionary))


@functools.cache
def english(cache: Path | None = None) -> English:
    """The English dictionary, read once a process: from ``cache`` where it holds this version's, else from the
    package (and then written to ``cache``)."""
    version = _version()
    if cache is not None and cache.is_file():
        try:  # each member's CRC-32 is checked as it is read; the file is opened here (numpy leaks one it opens)
            with open(cache, "rb") as f, np.load(f, allow_pickle=False) as saved:
                saved_version, letters = str(saved["version"]), str(saved["letters"])
                words = saved["words"].tobytes().decode("utf-8").split("\n")
                counts = saved["counts"].tolist()
            if len(words) != len(counts):
                raise ValueError("its counts do not match its words")
        except (OSError, ValueError, KeyError, EOFError, UnicodeDecodeError, zipfile.BadZipFile) as exc:
            from edge_agent.memory.derived import set_aside

            set_aside(cache.parent, [cache], f"the English words {cache} are damaged ({str(exc).split('. ')[0]})")
        else:
            if saved_version == version:
                return English(dict(zip(words, counts)), letters, max(map(len, words), default=0))
    found = _from_package()
    if cache is not None:
        tmp = cache.with_name(f".{cache.name}.{os.getpid()}.tmp")
        try:  # whole or not at all: another process may be reading it
            cache.parent.mkdir(parents=True, exist_ok=True)
            with open(tmp, "wb") as out:
                np.savez(
                    out,
                    version=np.array(version),
                    letters=np.array(found.letters),
                    words=np.frombuffer("\n".join(found.counts).encode("utf-8"), np.uint8),
                    counts=np.fromiter(found.counts.values(), np.int64, len(found.counts)),
                )
            os.replace(tmp, cache)
        except OSError:  # a read-only memory: read from the package again next time
            with contextlib.suppress(OSError):
                tmp.unlink(missing_ok=True)
    return found
