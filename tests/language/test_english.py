"""The English dictionary the lexicon reads typos with (language/english.py): pyspellchecker's words and edits, kept
beside memory and made again from the package when the copy is missing, damaged or of another version."""

from __future__ import annotations

import logging

import numpy as np
import pytest
from spellchecker import SpellChecker

from edge_agent.language import english as module
from edge_agent.language.english import english


@pytest.fixture(autouse=True)
def _fresh():
    english.cache_clear()
    yield
    english.cache_clear()


@pytest.mark.parametrize("word", ["sombody", "notifiy", "truk", "kitchen", "came", "bedrom", "hoodie", "x" * 50, "42"])
def test_the_words_counts_and_edits_are_pyspellcheckers(tmp_path, word):
    english(tmp_path / "english-words.npz")
    english.cache_clear()
    copy = english(tmp_path / "english-words.npz")  # read back from the copy
    checker = SpellChecker(distance=1)
    assert copy.edits(word) == checker.edit_distance_1(word)
    assert copy.known(copy.edits(word)) == checker.known(checker.edit_distance_1(word))
    assert copy.count(word) == checker.word_frequency[word] and (word in copy) == (word in checker)


def test_the_copy_is_read_instead_of_the_package_and_made_again_when_damaged(tmp_path, monkeypatch, caplog):
    path = tmp_path / "index" / "english-words.npz"
    made = []
    package = module._from_package
    monkeypatch.setattr(module, "_from_package", lambda: made.append(1) or package())
    first = english(path)
    english.cache_clear()
    again = english(path)
    assert len(made) == 1 and dict(again.counts) == dict(first.counts) and again.letters == first.letters
    english.cache_clear()
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])  # cut short
    with caplog.at_level(logging.WARNING):
        assert english(path).count("kitchen") == first.count("kitchen")
    assert len(made) == 2 and "are damaged" in caplog.text and list((tmp_path / "index").glob("damaged-*"))
    assert path.is_file()  # made again
    english.cache_clear()
    with open(path, "wb") as out:  # another version's copy: not used
        np.savez(out, version=np.array("pyspellchecker 0.0"), letters=np.array("a"), words=np.array([97], np.uint8),
                 counts=np.array([1]))  # fmt: skip
    assert english(path).count("kitchen") == first.count("kitchen") and len(made) == 3


def test_a_memory_it_cannot_write_still_reads_from_the_package(tmp_path):
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    assert english(blocked / "english-words.npz").count("kitchen") > 0
