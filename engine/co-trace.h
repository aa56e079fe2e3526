/* cudaoverlap trace: a Chrome trace-event JSON writer.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Plain C (libc + pthread): it knows neither GStreamer nor CUDA.
 *
 * The file is the JSON Object Format of the Trace Event Format, which both
 * Perfetto (ui.perfetto.dev) and chrome://tracing open:
 *
 *   {"traceEvents":[
 *   {"ph":"X","pid":1,"tid":2,"ts":12.345,"dur":0.500,"name":"..",...},
 *   ...
 *   ],
 *   "displayTimeUnit":"ns"}
 *
 * Times are given in nanoseconds and written in microseconds with three
 * decimals, so they round-trip exactly to the nanosecond.
 *
 * Events are formatted into a fixed-size buffer that is written out when it
 * fills, so memory stays bounded over a long run.  The file always ends with
 * the closing terminator after the last written event; the next write seeks
 * back over it.  After co_trace_sync() (and after co_trace_close()) the file
 * on disk is complete, valid JSON, and events may still be added after a
 * sync.
 *
 * All functions are thread-safe (one mutex per CoTrace).  After a write
 * error the trace stops writing; co_trace_sync() and co_trace_close() then
 * return -1.
 */
#ifndef __CO_TRACE_H__
#define __CO_TRACE_H__

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C"
{
#endif

  typedef struct _CoTrace CoTrace;

/* Creates (truncates) @path and writes an empty, valid trace to it.
 * Returns NULL on failure with a message in @error_msg (if not NULL,
 * @error_msg_len bytes, always NUL-terminated). */
  CoTrace *co_trace_open (const char *path, char *error_msg,
      size_t error_msg_len);

/* Writes out everything, leaves valid JSON, closes the file and frees @t.
 * Returns 0, or -1 if any write failed.  NULL is allowed (returns 0). */
  int co_trace_close (CoTrace * t);

/* Writes out all buffered events and flushes the file so that the file on
 * disk is valid JSON now.  Returns 0, or -1 if any write failed. */
  int co_trace_sync (CoTrace * t);

/* Metadata: names a process (track group) or a thread (track).  Tracks are
 * sorted in the order of these calls ("process_sort_index" and
 * "thread_sort_index" metadata events). */
  void co_trace_name_process (CoTrace * t, int pid, const char *name);
  void co_trace_name_thread (CoTrace * t, int pid, int tid, const char *name);

/* A complete event ("ph":"X") from @ts_ns lasting @dur_ns.  @cat may be
 * NULL.  @args_json is NULL or a preformatted JSON object, written as is,
 * e.g. "{\"frame\":12,\"chunk\":3,\"bytes\":8294400}".  Note that viewers
 * expect complete events on one (pid, tid) track to nest properly. */
  void co_trace_complete (CoTrace * t, int pid, int tid, const char *name,
      const char *cat, uint64_t ts_ns, uint64_t dur_ns, const char *args_json);

/* A thread-scoped instant event ("ph":"i","s":"t") at @ts_ns. */
  void co_trace_instant (CoTrace * t, int pid, int tid, const char *name,
      const char *cat, uint64_t ts_ns, const char *args_json);

/* Number of events added so far (metadata events included). */
  uint64_t co_trace_n_events (CoTrace * t);

#ifdef __cplusplus
}
#endif

#endif                          /* __CO_TRACE_H__ */
