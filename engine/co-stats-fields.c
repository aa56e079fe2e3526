/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cudaoverlap: the fields of the statistics and passport messages.
 *
 * One table lists every field the element posts: its name on the bus, its
 * type, unit and definition, and the struct member that holds its value.
 * The element builds its messages by walking the table, and the reference
 * in docs/stats.md and the installed header are generated from it, so the
 * three cannot disagree (co-stats-fields.h).  Pure C11 and libc.
 */

#include "co-stats-fields.h"

/* A field's type, source and offset, from the member that holds its value:
 * the type cannot disagree with the member (no match: a compile error). */
#define MEMBER(T, src, m)                                               \
  _Generic (((T *) 0)->m,                                               \
      uint64_t: CO_FIELD_UINT64,                                        \
      double: CO_FIELD_DOUBLE,                                          \
      unsigned int: CO_FIELD_UINT,                                      \
      int: CO_FIELD_INT,                                                \
      const char *: CO_FIELD_STRING,                                    \
      bool: CO_FIELD_BOOLEAN), src, offsetof (T, m)
#define SUMMARY(m)  MEMBER (CoStatsSummary, CO_FIELD_IN_SUMMARY, m)
/* A GstClockTime: a uint64_t member (another type: a compile error). */
#define TIME(m)                                                         \
  _Generic (((CoStatsTimes *) 0)->m, uint64_t: CO_FIELD_CLOCK_TIME),    \
      CO_FIELD_IN_TIMES, offsetof (CoStatsTimes, m)
#define SETTINGS(m) MEMBER (CoStatsSettings, CO_FIELD_IN_SETTINGS, m)
#define PASSPORT(m) MEMBER (CoPassport, CO_FIELD_IN_PASSPORT, m)

