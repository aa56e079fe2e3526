/* cudaoverlap: the automatic settings of GstCudaOverlapFilter
 * (gstcudaoverlapfilter-tune.c explains the rules' inputs and when they
 * are decided; engine/co-tune.h has the rules).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_CUDA_OVERLAP_FILTER_TUNE_H__
#define __GST_CUDA_OVERLAP_FILTER_TUNE_H__

#include "gstcudaoverlapfilter.h"

G_BEGIN_DECLS
/* [S]: the streaming thread's, except the device measures, which the push
 * thread writes while @measure is set and hands over by setting @measured
 * (atomics). */
    typedef struct
{
  gint phase;                   /* TUNE_* of gstcudaoverlapfilter-tune.c */
  CoTuneInput key;              /* the static input of @choice */
  CoTuneChoice choice;          /* in effect */
  gboolean active;              /* anything chosen automatically */
  gboolean cpu_backend;
  guint batch;                  /* the automatic batch, for configure */
  CoWaitMode wait;              /* in effect */
  gboolean spin_token;          /* counted in the process's spinners */
  gint share_slot;              /* counted in sharers[share_slot] of
                                 * gstcudaoverlapfilter-tune.c; -1: not */
  guint device_engines;         /* on the device at the build, with this */
  guint prev_batch;             /* of the previous build; 0: none */
  /* chain's measures */
  guint64 t_begin, cpu_begin, last_exit, cpu_exit;
  guint64 n_seen, n_host, host_cpu, chain_wall, gap, gap_cpu, n_gap;
  guint64 in_bytes, n_staged;
  /* the push thread's measures */
  guint64 pushed;
  gboolean have_base;
  CoStatsSummary base;
  CoTuneMeasure dev;
  gint measure;
  gint measured;
} GstCudaOverlapTune;

void gst_cuda_overlap_tune_init (GstCudaOverlapTune * t);
/* The settings of the engine about to be built: fills @cfg's streams,
 * chunks and wait mode (the automatic ones), and the automatic batch.
 * Streaming thread, nothing installed, before klass->configure. */
void gst_cuda_overlap_tune_config (GstCudaOverlapFilter * self,
    GstCaps * caps, CoEngineConfig * cfg);
/* The engine is installed: says what was chosen; a new batch posts a
 * LATENCY message.  Streaming thread. */
void gst_cuda_overlap_tune_built (GstCudaOverlapFilter * self);
/* Before a buffer's ensure (streaming thread): decides once more when the
 * measures are in (a different choice marks the engine dirty), and starts
 * timing this buffer while measuring. */
void gst_cuda_overlap_tune_begin (GstCudaOverlapFilter * self);
/* After a buffer of @size bytes went to the engine, @staged or not
 * (streaming thread). */
void gst_cuda_overlap_tune_end (GstCudaOverlapTune * t, gsize size,
    gboolean staged);
/* The push thread, after @n images were pushed and recorded in @stats. */
void gst_cuda_overlap_tune_pushed (GstCudaOverlapTune * t, CoStats * stats,
    guint n);
/* PAUSED→READY, the engine torn down: a new stream decides anew. */
void gst_cuda_overlap_tune_reset (GstCudaOverlapTune * t);

G_END_DECLS
#endif
