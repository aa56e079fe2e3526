#!/bin/bash
cd "$(dirname "$0")/.."
source .gpu/gst/env.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
git log --oneline -1 2>/dev/null || true
CO_NEXT_BUDGET=560 CO_NEXT_STEPS="suites" tools/gpu-next.sh build-gpu 2>&1 | tail -40