static const CoField stats_fields[] = {
  {"timestamp", TIME (timestamp), 0, "ns",
      "earliest PTS of the window's frames (the run's, in the whole-run "
        "message): the first frame's in a forward stream; "
        "`GST_CLOCK_TIME_NONE` when no frame has one. The four time fields "
        "cover the frames of the last segment the window reached"},
  {"duration", TIME (duration), 0, "ns",
      "latest end of those frames (PTS + duration; a frame without a "
        "duration ends at its PTS) − `timestamp`; `GST_CLOCK_TIME_NONE` "
        "when `timestamp` is"},
  {"stream-time", TIME (stream_time), 0, "ns",
      "`timestamp` as stream time in those frames' segment "
        "(`gst_segment_to_stream_time`); `GST_CLOCK_TIME_NONE` when "
        "`timestamp` is, or the segment is not in time or does not hold it"},
  {"running-time", TIME (running_time), 0, "ns",
      "`timestamp` as running time in that segment "
        "(`gst_segment_to_running_time`); `GST_CLOCK_TIME_NONE` as for "
        "`stream-time`"},
  {"frames", SUMMARY (frames), 0, "frames",
      "frames pushed in the window"},
  {"bytes-h2d", SUMMARY (bytes_h2d), 0, "bytes",
      "bytes copied host to device (halo rows included)"},
  {"bytes-d2h", SUMMARY (bytes_d2h), 0, "bytes",
      "bytes copied device to host (halo rows included)"},
  {"window-ns", SUMMARY (window_ns), 0, "ns",
      "earliest start to latest end of the window's operations"},
  {"fps", SUMMARY (fps), 0, "1/s",
      "`frames` / `window-ns`; 0 when `window-ns` is 0"},
  {"h2d-ns", SUMMARY (h2d_ns), 0, "ns",
      "H2D busy time: measure of the union of the H2D intervals"},
  {"kernel-ns", SUMMARY (kernel_ns), 0, "ns",
      "kernel busy time: measure of the union of the kernel intervals"},
  {"d2h-ns", SUMMARY (d2h_ns), 0, "ns",
      "D2H busy time: measure of the union of the D2H intervals"},
  {"gpu-busy-ns", SUMMARY (gpu_busy_ns), 0, "ns",
      "measure of the union of all intervals"},
  {"gpu-idle-ns", SUMMARY (gpu_idle_ns), 0, "ns",
      "`window-ns` − `gpu-busy-ns`"},
  {"serial-ns", SUMMARY (serial_ns), 0, "ns",
      "`h2d-ns` + `kernel-ns` + `d2h-ns`: the device time if the kinds "
        "never overlapped"},
  {"overlap-efficiency", SUMMARY (overlap_efficiency), 0, "ratio",
      "(`serial-ns` − `gpu-busy-ns`) / (`serial-ns` − max(`h2d-ns`, "
        "`kernel-ns`, `d2h-ns`)); 0 when the denominator is 0. 0: nothing "
        "overlapped; 1: everything hidden behind the longest kind"},
  {"copy-compute-overlap-ns", SUMMARY (copy_compute_overlap_ns), 0, "ns",
      "\\|(H2D ∪ D2H) ∩ kernels\\|"},
  {"h2d-d2h-overlap-ns", SUMMARY (h2d_d2h_overlap_ns), 0,
      "ns", "\\|H2D ∩ D2H\\|"},
  {"latency-min", SUMMARY (latency_min), 0, "ns",
      "least host latency of a frame: from entering `chain` (a wait there "
        "for a free slot included) to just before its output is pushed"},
  {"latency-mean", SUMMARY (latency_mean), 0, "ns",
      "mean host latency (see `latency-min`), rounded to the ns"},
  {"latency-p50", SUMMARY (latency_p50), 0, "ns",
      "median host latency"},
  {"latency-p95", SUMMARY (latency_p95), 0, "ns",
      "95th percentile of the host latency"},
  {"latency-p99", SUMMARY (latency_p99), 0, "ns",
      "99th percentile of the host latency"},
  {"latency-max", SUMMARY (latency_max), 0, "ns",
      "greatest host latency"},
  {"gpu-latency-p50", SUMMARY (gpu_latency_p50), 0, "ns",
      "median device latency of a frame (of a batch): from the start of "
        "its first H2D to the end of its last D2H"},
  {"gpu-latency-p99", SUMMARY (gpu_latency_p99), 0, "ns",
      "99th percentile of the device latency"},
  {"frames-pinned", SUMMARY (frames_pinned), 0, "frames",
      "frames whose copies read our page-locked memory (on the CPU "
        "backend: our memory)"},
  {"frames-registered", SUMMARY (frames_registered), 0,
      "frames", "frames whose copies read foreign memory page-locked with "
        "`cudaHostRegister`"},
  {"frames-pageable", SUMMARY (frames_pageable), 0,
      "frames", "frames whose copies read pageable memory directly (the "
        "CPU backend's foreign memory; the CUDA backend stages pageable "
        "frames instead)"},
  {"frames-staged", SUMMARY (frames_staged), 0,
      "frames", "frames first copied into our page-locked memory, because "
        "their memory was pageable and seen once (a new GstMemory per "
        "frame), or could not be page-locked safely (registration "
        "refused, a range partly page-locked by another user, or a frame "
        "in several memories)"},
  {"frames-passthrough", SUMMARY (frames_passthrough), 0,
      "frames", "frames pushed through untouched (identity settings: no "
        "copy, no kernel; see `passthrough`)"},
  {"frames-device", SUMMARY (frames_device), 0,
      "frames", "frames whose input was device memory (`memory:CUDAMemory`): "
        "no host-to-device copy, the kernel reads it in place"},
  {"streams", SETTINGS (streams), 0, "",
      "CUDA streams in effect (1 in serial mode)"},
  {"chunks", SETTINGS (chunks), 0, "",
      "chunks per frame in effect (1 in serial mode)"},
  {"mode", SETTINGS (mode), 0, "",
      "`mode` nick: `overlap` or `serial`"},
  {"backend", SETTINGS (backend), 0, "",
      "backend in use: `cuda` or `cpu`"},
  {"operation", SETTINGS (operation), 0, "",
      "the element's `operation` nick"},
  {"passthrough", SETTINGS (passthrough), 0, "",
      "TRUE while the settings are identity (e.g. `gamma=1`, `gain-db=0`) "
        "and buffers go through untouched"},
  {"first-frame-ns", SETTINGS (first_frame_ns), 0, "ns",
      "wall time from the run's first buffer reaching the element (after "
        "READY→PAUSED; the engine is built meanwhile) to the push of the "
        "first output buffer; 0 until one is pushed"},
  {"settled-ns", SETTINGS (settled_ns), 0, "ns",
      "wall time from the run's first buffer reaching the element to the "
        "push of the first frame processed with settled settings: after the "
        "automatic settings' measured decision (and its rebuild), at once "
        "when every setting is explicit; 0 until then"},
  {"whole-run", SETTINGS (whole_run),
        CO_FIELD_ONLY_IF_TRUE, "",
      "TRUE in the whole-run message at EOS; absent from the others"},
};

