"""The clip message between a node and the hub: a clip comes out as it went in, a large one is made to fit its
bound by smaller pictures, and a bad message is refused with the field named, never written."""

from __future__ import annotations

import dataclasses
import json

import cv2
import numpy as np
import pytest
from helpers.memory import perceived_clip

from edge_agent.memory import InvalidRecordError, Store
from edge_agent.mqtt.wire import WireError, decode, encode, key_of


def test_a_clip_comes_out_as_it_went_in():
    sent = perceived_clip()
    node, got = decode(encode(sent, "node-a", 1 << 20))
    assert node == "node-a"
    assert got.clip == sent.clip and got.caption == sent.caption and got.speech == sent.speech
    assert got.media == sent.media and got.key == sent.key == ("kitchen", 1_780_000_000_250)
    worn = dataclasses.replace(sent, clip=dataclasses.replace(sent.clip, moving=True))  # a worn camera's, too
    assert decode(encode(worn, "node-a", 1 << 20))[1].clip.moving and not got.clip.moving
    for a, b in zip(sent.observations, got.observations):
        assert (a.track_id, a.kind, a.category, a.embedding_space, a.crop_path) == (
            b.track_id,
            b.kind,
            b.category,
            b.embedding_space,
            b.crop_path,
        )
        assert a.description == b.description
        np.testing.assert_array_equal(a.frame_times, b.frame_times)
        np.testing.assert_array_equal(a.boxes, b.boxes)
        np.testing.assert_array_equal(a.scores, b.scores)
        np.testing.assert_array_equal(a.embedding, b.embedding)
        assert (a.surroundings is None) == (b.surroundings is None)
        if a.surroundings is not None:
            np.testing.assert_array_equal(a.surroundings, b.surroundings)


def test_faces_never_leave_the_device():
    import base64
    from dataclasses import replace

    sent = perceived_clip()
    face = np.linspace(-1, 1, 128, dtype=np.float32)
    person = next(o for o in sent.observations if o.kind == "person")
    with_face = replace(
        sent,
        observations=tuple(
            replace(o, faces=face[None, :], face_space="face:dlib_resnet_v1") if o is person else o
            for o in sent.observations
        ),
    )
    payload = encode(with_face, "node-a", 1 << 20)
    assert b"face" not in payload
    assert base64.b64encode((face / np.linalg.norm(face)).astype(np.float32).tobytes())[:40] not in payload
    _, got = decode(payload)
    assert all(o.faces is None for o in got.observations)


def test_a_large_clip_is_made_to_fit_by_smaller_pictures():
    big = perceived_clip(size=900)
    full = len(encode(big, "n", 1 << 30))
    bound = full // 3
    data = encode(big, "n", bound)
    assert len(data) <= bound
    _, got = decode(data)
    image = cv2.imdecode(np.frombuffer(got.media["crops/kitchen/1/3.jpg"], np.uint8), cv2.IMREAD_COLOR)
    assert image is not None and image.shape[0] < 900  # still a picture, smaller
    with pytest.raises(WireError, match="max_message_kb"):
        encode(big, "n", 300)  # not even the records fit


def _tampered(change) -> bytes:
    data = json.loads(encode(perceived_clip(), "n", 1 << 20))
    change(data)
    return json.dumps(data).encode()


