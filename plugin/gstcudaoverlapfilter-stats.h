/* cudaoverlap: statistics, passport and trace of GstCudaOverlapFilter.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The statistics arithmetic is engine/co-stats.c and the messages' fields
 * are listed once, in engine/co-stats-fields.c; this unit records the
 * frames, builds the `cudaoverlap-stats` and `cudaoverlap-passport`
 * structures, keeps the latest of each for the `stats` and `passport`
 * properties, posts them, and writes the trace file.
 */
#ifndef __GST_CUDA_OVERLAP_FILTER_STATS_H__
#define __GST_CUDA_OVERLAP_FILTER_STATS_H__

#include "gstcudaoverlapfilter.h"

G_BEGIN_DECLS
/* Track ids in the trace file. */
    enum
{
  TID_CHAIN = 1,
  TID_WAIT = 2,
  TID_PUSH = 3,
  TID_STREAM0 = 100,            /* + stream * 3 + kind */
};

/* Where a message's frames are in the stream ([P], like the counters):
 * their PTS span in the segment they were pushed in.  Frames of an earlier
 * segment are left out: a new segment starts the span anew, so that
 * `running-time` and `stream-time` come from the one segment the frames of
 * `timestamp` and `duration` share.  A segment event waits until every
 * frame before it is pushed, and a flush drops the frames in flight
 * uncounted, so the sink pad's segment when a frame is pushed is the
 * frame's own. */
typedef struct
{
  GstSegment segment;           /* the frames' segment (valid with @first) */
  GstClockTime first;           /* the earliest PTS; NONE: no frame yet */
  GstClockTime end;             /* the latest PTS + duration */
} GstCudaOverlapStatsSpan;

/* [P]: written by the push thread, and by the streaming thread only while
 * nothing is in flight (at EOS, in passthrough) or once streaming stopped;
 * [O]: the element's object lock (read by the property getters). */
typedef struct
{
  CoStats *counts;              /* [P] from the first build to READY */
  guint64 last_post_ns;         /* [P] when the last window was posted */
  GstCudaOverlapStatsSpan window;       /* [P] the frames of the window */
  GstCudaOverlapStatsSpan run;  /* [P] the frames of the whole run */
  GstStructure *last;           /* [O] the latest cudaoverlap-stats */
  GstStructure *passport;       /* [O] the current cudaoverlap-passport */
  CoTrace *trace;               /* [P] READY→PAUSED to PAUSED→READY, when
                                 * the `trace-file` property is set */
  gchar *backend_reason;        /* [S] why the engine runs on its backend
                                 * (the passport's backend-reason) */
  guint64 first_chain_ns;       /* [S] the run's first buffer in chain; 0:
                                 * none yet (read by the push thread once
                                 * that buffer's frame is done) */
  guint64 first_frame_ns;       /* [P] first_chain_ns to the first push */
  gint settled;                 /* atomic: the engine in place keeps its
                                 * settings (no automatic decision pending);
                                 * set by the streaming thread */
  guint64 settled_ns;           /* [P] first_chain_ns to the first push of
                                 * a settled engine's frame */
} GstCudaOverlapStats;

/* A build installed an engine: counting goes on (the first build makes the
 * counters), the window starts now. */
void gst_cuda_overlap_stats_begin (GstCudaOverlapStats * stats);
/* @t0: a buffer reached chain (the run's first one is kept). */
static inline void
gst_cuda_overlap_stats_buffer_in (GstCudaOverlapStats * stats, guint64 t0)
{
  if (G_UNLIKELY (!stats->first_chain_ns))
    stats->first_chain_ns = t0;
}

/* Streaming thread: the engine in place keeps its settings (@settled), or
 * an automatic decision on them is still to come. */
static inline void
gst_cuda_overlap_stats_set_settled (GstCudaOverlapStats * stats,
    gboolean settled)
{
  g_atomic_int_set (&stats->settled, settled);
}

/* An output buffer was pushed at @push_ns (the first one is timed, and the
 * first one from a settled engine); @through: passthrough (no engine). */
static inline void
gst_cuda_overlap_stats_pushed (GstCudaOverlapStats * stats, guint64 push_ns,
    gboolean through)
{
  if (G_UNLIKELY (!stats->first_frame_ns && stats->first_chain_ns))
    stats->first_frame_ns = MAX (push_ns - stats->first_chain_ns, 1);
  if (G_UNLIKELY (!stats->settled_ns && stats->first_chain_ns &&
          (through || g_atomic_int_get (&stats->settled))))
    stats->settled_ns = MAX (push_ns - stats->first_chain_ns, 1);
}

/* PAUSED→READY: counters and trace go. */
void gst_cuda_overlap_stats_stop (GstCudaOverlapStats * stats);
/* Finalize: the kept structures and the backend reason go. */
void gst_cuda_overlap_stats_clear (GstCudaOverlapStats * stats);
/* Push thread: @fr (of engine frame @cf) was pushed at @push_ns; @cpu: the
 * CPU backend (no copies). */
void gst_cuda_overlap_stats_record_frame (GstCudaOverlapStats * stats,
    GstCudaOverlapFilterFrame * fr, CoFrame * cf, guint64 push_ns,
    gboolean cpu);
/* The push thread (the streaming thread in passthrough): a frame with
 * @pts and @duration was pushed in @segment. */
void gst_cuda_overlap_stats_record_time (GstCudaOverlapStats * stats,
    const GstSegment * segment, GstClockTime pts, GstClockTime duration);

/* These build and post messages of @self. */
void gst_cuda_overlap_stats_post (GstCudaOverlapFilter * self,
    gboolean whole_run);
/* A window's message once `stats-interval` has passed since the last. */
void gst_cuda_overlap_stats_maybe_post (GstCudaOverlapFilter * self,
    guint64 now);
/* At EOS, once drained: the last window, then the whole run. */
void gst_cuda_overlap_stats_post_eos (GstCudaOverlapFilter * self);
/* After a build: the passport of the engine installed. */
void gst_cuda_overlap_stats_post_passport (GstCudaOverlapFilter * self,
    GstCaps * caps, gsize frame_bytes);
/* READY→PAUSED: opens the `trace-file` (a warning when it cannot). */
void gst_cuda_overlap_stats_open_trace (GstCudaOverlapFilter * self);

G_END_DECLS
#endif