static const CoField passport_fields[] = {
  {"device-name", PASSPORT (device_name), 0, "",
      "the device's name; \"cpu\" on the CPU backend"},
  {"compute-capability", PASSPORT (compute_capability), 0,
      "", "major.minor, e.g. \"9.0\"; \"0.0\" on the CPU backend"},
  {"pci-bus-id", PASSPORT (pci_bus_id), 0, "",
      "the device's PCI address, e.g. \"0000:00:06.0\"; empty on the "
        "CPU backend"},
  {"driver-version", PASSPORT (driver_version), 0, "",
      "as `cudaDriverGetVersion` gives it (13000: 13.0); 0 on the CPU "
        "backend"},
  {"runtime-version", PASSPORT (runtime_version), 0, "",
      "as `cudaRuntimeGetVersion` gives it; 0 on the CPU backend"},
  {"async-engine-count", PASSPORT (async_engine_count), 0, "",
      "copy engines (`asyncEngineCount`); 0 on the CPU backend"},
  {"concurrent-kernels", PASSPORT (concurrent_kernels), 0, "",
      "1 when kernels of several streams can run at once; 0 on the CPU "
        "backend"},
  {"streams", PASSPORT (streams), 0, "",
      "CUDA streams in effect (1 in serial mode)"},
  {"chunks", PASSPORT (chunks), 0, "",
      "chunks per frame in effect (1 in serial mode)"},
  {"max-in-flight", PASSPORT (max_in_flight), 0, "frames",
      "bound on the frames in flight in effect"},
  {"batch", PASSPORT (batch), 0, "buffers",
      "buffers per engine frame"},
  {"mode", PASSPORT (mode), 0, "",
      "`mode` nick: `overlap` or `serial`"},
  {"wait-mode", PASSPORT (wait_mode), 0, "",
      "`wait-mode` in effect: `blocking` or `spin` (`auto` resolved); "
        "always `blocking` on the CPU backend"},
  {"submit-thread", PASSPORT (submit_thread), 0, "",
      "the submit thread in effect: the `submit-thread` property, or "
        "chosen by the element (staged input from a non-live source, "
        "unless the property was set)"},
  {"auto", PASSPORT (auto_settings), 0, "",
      "TRUE when the element chose any of `streams`, `chunks`, `batch`, "
        "`wait-mode` (the properties at 0 or `auto`) and `submit-thread` "
        "(not set); the values in effect are the fields above"},
  {"auto-reason", PASSPORT (auto_reason), 0, "",
      "why the automatic settings are what they are (the rules of "
        "docs/PERFORMANCE.md, \"Automatic settings\"), with the measures "
        "of the first frames once taken; empty when nothing was chosen. "
        "The message has the reason of its build; the `passport` property "
        "the latest (also a measured choice that kept the settings)"},
  {"device-engines", PASSPORT (device_engines), 0, "engines",
      "engines of the process on this one's device when it was built, "
        "itself included (the CPU backend counts as one device): the "
        "automatic `streams` share the device's 8 hardware queues (the CPU "
        "backend: the cores) among them"},
  {"backend", PASSPORT (backend), 0, "",
      "backend in use: `cuda` or `cpu`"},
  {"backend-reason", PASSPORT (backend_reason), 0, "",
      "why that backend: `backend=cpu is set`, `backend=cuda is set`, "
        "`backend=auto: a CUDA device is usable`, or why `backend=auto` "
        "runs on the CPU (no NVIDIA driver, a driver too old, no such "
        "device, a GPU this build has no code for, a build without CUDA), "
        "as the element's warning says it"},
  {"operation", PASSPORT (operation), 0, "",
      "the element's `operation` nick"},
  {"memory-in", PASSPORT (memory_in), 0, "",
      "the input's memory: `system`, or `cuda` (`memory:CUDAMemory`: the "
        "kernel reads device memory, no host-to-device copy)"},
  {"memory-out", PASSPORT (memory_out), 0, "",
      "the output's memory: `system`, or `cuda` (`memory:CUDAMemory`: the "
        "kernel writes device memory, no device-to-host copy)"},
  {"caps", PASSPORT (caps), 0, "",
      "the negotiated caps"},
  {"frame-bytes", PASSPORT (frame_bytes), 0, "bytes",
      "size of one output buffer"},
  {"plugin-version", PASSPORT (plugin_version), 0, "",
      "the plugin's version"},
  {"kernel-compile-ms", PASSPORT (kernel_compile_ms), 0, "ms",
      "`operation=custom` with `kernel-source` or `kernel-source-file`: "
        "NVRTC's compile time when the engine was built; 0 when the code "
        "came from the cache, and for the other kernels and operations"},
  {"kernel-cache", PASSPORT (kernel_cache), 0, "",
      "where `kernel-source`'s code came from: `hit` (the disk cache; "
        "NVRTC not loaded), `stored` (compiled, then cached), `unwritable` "
        "(compiled; the cache could not be written), `compiled` (compiled, "
        "no cache); empty for the other kernels and operations"},
};

