#!/bin/sh
# memory:CUDAMemory next to NVIDIA's elements (gst-plugins-bad's nvcodec):
# the element takes and gives GPU memory and shares their CUDA context.
#   pipelines/cuda-memory.sh [BUILD] [MODE] [IN.mp4 OUT.mp4]
# BUILD: the meson build folder, absolute or relative to the current folder
#   (default: build/ at the top of the source tree).
# MODE (default filter):
#   upload         system memory in, CUDA memory out: operation=none is an
#                  overlapped chunked upload (instead of cudaupload)
#   download       CUDA memory in, system memory out (instead of
#                  cudadownload)
#   filter         cudaupload ! CUDA memory ! cudavideofilter ! CUDA memory
#                  ! cudadownload: the kernels read and write GPU memory,
#                  no copy
#   audio          audiotestsrc ! cudaaudiofilter (FIR) ! audio CUDA memory
#                  ! cudaaudiofilter (gain) ! system memory: the samples
#                  stay on the GPU between the two filters (no nvcodec
#                  needed)
#   decode-encode  nvh264dec ! cudavideofilter ! nvh264enc, all on the GPU,
#                  from IN.mp4 (default /tmp/cudaoverlap-in.mp4, made when
#                  missing) to OUT.mp4 (default /tmp/cudaoverlap-out.mp4).
#                  Needs NVDEC and NVENC (T4, A10, L4, L40, RTX; the A100
#                  and the H100 family have no NVENC); no automated test
#                  covers it.
# Needs a GPU with the NVIDIA driver and gst-plugins-bad's nvcodec.
. "$(dirname "$0")/common.sh"
co_build "$@"
mode=${2:-filter}
case $mode in
  upload|download|filter|audio|decode-encode) ;;
  *) echo "$co_name: unknown mode $mode" >&2; co_usage >&2; exit 2 ;;
esac
if [ "$mode" != audio ] && ! gst-inspect-1.0 cudaupload > /dev/null 2>&1; then
  echo "$co_name: no cudaupload: gst-plugins-bad's nvcodec is missing, or" \
    "registers nothing (it does only where a GPU and its driver are)" >&2
  exit 1
fi
cuda='video/x-raw(memory:CUDAMemory)'
raw="video/x-raw,format=NV12,width=3840,height=2160,framerate=60/1"
case $mode in
  upload)
    gst-launch-1.0 videotestsrc num-buffers=300 ! "$raw" \
      ! cudavideofilter operation=none streams=4 chunks=4 ! "$cuda" \
      ! cudadownload ! fakesink ;;
  download)
    gst-launch-1.0 videotestsrc num-buffers=300 ! "$raw" ! cudaupload ! "$cuda" \
      ! cudavideofilter operation=none streams=4 chunks=4 ! video/x-raw ! fakesink ;;
  filter)
    gst-launch-1.0 videotestsrc num-buffers=300 ! "$raw" ! cudaupload ! "$cuda" \
      ! cudavideofilter operation=box-blur radius=4 streams=4 chunks=4 ! "$cuda" \
      ! cudadownload ! fakesink ;;
  audio)
    gst-launch-1.0 audiotestsrc num-buffers=500 samplesperbuffer=4800 wave=white-noise \
      ! audio/x-raw,format=F32LE,channels=2,rate=48000 \
      ! cudaaudiofilter operation=fir taps="<0.1, 0.2, 0.4, 0.2, 0.1>" streams=4 chunks=4 \
      ! "audio/x-raw(memory:CUDAMemory)" \
      ! cudaaudiofilter operation=gain gain-db=-6 ! audio/x-raw ! fakesink ;;
  decode-encode)
    in=${3:-/tmp/cudaoverlap-in.mp4}; out=${4:-/tmp/cudaoverlap-out.mp4}
    [ -f "$in" ] || gst-launch-1.0 -q videotestsrc num-buffers=300 ! "$raw" \
      ! nvh264enc ! h264parse ! mp4mux ! filesink location="$in" || exit 1
    gst-launch-1.0 filesrc location="$in" ! qtdemux ! h264parse ! nvh264dec \
      ! cudavideofilter operation=box-blur radius=4 ! nvh264enc ! h264parse \
      ! mp4mux ! filesink location="$out" && echo "wrote $out" ;;
esac
