#!/bin/bash
cd "$(dirname "$0")/.."
source .gpu/gst/env.sh
out=${OUT:-/tmp/out}; mkdir -p "$out"
t=build-gpu/tests/test-torture
for i in 1 2 3 4; do
  CO_TEST_BACKEND=cuda CK_FORK=no CO_TEST_SEED=0x78cf6aad CO_TORTURE_SCALE=2 GST_CHECKS=test_caps_renegotiation \
    GST_PLUGIN_PATH="$PWD/build-gpu/elements:${GST_PLUGIN_PATH:-}" timeout 80 $t > "$out/repro-$i.log" 2>&1
  echo "repro seed 0x78cf6aad run $i rc $? $(grep -c 'in, ' "$out/repro-$i.log") runs"
done
CO_NEXT_SEEDS_S=240 CO_NEXT_BUDGET=300 CO_NEXT_STEPS="seeds" tools/gpu-next.sh build-gpu 2>&1 | tail -8
cp -r "$out" /dev/null 2>/dev/null; true
