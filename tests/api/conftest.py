"""A small memory written through the real store (two cameras: a kitchen with a red and a blue cup, a
living room with a dog and a sofa), with JPEG crops and keyframes; the API over it through FastAPI's
TestClient, and a real uvicorn server on 127.0.0.1 for what needs sockets (the token over the wire,
chunked bodies, the alert stream)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from pathlib import Path
from types import SimpleNamespace

import cv2
import numpy as np
import pytest
from helpers.memory import clip, observation, said, unit
from helpers.server import live_server

from edge_agent.config import load_config
from edge_agent.memory import Store
from edge_agent.runtime import Runtime

T0 = 1_772_438_400.0  # 2026-03-02 08:00 UTC
ZONES = {"living": {"sofa": (100, 100, 300, 300)}}
ON_SOFA, OFF_SOFA = (150, 150, 220, 220), (400, 150, 470, 220)
RED_CUP = unit(np.r_[np.ones(8), np.zeros(8)])
BLUE_CUP = unit(np.r_[np.zeros(8), np.ones(8)])
DOG = unit(np.r_[np.ones(4), np.zeros(12)])
PLACES = ("counter", "sink", "table")


def jpeg(path: Path, value: int = 128) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    ok, data = cv2.imencode(".jpg", np.full((24, 32, 3), value, np.uint8))
    assert ok
    path.write_bytes(data.tobytes())
    return str(path)


def dog_clip(store: Store, t0: float, box=ON_SOFA) -> int:
    """A living-room clip of the dog (on the sofa by default), with a crop and a keyframe; its id."""
    key, crop = f"keyframes/living-{int(t0)}.jpg", f"crops/living-{int(t0)}/1.jpg"
    jpeg(store.media_path(key), 60)
    jpeg(store.media_path(crop), 90)
    described = said("dog", colour="brown", zone="sofa" if box == ON_SOFA else "window")
    text = described.text
    rec = observation(
        1, t0, box, DOG, kind="animal", category="dog", frames=20, step=0.5, description=described, crop_path=crop
    )
    return store.ingest_clip(
        clip(t0, camera="living", keyframes=[key]), [rec], caption=f"the living room: {text}"
    ).clip_id


def build_memory(home: Path) -> SimpleNamespace:
    """The red cup by the counter, the sink, then the table (10 minutes apart), a blue cup once, the dog
    off the sofa once. Returns the ids the tests refer to."""
    with Store(home) as store:
        red_obs, clips = [], []
        for k, place in enumerate(PLACES):
            t = T0 + k * 600
            key, crop = f"keyframes/kitchen-{k}.jpg", f"crops/kitchen-{k}/1.jpg"
            jpeg(store.media_path(key), 40 + k)
            jpeg(store.media_path(crop), 200 - k)
            result = store.ingest_clip(
                clip(t, camera="kitchen", keyframes=[key]),
                [
                    observation(
                        1,
                        t,
                        (100 + 100 * k, 100, 140 + 100 * k, 140),
                        RED_CUP,
                        description=said(colour="red", zone=place),
                        crop_path=crop,
                    )
                ],
                caption=f"the kitchen: a red cup by the {place}",
            )
            red_obs.append(result.decisions[0].observation_id)
            clips.append(result.clip_id)
        t = T0 + 1800
        blue = store.ingest_clip(
            clip(t, camera="kitchen"),
            [
                observation(
                    2,
                    t,
                    (50, 300, 90, 340),
                    BLUE_CUP,
                    description=said(colour="blue", zone="sink"),
                    crop_path="crops/blue/2.jpg",
                )
            ],
            caption="the kitchen: a blue cup by the sink",
        )
        jpeg(store.media_path("crops/blue/2.jpg"), 10)
        dog_clip(store, T0 + 120, OFF_SOFA)
        red = store.observation(red_obs[0]).entity_id
        blue_entity = blue.decisions[0].entity_id
        dog_entity = store.entities("animal")[0].id
    return SimpleNamespace(
        home=home,
        red=red,
        blue=blue_entity,
        dog=dog_entity,
        red_observations=red_obs,
        kitchen_clips=clips,
        blue_observation=blue.decisions[0].observation_id,
        blue_clip=blue.clip_id,
    )


@pytest.fixture
def scene() -> SimpleNamespace:
    """The builders and constants, for tests (a conftest cannot be imported)."""
    return SimpleNamespace(T0=T0, ZONES=ZONES, ON_SOFA=ON_SOFA, OFF_SOFA=OFF_SOFA, dog_clip=dog_clip, jpeg=jpeg)


@pytest.fixture
def config():
    return load_config(None, zones=ZONES)


@pytest.fixture
def memory(tmp_path) -> SimpleNamespace:
    return build_memory(tmp_path / "home")


@pytest.fixture
def make_client(config) -> Iterator[Callable[..., object]]:
    """make_client(home, token=None, embedder=None, raise_server_exceptions=True): a TestClient (as a
    context manager: the app's startup and shutdown run) whose requests come from and name 127.0.0.1."""
    from fastapi.testclient import TestClient

    from edge_agent.api import create_app

    with contextlib.ExitStack() as stack:

        def make(
            home: Path, *, token: str | None = None, embedder=None, raise_server_exceptions: bool = True, cfg=None
        ) -> TestClient:
            app = create_app(Runtime.at(home, cfg or config), token=token, embedder=embedder)
            client = TestClient(
                app,
                base_url="http://127.0.0.1:8765",
                raise_server_exceptions=raise_server_exceptions,
                client=("127.0.0.1", 50000),
            )
            return stack.enter_context(client)

        yield make


@pytest.fixture
def client(make_client, memory):
    return make_client(memory.home)


@pytest.fixture
def serve(config):
    """serve(home, token=None): a context manager running the API on a real server; yields the base URL."""
    from edge_agent.api import create_app

    def run(home: Path, *, token: str | None = None):
        return live_server(create_app(Runtime.at(home, config), token=token))

    return run
