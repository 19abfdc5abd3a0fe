"""``edge-agent eval qa QUESTIONS.json``: answers that are right on real video. A question file names
recordings (each with a camera and the wall-clock time of its first frame) and multiple-choice questions
whose answers were checked by looking at the frames; the recordings go through the configured pipeline
into a fresh memory, each question is asked through the configured controller, and accuracy is reported
per intent and per what the answer depends on (perception: the detector or describer must see it;
memory: what memory holds after ingest has it, so a wrong answer is the read path's)."""

from __future__ import annotations

import json
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from edge_agent import __version__
from edge_agent.errors import InvalidInputError
from edge_agent.language.grammar import Intent

__all__ = [
    "DEPENDS",
    "INTENTS",
    "Question",
    "QuestionFileError",
    "QuestionSet",
    "Video",
    "default_video_folder",
    "shared_folder",
    "evaluate",
    "format_table",
    "load_questions",
    "resolve_videos",
]

#: The intent labels a report lists first, in this order (the grammar's intents, and the first / last split and
#: "open" of the first question set); a file may use any other label too, reported after these.
INTENTS = (
    *(label for i in Intent for label in ((i.value, "when_first", "when_last") if i is Intent.WHEN else (i.value,))),
    "open",
)
#: "memory": the fact is in what memory holds after ingest (a wrong answer is the read path's);
#: "perception": the detector or describer misses it (a wrong answer is expected until perception sees it).
DEPENDS = ("memory", "perception")
MIN_CHOICES, MAX_CHOICES = 2, 5

_TOP_KEYS = {"about", "name", "videos", "questions", "scene", "detector"}
#: Scenes a question file may be about that the project generates (``"scene"``): written where its videos are not
SCENES = ("demo",)
_VIDEO_KEYS = {"id", "path", "camera", "start", "note"}
_QUESTION_KEYS = {"id", "question", "choices", "answer", "intent", "form", "depends", "as_of", "video", "note"}


class QuestionFileError(InvalidInputError):
    """A question file that cannot be used; the one-line message names the file and the entry."""


@dataclass(frozen=True)
class Video:
    id: str
    path: str  #: absolute, or relative to the videos folder (``--videos``)
    camera: str
    start: float  #: Unix seconds of the first frame
    note: str = ""


@dataclass(frozen=True)
class Question:
    id: str
    question: str
    choices: tuple[str, ...]
    answer: int  #: index of the right choice
    intent: str  #: what it asks (a label: see INTENTS)
    depends: str
    as_of: float | None = None  #: ask as of this moment (None: everything in memory)
    form: str = ""  #: how it is asked (a label: canonical, order, time-window, ...)
    video: str | None = None  #: the video the question is about, for the report
    note: str = ""  #: what the frames show, for whoever checks the answer


@dataclass(frozen=True)
class QuestionSet:
    path: Path
    name: str
    about: str
    videos: tuple[Video, ...]
    questions: tuple[Question, ...]
    scene: str = ""  #: a generated scene (:data:`SCENES`) its videos are, written when they are not found
    detector: str = ""  #: the detector its answers were checked with, the default for it ("gt": the scene's boxes)


def _time(text: object, where: str, key: str) -> float:
    from edge_agent.clock import parse_iso

    if not isinstance(text, str):
        raise QuestionFileError(f"{where}: {key} must be an ISO 8601 time as text, got {text!r}")
    try:
        # Without a zone a time is UTC: a shared file must mean the same moment on every machine.
        return parse_iso(text, naive="utc")
    except ValueError:
        raise QuestionFileError(f"{where}: {key} {text!r} is not an ISO 8601 time") from None


def _text(entry: dict[str, Any], key: str, where: str, *, required: bool = True) -> str:
    value = entry.get(key)
    if value is None and not required:
        return ""
    if not isinstance(value, str) or not value.strip():
        raise QuestionFileError(f"{where}: {key} must be non-empty text, got {value!r}")
    return value


def _unknown(entry: dict[str, Any], allowed: set[str], where: str) -> None:
    extra = sorted(set(entry) - allowed)
    if extra:
        raise QuestionFileError(f"{where}: unknown key(s) {', '.join(extra)} (expected {', '.join(sorted(allowed))})")


def _entry(entry: object, where: str, allowed: set[str]) -> tuple[dict[str, Any], str]:
    """An object of the file checked for unknown keys, and where it is (with its id) for the errors about it."""
    if not isinstance(entry, dict):
        raise QuestionFileError(f"{where}: expected an object, got {type(entry).__name__}")
    if isinstance(entry.get("id"), str):
        where += f" ({entry['id']!r})"
    _unknown(entry, allowed, where)
    return entry, where


