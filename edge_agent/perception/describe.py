"""Grounded descriptions (GEB section 3.2): one ``Describer`` protocol writing an observation's
description, as typed fields with a sentence (edge_agent.memory.description), and a clip's caption.

- ``TemplateDescriber`` needs no model: colour names with the measured colour, pattern (plain, striped,
  checked), size, the named zone or region of the frame, motion and the categories seen with it, all read
  off the pixels and boxes, so it never states what it did not see; its sentence says the fields.
- ``LlamaVLMDescriber``: a GGUF vision-language model and its mmproj through llama-cpp-python's
  multimodal chat handlers, with GEB's grounding prompt (establish the subject from its crops, use the
  scene only for interactions, use speech only where it concerns the subject) and ReflectWorld-MM's
  context-enhanced perception (what memory already knows of the proposed entity goes into the prompt).
  It answers under a JSON schema (llama.cpp's grammar): a sentence, colour names from the describer's
  list and a pattern; where it was, its size, motion and company are measured, as the template does.
"""

from __future__ import annotations

import base64
import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Protocol, cast

import cv2
import numpy as np

from edge_agent.chat import ChatModel
from edge_agent.config import TemplateDescriberConfig, VLMDescriberConfig
from edge_agent.memory.description import REGIONS, Description, counted, motion_phrase, place_phrase
from edge_agent.perception.detections import ModelError
from edge_agent.perception.embed import subject_weights
from edge_agent.perception.registry import DESCRIBERS, BuildContext
from edge_agent.perception.vocabulary import COLOUR_NAMES

__all__ = [
    "COLOUR_NAMES",
    "DESCRIPTION_SCHEMA",
    "PATTERN_NAMES",
    "Describer",
    "LlamaVLMDescriber",
    "ObservationContext",
    "TemplateDescriber",
    "colour_name",
    "colours_of",
    "pattern_name",
]


@dataclass(frozen=True, eq=False)
class ObservationContext:
    """What a describer may use for one observation: its category, crops (best first), boxes on the
    sampled frames with times, the frame size, and the other categories in the clip."""

    category: str
    crops: Sequence[np.ndarray]
    boxes: np.ndarray  # (K, 4)
    times: Sequence[float]
    frame_size: tuple[int, int]  # (width, height)
    others: Sequence[str] = ()
    scene: np.ndarray | None = None  #: a frame of the clip, for interactions
    memory: str | None = None  #: what memory knows of the entity this probably is
    speech: Sequence[tuple[float, str]] = ()  #: timestamped transcript of the clip
    camera: str = ""  #: the camera's name (its named zones say where things are)
    #: the boxes with the camera's own motion taken out (a moving camera: what stood still while the wearer
    #: turned is still); None: the camera is fixed and ``boxes`` are steady
    steady: np.ndarray | None = None
    #: the detector's next-best category for this thing ('' for none): a van is "truck", runner-up "car"
    runner_up: str = ""


class Describer(Protocol):
    name: str
    wants_context: bool  #: whether it reads the scene frame and the memory note (they cost a lookup)

    def describe(self, observation: ObservationContext) -> Description: ...
    def caption(self, camera: str, observations: Sequence[ObservationContext]) -> str: ...


_HUES = [
    (10, "red"),
    (22, "orange"),
    (34, "yellow"),
    (78, "green"),
    (96, "teal"),
    (130, "blue"),
    (150, "purple"),
    (170, "pink"),
    (180, "red"),
]
assert {name for _, name in _HUES} <= set(COLOUR_NAMES)


PATTERN_NAMES = ("plain", "striped", "checked", "patterned")


