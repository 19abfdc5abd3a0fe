#!/usr/bin/env bash
# Lint and type checks, as CI runs them before the tests: ruff (pycodestyle, pyflakes, bugbear, import order;
# lines <= 120), ruff's formatter, and mypy, strict on the whole package. Configured in pyproject.toml. Uses .venv (scripts/test.sh or scripts/venv.sh makes it).
set -euo pipefail
cd "$(dirname "$0")/.."
.venv/bin/ruff check edge_agent tests
.venv/bin/ruff format --check edge_agent tests
.venv/bin/mypy edge_agent
