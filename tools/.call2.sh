#!/bin/bash
cd "$(dirname "$0")/.."
source .gpu/gst/env.sh
CO_NEXT_SEEDS_S=150 CO_NEXT_BUDGET=570 CO_NEXT_STEPS="seeds sanitizer check" tools/gpu-next.sh build-gpu 2>&1 | tail -40