def _centre(patch: np.ndarray) -> np.ndarray:
    h, w = patch.shape[:2]
    return patch[h // 4 : max(h // 4 + 1, 3 * h // 4), w // 4 : max(w // 4 + 1, 3 * w // 4)]


def _pixel_names(hsv: np.ndarray) -> np.ndarray:
    """Each pixel's colour name (indices into COLOUR_NAMES), by the rules colour_name applies to a crop."""
    hue, sat, val = hsv[:, 0], hsv[:, 1] / 255.0, hsv[:, 2] / 255.0
    limits = np.array([limit for limit, _ in _HUES], np.float32)
    chromatic = np.array([COLOUR_NAMES.index(name) for _, name in _HUES])[
        np.minimum(np.searchsorted(limits, hue), len(limits) - 1)
    ]
    red, pink = COLOUR_NAMES.index("red"), COLOUR_NAMES.index("pink")
    chromatic = np.where((chromatic == red) & _light_red(sat, val), pink, chromatic)
    grey = np.where(val > 0.8, 3, np.where(val > 0.35, 2, 1))
    return np.where(val < 0.2, 0, np.where(sat > 0.35, chromatic, grey))


def _light_red(sat: np.ndarray | float, val: np.ndarray | float) -> np.ndarray | bool:
    """Whether a red is light and soft enough to be called pink (a salmon top, (240, 160, 137)), as people name it;
    a saturated or dark red stays red."""
    return (np.asarray(sat) < _PINK_SAT) & (np.asarray(val) > _PINK_VAL)


#: A red below this saturation and above this value is pink.
_PINK_SAT, _PINK_VAL = 0.55, 0.75


def colour_name(patch: np.ndarray) -> str:
    """The dominant colour of the central part of a crop, in plain words."""
    hsv = cv2.cvtColor(_centre(patch), cv2.COLOR_BGR2HSV).reshape(-1, 3).astype(np.float32)
    sat, val = hsv[:, 1] / 255.0, hsv[:, 2] / 255.0
    if np.median(val) < 0.2:
        return "black"
    colourful = sat > 0.35
    if colourful.mean() < 0.3:
        v = float(np.median(val))
        return "white" if v > 0.8 else "grey" if v > 0.35 else "dark grey"
    hue = float(np.median(hsv[colourful, 0]))
    name = next(name for limit, name in _HUES if hue <= limit)
    if name == "red" and bool(_light_red(float(np.median(sat[colourful])), float(np.median(val[colourful])))):
        return "pink"
    return name


def colours_of(patch: np.ndarray, second_share: float = 0.25) -> tuple[tuple[str, ...], tuple[int, int, int]]:
    """(colour names, measured colour): the dominant colour of the crop's centre, then a second one when at
    least ``second_share`` of the centre's pixels are of it; the measured colour is the median RGB of the
    pixels named with the dominant colour."""
    centre = _centre(patch)
    main = colour_name(patch)
    hsv = cv2.cvtColor(centre, cv2.COLOR_BGR2HSV).reshape(-1, 3).astype(np.float32)
    names = _pixel_names(hsv)
    shares = np.bincount(names, minlength=len(COLOUR_NAMES)) / max(len(names), 1)
    shares[COLOUR_NAMES.index(main)] = 0.0
    second = COLOUR_NAMES[int(np.argmax(shares))] if shares.max() >= second_share else None
    pixels = centre.reshape(-1, 3)
    mine = pixels[names == COLOUR_NAMES.index(main)]
    b, g, r = np.median(mine if len(mine) else pixels, axis=0)
    return ((main, second) if second else (main,)), (int(r), int(g), int(b))


def pattern_name(patch: np.ndarray, size: int = 64) -> str:
    """'plain', 'striped', 'checked' or 'patterned', from the gradients inside the thing (a centre kernel
    times a margin-colour foreground weight, aspect kept): little gradient energy is plain; one
    orientation holding 60% of it is stripes; both axes holding a quarter each, checks."""
    h, w = patch.shape[:2]
    scale = size / max(h, w, 1)
    image = cv2.resize(patch, (max(8, int(w * scale)), max(8, int(h * scale))), interpolation=cv2.INTER_AREA)
    inner = subject_weights(image) > 0.5
    if inner.sum() < 16:
        return "plain"
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY).astype(np.float32)
    magnitude, angle = cv2.cartToPolar(
        cv2.Sobel(gray, cv2.CV_32F, 1, 0), cv2.Sobel(gray, cv2.CV_32F, 0, 1), angleInDegrees=True
    )
    m, a = magnitude[inner], angle[inner] % 180.0
    if float(m.mean()) / 255.0 < 0.25:
        return "plain"
    energy = np.bincount((((a + 22.5) % 180.0) // 45.0).astype(int) % 4, weights=m, minlength=4)
    bins = energy / max(float(energy.sum()), 1e-6)
    if bins.max() >= 0.6:
        return "striped"
    if bins[0] >= 0.25 and bins[2] >= 0.25:
        return "checked"
    return "patterned"


def _region(box: np.ndarray, size: tuple[int, int]) -> str:
    """Which ninth of the image the box's centre is in (edge_agent.memory.description.REGIONS)."""
    cx, cy = (box[0] + box[2]) / 2 / size[0], (box[1] + box[3]) / 2 / size[1]
    column = 0 if cx < 1 / 3 else 2 if cx > 2 / 3 else 1
    row = 0 if cy < 1 / 3 else 2 if cy > 2 / 3 else 1
    return REGIONS[3 * row + column]


def _size(boxes: np.ndarray, size: tuple[int, int]) -> str:
    """small / medium / large: the square root of the median box's share of the frame (< 0.15, < 0.4)."""
    w, h = np.median(boxes[:, 2] - boxes[:, 0]), np.median(boxes[:, 3] - boxes[:, 1])
    side = float(np.sqrt(max(w * h, 0.0) / max(size[0] * size[1], 1)))
    return "small" if side < 0.15 else "medium" if side < 0.4 else "large"


def _motion(boxes: np.ndarray, size: tuple[int, int]) -> str:
    if len(boxes) < 2:
        return "brief"
    centres = (boxes[:, :2] + boxes[:, 2:]) / 2
    dx, dy = centres[-1] - centres[0]
    scale = 0.08 * max(size)
    if abs(dx) < scale and abs(dy) < scale:
        return "still"
    if abs(dx) >= abs(dy):
        return "moving right" if dx > 0 else "moving left"
    return "moving down" if dy > 0 else "moving up"


def _steady(observation: ObservationContext) -> np.ndarray:
    """The boxes its motion is read from: with the camera's own motion taken out where it moves."""
    boxes = observation.boxes if observation.steady is None else observation.steady
    return np.asarray(boxes, np.float32).reshape(-1, 4)


def _zone(box: np.ndarray, zones: dict[str, tuple[float, float, float, float]]) -> str | None:
    """The smallest named zone holding the box's centre."""
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    inside = [
        (abs((z[2] - z[0]) * (z[3] - z[1])), name)
        for name, z in zones.items()
        if z[0] <= cx <= z[2] and z[1] <= cy <= z[3]
    ]
    return min(inside)[1] if inside else None


class TemplateDescriber:
    """``zones``: per camera, named places in image pixels; a thing inside one is "by the <zone>" (its
    ``zone``), else its region of the frame is given."""

    name = "template"
    wants_context = False

    def __init__(self, zones: dict[str, dict[str, tuple[float, float, float, float]]] | None = None) -> None:
        self.zones = zones or {}

    def measure(self, observation: ObservationContext) -> Description:
        """Everything the pixels and boxes say, with the sentence that says it."""
        boxes = np.asarray(observation.boxes, np.float32).reshape(-1, 4)
        colours, rgb = colours_of(observation.crops[0]) if observation.crops else ((), None)
        last = boxes[-1]  # where it is: where it was last in this observation (put down, or leaving)
        zone = _zone(last, self.zones.get(observation.camera, {})) or ""
        described = Description(
            colours=colours,
            rgb=rgb,
            pattern=pattern_name(observation.crops[0]) if observation.crops else "",
            size=_size(boxes, observation.frame_size),
            zone=zone.strip().lower(),
            region="" if zone else _region(last, observation.frame_size),
            motion=_motion(_steady(observation), observation.frame_size),
            company=tuple(sorted(Counter(observation.others).items())),
        )
        return replace(described, text=described.sentence(observation.category))

    def describe(self, observation: ObservationContext) -> Description:
        return self.measure(observation)

    def caption(self, camera: str, observations: Sequence[ObservationContext]) -> str:
        if not observations:
            return f"{camera}: nothing detected"
        counts = Counter(o.category for o in observations)
        moving = sum(1 for o in observations if _motion(_steady(o), o.frame_size).startswith("moving"))
        seen = ", ".join(counted(c, n) for c, n in counts.most_common())
        return f"{camera}: {seen}" + (f"; {moving} moving" if moving else "")


GROUNDING_PROMPT = (
    "You describe one physical thing seen by a home camera, for a long-term memory that must stay true. "
    "Establish the subject from its close-up crops (the first images): what it is, its colours, patterns, "
    "marks, and what it is doing. Use the whole-scene frame only for what the subject interacts with or "
    "where it is. Use the timestamped speech only where it clearly concerns this subject. The memory note "
    "says what was seen before and may be wrong: trust the images. Never invent names. Answer in one or "
    "two plain sentences, with the colour names (at most two, the main one first) and the pattern chosen "
    "from the lists the answer's format allows."
)
CAPTION_PROMPT = (
    "You caption a 10-second clip from a home camera for a long-term memory. Say what happens, who and "
    "what is involved, in one or two plain sentences, grounded in the frame and the list of detections."
)

#: What the VLM answers, as llama.cpp's grammar enforces it: a sentence, colour names, a pattern.
DESCRIPTION_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "sentence": {"type": "string", "maxLength": 400},
        "colours": {"type": "array", "items": {"enum": list(COLOUR_NAMES)}, "minItems": 1, "maxItems": 2},
        "pattern": {"enum": list(PATTERN_NAMES)},
    },
    "required": ["sentence", "colours", "pattern"],
}

