"""The installed package: public API, typing markers and a single-sourced version."""

from __future__ import annotations

import importlib.metadata
import importlib.resources

import edge_agent
import edge_agent.native
from edge_agent import _native


def test_public_native_api():
    from edge_agent.native import ByteTracker, association_test, cosine_topk, iou_matrix, separation  # noqa: F401

    for name in edge_agent.native.__all__:
        assert hasattr(edge_agent.native, name), name
    assert {"ByteTracker", "iou_matrix", "separation", "association_test", "cosine_topk"} <= set(
        edge_agent.native.__all__
    )


def test_typing_markers_are_installed():
    files = importlib.resources.files("edge_agent")
    assert files.joinpath("py.typed").is_file()
    assert files.joinpath("_native.pyi").is_file()


def test_version_is_single_sourced():
    assert edge_agent.__version__ == importlib.metadata.version("edge-agent") == _native.__version__
