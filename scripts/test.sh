#!/usr/bin/env bash
# The test suite on a fresh machine: install edge-agent with its test and speech extras into .venv and run pytest
# against the installed package (not the source tree). Arguments pass through to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/venv.sh test,speech,faces
exec .venv/bin/pytest "$@"
