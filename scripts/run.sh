#!/usr/bin/env bash
# The main job on a fresh machine: install edge-agent (with the benchmark baselines) into .venv and run it.
# Until the ingest/ask pipeline exists the main job is the native-core benchmark. Arguments pass through,
# e.g. scripts/run.sh --json
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/venv.sh bench
exec edge-agent bench native "$@"
