#!/usr/bin/env bash
# The main job on a fresh machine: install edge-agent into .venv, ingest, and show what memory holds.
#
#   scripts/run.sh                      the generated demo scene: a kitchen counter on two days with two
#                                       look-alike red mugs (one striped, one plain) and a person; boxes
#                                       replayed from its ground truth, everything after detection real.
#                                       Expect the striped mug as one entity across both days, the plain
#                                       one as another; a rule set between the two days raises an
#                                       alert when the person comes back; then a question answered from
#                                       that memory, with citations. Memory in .demo/home.
#   scripts/run.sh SOURCE [OPTIONS]     a video file, image or MOT folder, camera index or stream URL,
#                                       with `edge-agent ingest` options (--camera, --start, --detector,
#                                       --models ...); memory in $EDGE_AGENT_HOME or the per-user folder.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/venv.sh ""
if [ $# -gt 0 ]; then
  edge-agent ingest "$@"
  exec edge-agent entities list
fi
rm -rf .demo
edge-agent demo .demo/scene
edge-agent --home .demo/home ingest .demo/scene/day1 --detector gt --start 2026-03-02T08:00:00+00:00 --quiet
echo '$ edge-agent rules add "notify me when a person appears" --yes'
edge-agent --home .demo/home rules add "notify me when a person appears" --yes
edge-agent --home .demo/home ingest .demo/scene/day2 --detector gt --start 2026-03-03T08:00:00+00:00 --quiet
edge-agent --home .demo/home alerts list
edge-agent --home .demo/home entities list
edge-agent --home .demo/home entities show 1
echo
echo '$ edge-agent ask "Where was the red cup last seen?"'
exec edge-agent --home .demo/home ask "Where was the red cup last seen?"
