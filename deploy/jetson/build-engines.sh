#!/usr/bin/env bash
# Turn the ONNX models in the models folder into TensorRT FP16 engines, on the Jetson that will run them
# (an engine only loads on the GPU model and TensorRT version that built it: rebuild after a JetPack update).
#   bash deploy/jetson/build-engines.sh            # on the host, with the venv of deploy/README.md
#   docker run --runtime nvidia -v /var/lib/edge-agent:/var/lib/edge-agent --entrypoint bash \
#       edge-agent:jetson /opt/edge-agent/src/deploy/jetson/build-engines.sh
set -euo pipefail
EDGE_AGENT="${EDGE_AGENT:-/opt/edge-agent/venv/bin/edge-agent}"
export EDGE_AGENT_MODELS="${EDGE_AGENT_MODELS:-/var/lib/edge-agent/models}"

# Only files that match the manifest are converted (models verify exits 1 otherwise).
"$EDGE_AGENT" models verify yolox_nano osnet_x0_25_msmt17
"$EDGE_AGENT" models build-engine yolox_nano --fp16 --workspace 1024
"$EDGE_AGENT" models build-engine osnet_x0_25_msmt17 --fp16 --workspace 512
"$EDGE_AGENT" models list --profile jetson
