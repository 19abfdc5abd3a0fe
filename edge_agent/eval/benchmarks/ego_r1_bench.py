"""Ego-R1-Bench: multiple-choice questions on EgoLife's videos, in EgoLifeQA's item shape with variants
that :func:`edge_agent.eval.benchmarks.egolifeqa.load_file` reads too.

Ego-R1-Bench (github.com/egolife-ai/Ego-R1, ``cott_gen/postprocess.py`` and
``cott_gen/utils.py``): one file per wearer (``A1_JAKE.json`` ...) with the EgoLifeQA item shape;
``query_time`` is sometimes a one-element list, ``last_time`` sometimes "N/A", choices sometimes
numbers; ``target_time`` comes as ``{date, time}``, ``time`` "HHMMSSFF-HHMMSSFF", several times with
``DAYn`` tokens, or ``{date, time_list: [...]}`` (variants also handled by third-party loaders of
both files). The released ``test.parquet`` (prompt-wrapped question, ``golden_answer``) is not read:
the JSON files are.
"""

from __future__ import annotations

from edge_agent.eval.benchmarks.egolifeqa import load_file

__all__ = ["NAME", "load_file"]

NAME = "ego-r1-bench"