def _video(entry: object, index: int, name: str) -> Video:
    entry, where = _entry(entry, f"{name}: videos[{index}]", _VIDEO_KEYS)
    return Video(
        id=_text(entry, "id", where),
        path=_text(entry, "path", where),
        camera=_text(entry, "camera", where),
        start=_time(entry.get("start"), where, "start"),
        note=_text(entry, "note", where, required=False),
    )


def _question(entry: object, index: int, name: str, videos: set[str]) -> Question:
    entry, where = _entry(entry, f"{name}: questions[{index}]", _QUESTION_KEYS)
    choices = entry.get("choices")
    if (
        not isinstance(choices, list)
        or not MIN_CHOICES <= len(choices) <= MAX_CHOICES
        or not all(isinstance(c, str) and c.strip() for c in choices)
    ):
        raise QuestionFileError(
            f"{where}: choices must be a list of {MIN_CHOICES}-{MAX_CHOICES} texts, got {choices!r}"
        )
    if len({c.strip().lower() for c in choices}) != len(choices):
        raise QuestionFileError(f"{where}: choices repeat one another: {choices!r}")
    answer = entry.get("answer")
    if isinstance(answer, bool) or not isinstance(answer, int) or not 0 <= answer < len(choices):
        raise QuestionFileError(f"{where}: answer must be the index of a choice, 0..{len(choices) - 1}, got {answer!r}")
    intent = _text(entry, "intent", where)
    depends = entry.get("depends")
    if depends not in DEPENDS:
        raise QuestionFileError(f"{where}: depends {depends!r} is not one of {', '.join(DEPENDS)}")
    video = entry.get("video")
    if video is not None and video not in videos:
        raise QuestionFileError(f"{where}: video {video!r} is not the id of an entry in videos")
    return Question(
        id=_text(entry, "id", where),
        question=_text(entry, "question", where),
        choices=tuple(choices),
        answer=answer,
        intent=intent,
        depends=depends,
        as_of=None if entry.get("as_of") is None else _time(entry["as_of"], where, "as_of"),
        video=video,
        note=_text(entry, "note", where, required=False),
        form=_text(entry, "form", where, required=False),
    )