# llama-cpp-python's multimodal chat handlers, by the name used in the configuration.
VLM_HANDLERS = {
    "llava-1.5": "Llava15ChatHandler",
    "llava-1.6": "Llava16ChatHandler",
    "moondream": "MoondreamChatHandler",
    "nanollava": "NanoLlavaChatHandler",
    "llama-3-vision-alpha": "Llama3VisionAlphaChatHandler",
    "minicpm-v-2.6": "MiniCPMv26ChatHandler",
    "qwen2.5-vl": "Qwen25VLChatHandler",
    "gemma-4": "Gemma4ChatHandler",
    "mtmd": "MTMDChatHandler",  # llama.cpp's generic multimodal path, for models with their own chat template
}


def _data_uri(image: np.ndarray, max_side: int = 384) -> str:
    scale = min(1.0, max_side / max(image.shape[:2]))
    if scale < 1.0:
        image = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    ok, jpeg = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 85])
    if not ok:
        raise ValueError("cannot encode an image for the VLM")
    return "data:image/jpeg;base64," + base64.b64encode(jpeg.tobytes()).decode("ascii")


def _clean(text: str, limit: int = 400) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1].rsplit(" ", 1)[0] + "…"


class LlamaVLMDescriber:
    """Descriptions from a local vision-language model. ``llm`` lets tests pass a stand-in with
    ``create_chat_completion``; otherwise llama-cpp-python (the ``[vlm]`` extra) loads ``model`` and
    ``mmproj`` with the chat handler named by ``handler``."""

    def __init__(
        self,
        model: str | Path,
        mmproj: str | Path,
        *,
        handler: str = "llava-1.5",
        n_ctx: int = 4096,
        max_tokens: int = 160,
        n_gpu_layers: int = 0,
        crops: int = 2,
        zones: dict[str, dict[str, tuple[float, float, float, float]]] | None = None,
        llm: ChatModel | None = None,
    ) -> None:
        self.wants_context = True
        self.max_tokens = max_tokens
        self.crops = crops
        self.name = f"llama.cpp VLM ({Path(model).name}, {handler})"
        self.template = TemplateDescriber(zones)
        self.failures = 0  #: replies that were not DESCRIPTION_SCHEMA's (the measured fields stood)
        self.last_failure: str | None = None
        if llm is not None:
            self._llm = llm
            return
        for path in (Path(model), Path(mmproj)):
            if not path.is_file():
                raise FileNotFoundError(f"VLM file not found: {path}")
        if handler not in VLM_HANDLERS:
            raise ValueError(f"unknown VLM handler {handler!r}; expected one of {', '.join(VLM_HANDLERS)}")
        try:
            from llama_cpp import Llama, llama_chat_format
        except ImportError as exc:
            raise ImportError("the VLM describer needs llama-cpp-python: pip install 'edge-agent[vlm]'") from exc
        handler_class = getattr(llama_chat_format, VLM_HANDLERS[handler], None)
        if handler_class is None:
            raise ValueError(
                f"this llama-cpp-python has no {VLM_HANDLERS[handler]}; upgrade it or pick another handler"
            )
        self._llm = cast(
            "ChatModel",
            Llama(
                model_path=str(model),
                chat_handler=handler_class(clip_model_path=str(mmproj), verbose=False),
                n_ctx=n_ctx,
                n_gpu_layers=n_gpu_layers,
                verbose=False,
            ),
        )  # the library's looser annotations, as in edge_agent.qa.llm

    def _ask(self, system: str, images: Sequence[np.ndarray], text: str, schema: dict[str, Any] | None = None) -> str:
        content: list[dict[str, Any]] = [{"type": "image_url", "image_url": {"url": _data_uri(i)}} for i in images]
        content.append({"type": "text", "text": text})
        options: dict[str, Any] = {"response_format": {"type": "json_object", "schema": schema}} if schema else {}
        try:
            reply = self._llm.create_chat_completion(
                messages=[{"role": "system", "content": system}, {"role": "user", "content": content}],
                max_tokens=self.max_tokens,
                temperature=0.1,
                **options,
            )
        except ValueError as exc:  # llama.cpp loads the projector on first use
            raise ValueError(f"{self.name}: {exc} (is the mmproj the one made for this model?)") from exc
        return str(reply["choices"][0]["message"]["content"] or "")

    def describe(self, observation: ObservationContext) -> Description:
        """The model's sentence, colour names and pattern (under DESCRIPTION_SCHEMA) over what the boxes and
        pixels measure; a reply that is not the schema's keeps the measured fields (counted in ``failures``)."""
        measured = self.template.measure(observation)
        facts = [
            f"Detector category: {observation.category}"
            + (f" (else {observation.runner_up})." if observation.runner_up else "."),
            f"Where and how it moves (from its boxes): {place_phrase(measured.place)}, "
            f"{motion_phrase(measured.motion)}.",
            f"Also in view: {', '.join(sorted(set(observation.others))) or 'nothing else detected'}.",
            f"Memory note: {observation.memory or 'not seen before, as far as memory knows'}.",
        ]
        if observation.speech:
            facts.append("Speech: " + " ".join(f"[{t:.0f}s] {s}" for t, s in observation.speech))
        images = list(observation.crops[: self.crops]) + ([observation.scene] if observation.scene is not None else [])
        reply = self._ask(
            GROUNDING_PROMPT,
            images,
            "\n".join(facts) + "\nDescribe the subject of the close-ups.",
            DESCRIPTION_SCHEMA,
        )
        try:
            said = json.loads(reply)
            sentence, colours, pattern = _clean(said["sentence"]), tuple(said["colours"]), said["pattern"]
            if not sentence or not 1 <= len(colours) <= 2 or not set(colours) <= set(COLOUR_NAMES):
                raise ValueError(f"colours {colours!r}")
            if pattern not in PATTERN_NAMES:
                raise ValueError(f"pattern {pattern!r}")
        except (ValueError, KeyError, TypeError) as exc:
            self.failures += 1
            self.last_failure = f"{type(exc).__name__}: {exc}"
            text = _clean(reply) if reply.strip() and not reply.lstrip().startswith("{") else measured.text
            return replace(measured, text=text)
        return replace(measured, text=sentence, colours=tuple(dict.fromkeys(colours)), pattern=pattern)

    def caption(self, camera: str, observations: Sequence[ObservationContext]) -> str:
        listing = self.template.caption(camera, observations)
        scene = next((o.scene for o in observations if o.scene is not None), None)
        if scene is None:
            return listing
        speech = sorted({s for o in observations for s in o.speech})
        text = f"Camera {camera}. Detections: {listing}." + (
            " Speech: " + " ".join(f"[{t:.0f}s] {s}" for t, s in speech) if speech else ""
        )
        return self._ask(CAPTION_PROMPT, [scene], text)


# -- the builders of ``[describer] type`` ------------------------------------------------------------------------


@DESCRIBERS.register("template")
def _build_template(config: TemplateDescriberConfig, context: BuildContext) -> Describer:
    return TemplateDescriber(context.config.zones)


@DESCRIBERS.register("vlm")
def _build_vlm(config: VLMDescriberConfig, context: BuildContext) -> Describer:
    try:
        return LlamaVLMDescriber(
            context.model_file(config.model),
            context.model_file(config.mmproj),
            handler=config.handler,
            n_ctx=config.n_ctx,
            max_tokens=config.max_tokens,
            n_gpu_layers=config.n_gpu_layers,
            zones=context.config.zones,
        )
    except (FileNotFoundError, ImportError, ValueError) as exc:
        raise ModelError(f"[describer] type = 'vlm': {exc}") from None
