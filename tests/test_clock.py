"""Time text in and out."""

from __future__ import annotations

import pytest

from edge_agent.clock import format_utc, parse_iso


def test_format_and_parse_round_trip():
    t = parse_iso("2026-03-02T08:00:05+00:00")
    assert t == parse_iso("2026-03-02T08:00:05Z") == parse_iso("2026-03-02T09:00:05+01:00")
    assert format_utc(t) == "2026-03-02 08:00:05" and format_utc(t, zone=True) == "2026-03-02 08:00:05 UTC"
    assert parse_iso("2026-03-02T08:00:05", naive="utc") == t
    assert format_utc(None) == "-"
    with pytest.raises(ValueError):
        parse_iso("yesterday")