def load_questions(path: str | Path) -> QuestionSet:
    """Reads and checks a question file; :class:`QuestionFileError` names the bad entry in one line."""
    path = Path(path)
    name = path.name
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise QuestionFileError(f"question file not found: {path}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise QuestionFileError(f"{path}: cannot be read: {exc}") from None
    except json.JSONDecodeError as exc:
        raise QuestionFileError(f"{name}: not JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}") from None
    if not isinstance(raw, dict):
        raise QuestionFileError(f"{name}: expected an object with videos and questions, got {type(raw).__name__}")
    _unknown(raw, _TOP_KEYS, name)
    for key in ("videos", "questions"):
        if not isinstance(raw.get(key), list) or not raw[key]:
            raise QuestionFileError(f"{name}: {key} must be a non-empty list")
    videos = tuple(_video(v, i, name) for i, v in enumerate(raw["videos"]))
    ids = [v.id for v in videos]
    if len(set(ids)) != len(ids):
        raise QuestionFileError(f"{name}: videos: repeated id(s) {sorted({i for i in ids if ids.count(i) > 1})}")
    questions = tuple(_question(q, i, name, set(ids)) for i, q in enumerate(raw["questions"]))
    ids = [q.id for q in questions]
    if len(set(ids)) != len(ids):
        raise QuestionFileError(f"{name}: questions: repeated id(s) {sorted({i for i in ids if ids.count(i) > 1})}")
    scene = str(raw.get("scene") or "")
    if scene and scene not in SCENES:
        raise QuestionFileError(f"{name}: scene {scene!r} is not one of {', '.join(SCENES)}")
    return QuestionSet(
        path=path,
        name=str(raw.get("name") or path.stem),
        about=str(raw.get("about") or ""),
        videos=videos,
        questions=questions,
        scene=scene,
        detector=str(raw.get("detector") or ""),
    )


def shared_folder(*parts: str, beside: Path | None = None) -> Path | None:
    """A folder of ``shared`` (the project's models and data) beside a folder above this package, above the folder the
    command runs in, or above ``beside`` (a question file): a checkout's ``../shared``, found from its code, from
    its root, from the package installed in its ``.venv`` or from one of its question files. None where none is."""
    starts = [Path(__file__).resolve().parent, Path.cwd().resolve()]
    starts += [beside.expanduser().resolve().parent] if beside is not None else []
    for start in starts:
        for above in (start, *start.parents):
            folder = above.joinpath("shared", *parts)
            if folder.is_dir():
                return folder
    return None


def default_video_folder(beside: Path | None = None) -> Path | None:
    """``shared/data/video`` beside a checkout (:func:`shared_folder`), when it is there."""
    return shared_folder("data", "video", beside=beside)


def resolve_videos(questions: QuestionSet, folder: Path | None) -> dict[str, Path]:
    """Each video's file: an absolute path as it is, a relative one under ``folder`` (default: the shared
    video folder beside the repository, else the question file's folder). A generated scene's videos not found
    there, with no folder given, are written to a temporary folder (removed when the process ends)."""
    base = folder if folder is not None else (default_video_folder(questions.path) or questions.path.parent)
    if folder is None and questions.scene and not all((base / v.path).exists() for v in questions.videos):
        base = _written_scene(questions.scene)
    found: dict[str, Path] = {}
    for video in questions.videos:
        path = Path(video.path).expanduser()
        path = path if path.is_absolute() else base / path
        if not path.exists():
            raise QuestionFileError(
                f"{questions.path.name}: video {video.id!r}: {path} is not there (give the folder with --videos DIR)"
            )
        found[video.id] = path
    return found


def _written_scene(scene: str) -> Path:
    """The generated scene written to a temporary folder, removed when the process ends."""
    import atexit
    import shutil
    import tempfile

    from edge_agent.demo import write_demo_scene

    folder = Path(tempfile.mkdtemp(prefix=f"edge-agent-{scene}-"))
    atexit.register(shutil.rmtree, folder, True)
    write_demo_scene(folder)
    return folder


def _ingest(
    runtime: Any, questions: QuestionSet, files: dict[str, Path], progress: Callable[[str], None]
) -> tuple[list[dict[str, Any]], int]:
    """The videos through the configured pipeline into ``runtime``'s memory; returns per-video reports."""
    from edge_agent.capture import open_source

    config = runtime.config
    reports = []
    backends = None
    with runtime.store() as store:
        store.summarize = runtime.summarizer()
        for video in questions.videos:
            source = open_source(
                str(files[video.id]),
                sample_fps=config.capture.sample_fps,
                start=video.start,
                image_fps=config.capture.image_fps,
            )
            # the models loaded once for every video, as a hub serves every camera; ground truth replays each its own
            if backends is None or config.detector.type == "gt":
                backends = runtime.backends(source)
            report = runtime.pipeline(store, backends).run(source, video.camera)
            store.close_episodes(video.camera)  # a recording ends here: its last windows are summarised
            reports.append(
                {
                    "id": video.id,
                    "camera": video.camera,
                    "frames": report.frames,
                    "observations": report.observations,
                    "new_entities": report.new_entities,
                    "video_s": report.video_seconds,
                    "wall_s": report.wall_seconds,
                }
            )
            seen = f"{report.observations} observation{'' if report.observations == 1 else 's'}"
            progress(f"{video.id}: {report.frames} frames, {seen} as camera {video.camera}")
        entities = len(store.entities())
    return reports, entities


def _built(runtime: Any, questions: QuestionSet, memory: Path) -> int:
    """How many entities a memory built before holds, once it is checked to hold a recording of every camera of the
    set's videos."""
    if not (memory / "memory.db").is_file():
        raise InvalidInputError(f"--memory {memory}: no memory there (build one with --keep DIR from the same videos)")
    with runtime.store() as store:
        cameras = set(store.cameras())
        missing = sorted({v.camera for v in questions.videos} - cameras)
        if missing:
            raise InvalidInputError(
                f"--memory {memory}: it holds no recording of camera {', '.join(missing)} (build it with --keep DIR "
                "from the set's videos)"
            )
        return len(store.entities())


def _share(items: Sequence[tuple[str, bool]], order: Sequence[str] = ()) -> dict[str, dict[str, float]]:
    """Questions, correct answers and accuracy per key, in ``order`` and then by name (keys with no question left
    out)."""
    table: dict[str, dict[str, float]] = {}
    rank = {k: i for i, k in enumerate(order)}
    for key, right in sorted(items, key=lambda item: (rank.get(item[0], len(rank)), item[0])):
        row = table.setdefault(key, {"questions": 0, "correct": 0, "accuracy": 0.0})
        row["questions"] += 1
        row["correct"] += int(right)
    for row in table.values():
        row["accuracy"] = row["correct"] / row["questions"]
    return table


def evaluate(
    questions: QuestionSet,
    files: dict[str, Path],
    runtime: Any,
    *,
    controller: str = "deterministic",
    llm: Any = None,
    keep: Path | None = None,
    memory: Path | None = None,
    progress: Callable[[str], None] = lambda _: None,
) -> dict[str, Any]:
    """Ingests the videos into a fresh memory (``keep``: this folder, left for inspection; else a temporary
    one) with ``runtime``'s configuration and models, asks every question, and scores the choices. ``memory``: a
    memory already built from the set's videos (by ``keep``), asked without ingesting again."""
    from edge_agent.runtime import Runtime

    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="edge-agent-qa-") as tmp:
        home = keep if keep is not None else memory if memory is not None else Path(tmp)
        if keep is not None and keep.exists() and any(keep.iterdir()):
            raise InvalidInputError(f"--keep {keep}: the folder is not empty (the memory must start fresh)")
        local = Runtime(runtime.config, home, runtime.models)
        reports: list[dict[str, Any]]
        if memory is not None:
            reports, entities = [], _built(local, questions, memory)
        else:
            reports, entities = _ingest(local, questions, files, progress)
        ingest_s = time.perf_counter() - started
        asked = time.perf_counter()
        results = []
        with local.store() as store:
            ask = local.controller(store, local.text_embedder(), llm=llm).ask
            for q in questions.questions:
                answer = ask(q.question, as_of=q.as_of, choices=list(q.choices), context=False)  # the choice scored
                results.append((q, answer))
        ask_s = time.perf_counter() - asked
    right = [(q, a, a.choice_index == q.answer) for q, a in results]
    correct = sum(ok for _, _, ok in right)
    return {
        "evaluation": "qa",
        "name": questions.name,
        "file": str(questions.path),
        "version": __version__,
        "controller": controller,
        "detector": runtime.config.detector.type,
        "models": str(runtime.models),
        "questions": len(right),
        "correct": correct,
        "accuracy": correct / len(right) if right else 0.0,
        "by_intent": _share([(q.intent, ok) for q, _, ok in right], INTENTS),
        "by_depends": _share([(q.depends, ok) for q, _, ok in right], DEPENDS),
        "by_form": _share([(q.form, ok) for q, _, ok in right if q.form]),
        # what always choosing the first choice would score, and choosing at random: the floor a reader must beat
        "first_choice": sum(q.answer == 0 for q, _, _ in right) / len(right) if right else 0.0,
        "chance": sum(1 / len(q.choices) for q, _, _ in right) / len(right) if right else 0.0,
        "wrong": [
            {
                "id": q.id,
                "intent": q.intent,
                "form": q.form,
                "depends": q.depends,
                "question": q.question,
                "expected": q.choices[q.answer],
                "got": None if a.choice_index is None else q.choices[a.choice_index],
                "answer": a.text,
                "tool": a.tool,
            }
            for q, a, ok in right
            if not ok
        ],
        "videos": reports,
        "entities_in_memory": entities,
        "ingest_s": ingest_s,
        "ask_s": ask_s,
        "duration_s": time.perf_counter() - started,
    }