const CoFieldList co_stats_fields = {
  "cudaoverlap-stats", stats_fields,
  sizeof (stats_fields) / sizeof (stats_fields[0])
};

const CoFieldList co_passport_fields = {
  "cudaoverlap-passport", passport_fields,
  sizeof (passport_fields) / sizeof (passport_fields[0])
};

const CoFieldList *const co_field_lists[] = {
  &co_stats_fields, &co_passport_fields, NULL
};

const char *
co_field_type_name (CoFieldType type)
{
  switch (type) {
    case CO_FIELD_UINT64:
      return "guint64";
    case CO_FIELD_DOUBLE:
      return "gdouble";
    case CO_FIELD_UINT:
      return "guint";
    case CO_FIELD_INT:
      return "gint";
    case CO_FIELD_STRING:
      return "string";
    case CO_FIELD_BOOLEAN:
      return "gboolean";
    case CO_FIELD_CLOCK_TIME:
      return "GstClockTime";
  }
  return "?";
}

const void *
co_field_value (const CoField * field,
    const void *const sources[CO_FIELD_N_SOURCES])
{
  const char *base = sources[field->source];

  return base ? base + field->offset : NULL;
}

bool
co_field_list_write_markdown (const CoFieldList * list, FILE * out)
{
  size_t i;

  fprintf (out, "| field | type | unit | definition |\n");
  fprintf (out, "| --- | --- | --- | --- |\n");
  for (i = 0; i < list->n_fields; i++) {
    const CoField *f = &list->fields[i];

    fprintf (out, "| `%s` | %s | %s | %s |\n", f->name,
        co_field_type_name (f->type), f->unit, f->definition);
  }
  return !ferror (out);
}
