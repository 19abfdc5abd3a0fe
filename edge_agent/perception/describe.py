"""Grounded descriptions (GEB section 3.2): one ``Describer`` protocol writing an observation's
description and a clip's caption.

- ``TemplateDescriber`` needs no model: category, colour name, pattern (plain, striped, checked),
  the named zone or position in the frame, motion and the entities seen with it, all read off the
  pixels and boxes, so it never states what it did not see.
- ``LlamaVLMDescriber``: a GGUF vision-language model and its mmproj through llama-cpp-python's
  multimodal chat handlers, with GEB's grounding prompt (establish the subject from its crops, use the
  scene only for interactions, use speech only where it concerns the subject) and ReflectWorld-MM's
  context-enhanced perception (what memory already knows of the proposed entity goes into the prompt).
"""

from __future__ import annotations

import base64
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import cv2
import numpy as np

from edge_agent.perception.embed import subject_weights

__all__ = ["Describer", "LlamaVLMDescriber", "ObservationContext", "TemplateDescriber", "colour_name", "pattern_name"]


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


class Describer(Protocol):
    name: str
    wants_context: bool  #: whether it reads the scene frame and the memory note (they cost a lookup)

    def describe(self, observation: ObservationContext) -> str: ...
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


def colour_name(patch: np.ndarray) -> str:
    """The dominant colour of the central part of a crop, in plain words."""
    h, w = patch.shape[:2]
    centre = patch[h // 4 : max(h // 4 + 1, 3 * h // 4), w // 4 : max(w // 4 + 1, 3 * w // 4)]
    hsv = cv2.cvtColor(centre, cv2.COLOR_BGR2HSV).reshape(-1, 3).astype(np.float32)
    sat, val = hsv[:, 1] / 255.0, hsv[:, 2] / 255.0
    if np.median(val) < 0.2:
        return "black"
    colourful = sat > 0.35
    if colourful.mean() < 0.3:
        v = float(np.median(val))
        return "white" if v > 0.8 else "grey" if v > 0.35 else "dark grey"
    hue = float(np.median(hsv[colourful, 0]))
    return next(name for limit, name in _HUES if hue <= limit)


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
    bins = np.bincount((((a + 22.5) % 180.0) // 45.0).astype(int) % 4, weights=m, minlength=4)
    bins = bins / max(float(bins.sum()), 1e-6)
    if bins.max() >= 0.6:
        return "striped"
    if bins[0] >= 0.25 and bins[2] >= 0.25:
        return "checked"
    return "patterned"


def _position(box: np.ndarray, size: tuple[int, int]) -> str:
    cx, cy = (box[0] + box[2]) / 2 / size[0], (box[1] + box[3]) / 2 / size[1]
    horizontal = "left" if cx < 1 / 3 else "right" if cx > 2 / 3 else "centre"
    vertical = "top" if cy < 1 / 3 else "bottom" if cy > 2 / 3 else "middle"
    return "in the centre" if (horizontal, vertical) == ("centre", "middle") else f"at the {vertical} {horizontal}"


def _motion(boxes: np.ndarray, size: tuple[int, int]) -> str:
    if len(boxes) < 2:
        return "seen briefly"
    centres = (boxes[:, :2] + boxes[:, 2:]) / 2
    dx, dy = centres[-1] - centres[0]
    scale = 0.08 * max(size)
    if abs(dx) < scale and abs(dy) < scale:
        return "staying in place"
    if abs(dx) >= abs(dy):
        return "moving right" if dx > 0 else "moving left"
    return "moving down" if dy > 0 else "moving up"


def _plural(category: str, n: int) -> str:
    if n == 1:
        return f"a {category}"
    return f"{n} {category if category.endswith('s') else 'people' if category == 'person' else category + 's'}"


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
    """``zones``: per camera, named places in image pixels; a thing inside one is said to be "by the
    <zone>" (else its position in the frame is given)."""

    name = "template"
    wants_context = False

    def __init__(self, zones: dict[str, dict[str, tuple[float, float, float, float]]] | None = None) -> None:
        self.zones = zones or {}

    def describe(self, observation: ObservationContext) -> str:
        boxes = np.asarray(observation.boxes, np.float32).reshape(-1, 4)
        colour = colour_name(observation.crops[0]) if observation.crops else ""
        pattern = pattern_name(observation.crops[0]) if observation.crops else "plain"
        if observation.category == "person":
            subject = f"person in {colour} {pattern} clothes" if colour else "person"
        else:
            subject = f"{pattern} {colour} {observation.category}".strip()
        middle = boxes[len(boxes) // 2]
        zone = _zone(middle, self.zones.get(observation.camera, {}))
        where = f"by the {zone}" if zone else _position(middle, observation.frame_size)
        text = f"a {subject} {where}, {_motion(boxes, observation.frame_size)}"
        others = Counter(o for o in observation.others)
        if others:
            text += "; with " + ", ".join(_plural(c, n) for c, n in sorted(others.items()))
        return text

    def caption(self, camera: str, observations: Sequence[ObservationContext]) -> str:
        if not observations:
            return f"{camera}: nothing detected"
        counts = Counter(o.category for o in observations)
        moving = sum(
            1 for o in observations if _motion(np.asarray(o.boxes).reshape(-1, 4), o.frame_size).startswith("moving")
        )
        seen = ", ".join(_plural(c, n) for c, n in counts.most_common())
        return f"{camera}: {seen}" + (f"; {moving} moving" if moving else "")


GROUNDING_PROMPT = (
    "You describe one physical thing seen by a home camera, for a long-term memory that must stay true. "
    "Establish the subject from its close-up crops (the first images): what it is, its colours, patterns, "
    "marks, and what it is doing. Use the whole-scene frame only for what the subject interacts with or "
    "where it is. Use the timestamped speech only where it clearly concerns this subject. The memory note "
    "says what was seen before and may be wrong: trust the images. Never invent names. Answer in one or "
    "two plain sentences."
)
CAPTION_PROMPT = (
    "You caption a 10-second clip from a home camera for a long-term memory. Say what happens, who and "
    "what is involved, in one or two plain sentences, grounded in the frame and the list of detections."
)

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
        max_tokens: int = 96,
        n_gpu_layers: int = 0,
        crops: int = 2,
        llm: Any = None,
    ) -> None:
        self.wants_context = True
        self.max_tokens = max_tokens
        self.crops = crops
        self.name = f"llama.cpp VLM ({Path(model).name}, {handler})"
        self.template = TemplateDescriber()
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
        self._llm = Llama(
            model_path=str(model),
            chat_handler=handler_class(clip_model_path=str(mmproj), verbose=False),
            n_ctx=n_ctx,
            n_gpu_layers=n_gpu_layers,
            verbose=False,
        )

    def _ask(self, system: str, images: Sequence[np.ndarray], text: str) -> str:
        content: list[dict[str, Any]] = [{"type": "image_url", "image_url": {"url": _data_uri(i)}} for i in images]
        content.append({"type": "text", "text": text})
        try:
            reply = self._llm.create_chat_completion(
                messages=[{"role": "system", "content": system}, {"role": "user", "content": content}],
                max_tokens=self.max_tokens,
                temperature=0.1,
            )
        except ValueError as exc:  # llama.cpp loads the projector on first use
            raise ValueError(f"{self.name}: {exc} (is the mmproj the one made for this model?)") from exc
        return _clean(reply["choices"][0]["message"]["content"])

    def describe(self, observation: ObservationContext) -> str:
        boxes = np.asarray(observation.boxes, np.float32).reshape(-1, 4)
        facts = [
            f"Detector category: {observation.category}.",
            f"Where and how it moves (from its boxes): {_position(boxes[len(boxes) // 2], observation.frame_size)}, "
            f"{_motion(boxes, observation.frame_size)}.",
            f"Also in view: {', '.join(sorted(set(observation.others))) or 'nothing else detected'}.",
            f"Memory note: {observation.memory or 'not seen before, as far as memory knows'}.",
        ]
        if observation.speech:
            facts.append("Speech: " + " ".join(f"[{t:.0f}s] {s}" for t, s in observation.speech))
        images = list(observation.crops[: self.crops]) + ([observation.scene] if observation.scene is not None else [])
        return self._ask(GROUNDING_PROMPT, images, "\n".join(facts) + "\nDescribe the subject of the close-ups.")

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
