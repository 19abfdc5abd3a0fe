"""``/api/rules/read``, what the dashboard previews a rule with: a reading, or the reader's refusal in its own
words, both answered 200 (a page checking its user's rule logs no failed request); the refusal is the one
``/api/rules/preview`` answers with its 422; nothing is stored."""

from __future__ import annotations

import pytest

DOG_ON_SOFA = "notify me when the dog is on the sofa"


def test_a_rule_that_reads_is_read_as_preview_reads_it(client):
    read = client.post("/api/rules/read", json={"text": DOG_ON_SOFA})
    preview = client.post("/api/rules/preview", json={"text": DOG_ON_SOFA}).json()
    assert read.status_code == 200
    assert read.json() == {**preview, "readable": True, "reason": None}
    assert client.get("/api/rules").json() == []


@pytest.mark.parametrize(
    "text",
    [
        "make me a sandwich",
        "alert me if the car has not been seen for",
        "notify me when the unicorn is on the sofa",
        "tell me when the dog is on the balcony",
        "{not json",
    ],
)
def test_an_unreadable_rule_is_answered_with_the_readers_words(client, text):
    read = client.post("/api/rules/read", json={"text": text})
    refused = client.post("/api/rules/preview", json={"text": text})
    assert read.status_code == 200 and refused.status_code == 422
    assert read.json() == {
        "text": text,
        "readable": False,
        "predicate": None,
        "description": None,
        "reason": refused.json()["error"],
    }
    assert client.get("/api/rules").json() == []


def test_a_body_that_is_no_rule_request_is_still_refused(client):
    assert client.post("/api/rules/read", json={"text": "x" * 501}).status_code == 422
    assert client.post("/api/rules/read", json={"txt": DOG_ON_SOFA}).status_code == 422