def _clip(text: str, width: int = 100) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 3] + "..."


def format_table(result: dict[str, Any]) -> str:
    def row(name: str, r: dict[str, float]) -> str:
        return f"  {name:<14} {r['accuracy']:6.3f}  {int(r['correct']):>3}/{int(r['questions'])}"

    lines = [
        f"{result['name']}: accuracy {result['accuracy']:.3f} ({result['correct']}/{result['questions']}), "
        f"{result['controller']} controller, detector {result['detector']}, "
        f"ingest {result['ingest_s']:.1f} s, questions {result['ask_s']:.1f} s",
        "by intent:",
        *(row(k, v) for k, v in result["by_intent"].items()),
        "by depends:",
        *(row(k, v) for k, v in result["by_depends"].items()),
        *(["by form:", *(row(k, v) for k, v in result["by_form"].items())] if result.get("by_form") else []),
        f"baselines: always the first choice {result['first_choice']:.3f}, a random choice {result['chance']:.3f}",
        f"wrong answers ({len(result['wrong'])}):",
    ]
    for w in result["wrong"]:
        form = f"/{w['form']}" if w.get("form") else ""
        lines.append(f"  [{w['id']}] {w['intent']}{form}/{w['depends']}: {w['question']}")
        lines.append(f"      expected {w['expected']!r}, got {w['got']!r}: {_clip(w['answer'])}")
    return "\n".join(lines)