@pytest.mark.parametrize(
    ("change", "named"),
    [
        (lambda d: d.pop("camera"), "camera is missing"),
        (lambda d: d.update(version=99), "version 99"),
        (lambda d: d.update(schema="other"), "not a clip message"),
        (lambda d: d["observations"][0].update(embedding="@@@"), "embedding is not base64"),
        (lambda d: d["observations"][0].update(track_id="three"), "track_id has the wrong type"),
        (lambda d: d["media"].update({"../../etc/passwd": "AAAA"}), "not named by the clip's records"),
        (lambda d: d["observations"][0].update(frame_times=[1.0]), "boxes must have shape"),
        (lambda d: d["observations"][0].update(crop_path="/etc/passwd"), "relative to the media folder"),
        (lambda d: d.update(speech=[[1, 2]]), "speech must be"),
        (lambda d: d.update(speech=[["a", "b", "x"]]), "speech start must be a time"),
        (lambda d: d.update(speech=[[1, None, "x"]]), "speech end must be a time"),
        (lambda d: d["observations"][0].update(track_id=2**70), "out of range"),
        (lambda d: d["observations"][0].update(crop_path="crops/\x00.jpg"), "NUL"),
        (lambda d: d.update(camera="kitchen\x00"), "NUL"),
        (lambda d: d["observations"][0]["description"].update(rgb=["x", 1, 2]), "rgb must be"),
        (lambda d: d["observations"][0]["description"].update(company=[[1, "x"]]), "company must be"),
        (lambda d: d["observations"][0].update(frame_times=[1e300, 2e300, 3e300, 4e300]), "frame_times must be"),
        (lambda d: d["media"].update({"keyframes/kitchen/1.jpg": "aGVsbG8="}), "not a JPEG"),
        (lambda d: d["media"].pop("keyframes/kitchen/1.jpg"), "does not carry"),
        (lambda d: d.update(t_start=1e300), "t_start must be a time"),
        (lambda d: d.update(media=[]), "media has the wrong type"),
    ],
)
def test_a_bad_message_is_refused_with_the_field_named(change, named):
    with pytest.raises((WireError, InvalidRecordError), match=named):
        decode(_tampered(change))


def test_not_json_is_refused_and_a_key_is_read_where_it_can_be():
    with pytest.raises(WireError, match="not JSON"):
        decode(b"\xff\x00")
    assert key_of(b"\xff") is None
    assert key_of(b'{"camera": "kitchen", "t_start": NaN}') is None
    assert key_of(b'{"camera": "kitchen", "t_start": 1e400}') is None
    assert key_of(_tampered(lambda d: d.pop("observations"))) == ("kitchen", 1_780_000_000_250)


def test_nesting_size_and_constants_are_refused_before_or_while_parsing():
    deep = b"[" * 100_000 + b"]" * 100_000
    with pytest.raises(WireError, match="nests deeper"):
        decode(deep)
    assert key_of(deep) is None
    with pytest.raises(WireError, match="nests deeper"):
        decode(b'{"schema": "edge-agent.clip", "x": ' + b"{" * 50 + b"}" * 50 + b"}")
    text = b'{"a": "' + b"[" * 1000 + b'\\"' + b"[" * 1000 + b'"}'  # brackets inside a string are not nesting
    with pytest.raises(WireError, match="not a clip message"):
        decode(text)
    with pytest.raises(WireError, match="larger than"):
        decode(encode(perceived_clip(), "n", 1 << 20), max_bytes=100)
    for constant in (b"NaN", b"Infinity", b"-Infinity"):
        with pytest.raises(WireError, match="finite"):
            decode(_tampered(lambda d: None).replace(b'"t_start": 1780000000.25', b'"t_start": ' + constant))
    with pytest.raises(WireError, match="finite|must be a time"):
        decode(_tampered(lambda d: None).replace(b'"t_start": 1780000000.25', b'"t_start": 1e400'))


def test_a_decoded_clip_is_written_to_memory_with_its_pictures_under_names_memory_chose(tmp_path):
    from edge_agent.ingest import write_clip

    _, got = decode(encode(perceived_clip(), "n", 1 << 20))
    with Store(tmp_path / "hub") as store:
        first = write_clip(store, got)
        again = write_clip(store, got)
        assert first.created and not again.created and len(first.decisions) == 2
        crop = store.db.value("SELECT crop_path FROM observations WHERE category = 'cup'")
        (keyframe,) = json.loads(store.db.value("SELECT keyframes FROM clips"))
        assert crop == "crops/kitchen/1780000000250/0.jpg" and keyframe == "keyframes/kitchen/1780000000250/0.jpg"
        assert store.media_path(crop).read_bytes() == got.media["crops/kitchen/1/3.jpg"]
        assert store.media_path(keyframe).read_bytes() == got.media["keyframes/kitchen/1.jpg"]
        assert not store.media_path("crops/kitchen/1/3.jpg").exists()  # the name the message gave is not used
