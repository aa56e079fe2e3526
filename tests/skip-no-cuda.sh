#!/bin/sh
# Stands in for a test that needs CUDA (nvcc to build it, or the CUDA
# runtime it links) in a build configured without CUDA (-Dcuda=disabled):
# the test is reported skipped (exit 77) with the reason, never dropped
# silently.
#   skip-no-cuda.sh WHAT
echo "SKIP: $* needs CUDA, and this build of cudaoverlap has none (-Dcuda=disabled); a build with the CUDA toolkit runs it"
exit 77
