#!/usr/bin/env bash
# The test suite on a fresh machine: install (as root on Debian) the system packages the tests use, edge-agent with
# its test, speech and faces extras into .venv, and run pytest against the installed package (not the source
# tree). Arguments pass through to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/system-deps.sh test
. scripts/venv.sh test,speech,faces
exec .venv/bin/pytest "$@"
