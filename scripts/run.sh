#!/usr/bin/env bash
# The main job on a fresh machine: install edge-agent into .venv, ingest, and show what memory holds.
#
#   scripts/run.sh                      the generated demo scene: a kitchen counter on two days with two
#                                       look-alike red mugs (one striped, one plain) and a person; boxes
#                                       replayed from its ground truth, everything after detection real.
#                                       Expect the striped mug as one entity across both days, the plain
#                                       one as another; a rule set between the two days raises an
#                                       alert when the person comes back; then a question answered from
#                                       that memory, with citations. Memory in .demo/home. Then a real
#                                       street recording (vtest.avi; Debian's opencv-doc is installed for
#                                       it where apt exists) and questions about it (memory in .demo/street).
#   scripts/run.sh SOURCE [OPTIONS]     a video file, image or MOT folder, camera index or stream URL,
#                                       with `edge-agent ingest` options (--camera, --start, --detector,
#                                       --models ...); memory in $EDGE_AGENT_HOME or the per-user folder.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/venv.sh ""
# The models the default profile uses (YOLOX-nano detector, YuNet faces, OSNet person re-id): from ../shared/models
# when it is beside the checkout, else fetched into .models (sha256-checked, `edge-agent models fetch`) when
# this machine is online. $EDGE_AGENT_MODELS, when set, wins.
if [ -z "${EDGE_AGENT_MODELS:-}" ]; then
  if [ -f ../shared/models/yolox_nano.onnx ]; then
    EDGE_AGENT_MODELS="$(cd ../shared/models && pwd)"
  else
    EDGE_AGENT_MODELS="$PWD/.models"
    for model in yolox_nano yunet_2026may osnet_x0_25_msmt17; do
      edge-agent models fetch "$model" --to .models --timeout 20 >/dev/null 2>&1 \
        && echo "(fetched $model into .models)"
    done
  fi
  export EDGE_AGENT_MODELS
fi
if ! edge-agent models path yolox_nano >/dev/null 2>&1; then
  echo "(no YOLOX-nano model here and none could be fetched: falling back to OpenCV's people detector, which on" \
    "the street video finds 5 people instead of 17, and no cars or trucks)"
fi
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
edge-agent --home .demo/home ask "Where was the red cup last seen?"

# A real recording: OpenCV's street scene (vtest.avi, in Debian's opencv-doc; beside the checkout in
# ../shared when that is there), through the detector this machine has (YOLOX-nano when its file is in the
# models folder, else OpenCV's people detector), then questions about it answered from memory with evidence.
video=""
for candidate in ../shared/data/video/vtest.avi /usr/share/doc/opencv-doc/examples/data/vtest.avi; do
  [ -f "$candidate" ] && { video="$candidate"; break; }
done
if [ -z "$video" ] && [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "(installing Debian's opencv-doc for its street video, vtest.avi: about 95 MB)"
  { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends opencv-doc; } >/dev/null \
    || echo "(opencv-doc could not be installed)"
  [ -f /usr/share/doc/opencv-doc/examples/data/vtest.avi ] && video=/usr/share/doc/opencv-doc/examples/data/vtest.avi
fi
if [ -z "$video" ]; then
  echo "(no street video here: vtest.avi comes with Debian's opencv-doc; the real recording is skipped)"
  exit 0
fi
echo
echo "\$ edge-agent ingest $video --camera street"
edge-agent --home .demo/street ingest "$video" --camera street --start 2026-03-04T09:00:00+00:00 --quiet
for question in "How many people walked by?" "Was there a dog?" "When was the last person seen?" "Which camera saw a car?"; do
  echo
  echo "\$ edge-agent ask \"$question\""
  edge-agent --home .demo/street ask "$question"
done
