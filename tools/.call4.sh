#!/bin/bash
cd "$(dirname "$0")/.."
source .gpu/gst/env.sh
cp build-gpu/rel/libgstcudaoverlap.so build-gpu/elements/
CO_I17_STEPS="pipelines-1080p pipelines-1080p-s4 processes-1080p" CO_I17_BUDGET=560 tools/gpu-issue17.sh build-gpu 2>&1 | tail -60
