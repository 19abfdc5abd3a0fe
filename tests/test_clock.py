"""Time text in and out."""

from __future__ import annotations

import pytest

from edge_agent.clock import after_recording, format_utc, parse_iso


def test_format_and_parse_round_trip():
    t = parse_iso("2026-03-02T08:00:05+00:00")
    assert t == parse_iso("2026-03-02T08:00:05Z") == parse_iso("2026-03-02T09:00:05+01:00")
    assert format_utc(t) == "2026-03-02 08:00:05" and format_utc(t, zone=True) == "2026-03-02 08:00:05 UTC"
    assert parse_iso("2026-03-02T08:00:05", naive="utc") == t
    assert format_utc(None) == "-"
    with pytest.raises(ValueError):
        parse_iso("yesterday")


def test_times_named_in_a_question():
    from edge_agent.clock import find_times

    found = find_times(
        "The red cup that was by the sink at 2026-03-02 17:56:32 UTC: where was it before 2026-03-04T17:43Z?"
    )
    assert [(m.t, m.bound) for m in found] == [
        (parse_iso("2026-03-02T17:56:32Z"), False),
        (parse_iso("2026-03-04T17:43:00Z"), True),
    ]
    assert [m.bound for m in find_times("as of 2026-03-02 08:00 +01:00, and until 2026-03-03 08:00 UTC")] == [
        True,
        True,
    ]
    assert find_times("at 2026-13-45 99:99 and at noon") == []  # no valid time, no mention


def test_recorded_time_skips_when_the_camera_was_off_and_counts_overlaps_once():
    on = [(0.0, 100.0), (50.0, 150.0), (1000.0, 2000.0)]  # two cameras overlapping, then a break
    assert after_recording(on, 20.0, 100.0) == 120.0
    assert after_recording(on, 20.0, 200.0) == 1070.0  # 130 s before the break, 70 s after it
    assert after_recording(on, 20.0, 5000.0) is None
