/* cudaoverlap: GstCudaOverlapFilter's statistics, passport and trace.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Called from the push thread (record_frame, post_stats per window) and from
 * the streaming thread only while nothing is in flight (passport, the
 * messages at EOS).  The statistics arithmetic itself is plugin/co-stats.c.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudaoverlapfilter-private.h"

#define GST_CAT_DEFAULT gst_cuda_overlap_filter_debug

const gchar *
_gst_cuda_overlap_filter_enum_nick (GType type, gint value)
{
  GEnumClass *klass = g_type_class_ref (type);
  GEnumValue *v = g_enum_get_value (klass, value);
  const gchar *nick = v ? v->value_nick : "unknown";

  g_type_class_unref (klass);
  return nick;
}

/* ---- statistics, passport and trace ------------------------------------ */

static GstStructure *
stats_structure (GstCudaOverlapFilter * self, const CoStatsSummary * s)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (self);
  GstCudaOverlapFilterClass *klass = GST_CUDA_OVERLAP_FILTER_GET_CLASS (self);
  CoEngine *e = priv->engine;

  return gst_structure_new ("cudaoverlap-stats",
      "frames", G_TYPE_UINT64, s->frames,
      "bytes-h2d", G_TYPE_UINT64, s->bytes_h2d,
      "bytes-d2h", G_TYPE_UINT64, s->bytes_d2h,
      "window-ns", G_TYPE_UINT64, s->window_ns,
      "fps", G_TYPE_DOUBLE, s->fps,
      "h2d-ns", G_TYPE_UINT64, s->h2d_ns,
      "kernel-ns", G_TYPE_UINT64, s->kernel_ns,
      "d2h-ns", G_TYPE_UINT64, s->d2h_ns,
      "gpu-busy-ns", G_TYPE_UINT64, s->gpu_busy_ns,
      "gpu-idle-ns", G_TYPE_UINT64, s->gpu_idle_ns,
      "serial-ns", G_TYPE_UINT64, s->serial_ns,
      "overlap-efficiency", G_TYPE_DOUBLE, s->overlap_efficiency,
      "copy-compute-overlap-ns", G_TYPE_UINT64, s->copy_compute_overlap_ns,
      "h2d-d2h-overlap-ns", G_TYPE_UINT64, s->h2d_d2h_overlap_ns,
      "latency-min", G_TYPE_UINT64, s->latency_min,
      "latency-mean", G_TYPE_UINT64, s->latency_mean,
      "latency-p50", G_TYPE_UINT64, s->latency_p50,
      "latency-p95", G_TYPE_UINT64, s->latency_p95,
      "latency-p99", G_TYPE_UINT64, s->latency_p99,
      "latency-max", G_TYPE_UINT64, s->latency_max,
      "gpu-latency-p50", G_TYPE_UINT64, s->gpu_latency_p50,
      "gpu-latency-p99", G_TYPE_UINT64, s->gpu_latency_p99,
      "frames-pinned", G_TYPE_UINT64, s->frames_pinned,
      "frames-registered", G_TYPE_UINT64, s->frames_registered,
      "frames-pageable", G_TYPE_UINT64, s->frames_pageable,
      "frames-staged", G_TYPE_UINT64, s->frames_staged,
      "streams", G_TYPE_UINT, e ? co_engine_streams (e) : 0,
      "chunks", G_TYPE_UINT, e ? co_engine_chunks (e) : 0,
      "mode", G_TYPE_STRING,
      _gst_cuda_overlap_filter_enum_nick (GST_TYPE_CUDA_OVERLAP_MODE,
          priv->mode), "backend", G_TYPE_STRING,
      _gst_cuda_overlap_filter_enum_nick (GST_TYPE_CUDA_OVERLAP_BACKEND,
          e ? co_engine_backend (e) : priv->backend), "operation",
      G_TYPE_STRING, klass->operation_nick (self), NULL);
}

/* Keeps a copy of @st for its read-only property (@slot, under the object
 * lock) and posts it as an element message while post-messages is TRUE. */
static void
keep_and_post (GstCudaOverlapFilter * self, GstStructure ** slot,
    GstStructure * st)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (self);
  gboolean post;

  GST_OBJECT_LOCK (self);
  if (*slot)
    gst_structure_free (*slot);
  *slot = gst_structure_copy (st);
  post = priv->post_messages;
  GST_OBJECT_UNLOCK (self);

  GST_DEBUG_OBJECT (self, "%" GST_PTR_FORMAT, st);
  if (post)
    gst_element_post_message (GST_ELEMENT (self),
        gst_message_new_element (GST_OBJECT (self), st));
  else
    gst_structure_free (st);
}

void
_gst_cuda_overlap_filter_post_stats (GstCudaOverlapFilter * self,
    gboolean whole_run)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (self);
  CoStatsSummary s;
  GstStructure *st;

  if (!priv->stats)
    return;
  if (whole_run)
    co_stats_total (priv->stats, &s);
  else
    co_stats_take_window (priv->stats, &s);
  st = stats_structure (self, &s);
  if (whole_run)
    gst_structure_set (st, "whole-run", G_TYPE_BOOLEAN, TRUE, NULL);

  keep_and_post (self, &priv->last_stats, st);
}

void
_gst_cuda_overlap_filter_post_passport (GstCudaOverlapFilter * self,
    GstCaps * caps, gsize frame_bytes)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (self);
  GstCudaOverlapFilterClass *klass = GST_CUDA_OVERLAP_FILTER_GET_CLASS (self);
  CoDeviceInfo info;
  GstStructure *st;
  gchar *caps_str = gst_caps_to_string (caps), *cc;

  co_engine_device_info (priv->engine, &info);
  cc = g_strdup_printf ("%d.%d", info.cc_major, info.cc_minor);
  st = gst_structure_new ("cudaoverlap-passport",
      "device-name", G_TYPE_STRING, info.name,
      "compute-capability", G_TYPE_STRING, cc,
      "pci-bus-id", G_TYPE_STRING, info.pci_bus_id,
      "driver-version", G_TYPE_INT, info.driver_version,
      "runtime-version", G_TYPE_INT, info.runtime_version,
      "async-engine-count", G_TYPE_INT, info.async_engine_count,
      "concurrent-kernels", G_TYPE_INT, info.concurrent_kernels,
      "streams", G_TYPE_UINT, co_engine_streams (priv->engine),
      "chunks", G_TYPE_UINT, co_engine_chunks (priv->engine),
      "max-in-flight", G_TYPE_UINT, co_engine_max_in_flight (priv->engine),
      "batch", G_TYPE_UINT, priv->batch,
      "mode", G_TYPE_STRING,
      _gst_cuda_overlap_filter_enum_nick (GST_TYPE_CUDA_OVERLAP_MODE,
          priv->mode), "wait-mode", G_TYPE_STRING,
      _gst_cuda_overlap_filter_enum_nick (GST_TYPE_CUDA_OVERLAP_WAIT_MODE,
          priv->wait_mode), "submit-thread", G_TYPE_BOOLEAN,
      priv->submit_thread, "backend", G_TYPE_STRING,
      _gst_cuda_overlap_filter_enum_nick (GST_TYPE_CUDA_OVERLAP_BACKEND,
          co_engine_backend (priv->engine)), "operation", G_TYPE_STRING,
      klass->operation_nick (self), "caps", G_TYPE_STRING, caps_str,
      "frame-bytes", G_TYPE_UINT64, (guint64) frame_bytes, "plugin-version",
      G_TYPE_STRING, PACKAGE_VERSION, NULL);
  g_free (cc);
  g_free (caps_str);

  keep_and_post (self, &priv->passport, st);
}

void
_gst_cuda_overlap_filter_trace_open (GstCudaOverlapFilter * self)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (self);
  gchar *path, msg[512];
  guint i;
  static const gchar *kinds[3] = { "H2D", "kernel", "D2H" };

  GST_OBJECT_LOCK (self);
  path = g_strdup (priv->trace_file);
  GST_OBJECT_UNLOCK (self);
  if (!path || !*path) {
    g_free (path);
    return;
  }
  priv->trace = co_trace_open (path, msg, sizeof (msg));
  if (!priv->trace)
    GST_ELEMENT_WARNING (self, RESOURCE, OPEN_WRITE,
        ("Could not write the trace file \"%s\"", path), ("%s", msg));
  g_free (path);
  if (!priv->trace)
    return;
  co_trace_name_process (priv->trace, 1, GST_OBJECT_NAME (self));
  co_trace_name_thread (priv->trace, 1, TID_CHAIN, "host: chain (submit)");
  co_trace_name_thread (priv->trace, 1, TID_WAIT, "host: wait for device");
  co_trace_name_thread (priv->trace, 1, TID_PUSH, "host: push");
  for (i = 0; i < CO_MAX_STREAMS * 3; i++) {
    gchar name[64];

    g_snprintf (name, sizeof (name), "stream %u %s", i / 3, kinds[i % 3]);
    co_trace_name_thread (priv->trace, 1, TID_STREAM0 + i, name);
  }
}

void
_gst_cuda_overlap_filter_record_frame (GstCudaOverlapFilter * self,
    GstCudaOverlapFilterFrame * fr, CoFrame * cf, guint64 push_ns)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (self);
  CoOpRecord ops[CO_MAX_CHUNKS * 3];
  gsize n = 0;
  guint i, k;
  gboolean cpu = co_engine_backend (priv->engine) == CO_BACKEND_CPU;
  static const gchar *names[3] = { "H2D", "kernel", "D2H" };

  /* a batch's device work is the first image's: the others count as
   * frames with their own latency and memory path, and no operations */
  for (i = 0; i < cf->n_chunks && fr->image == 0; i++) {
    CoChunk *ch = &cf->chunks[i];
    guint64 bytes[3] = { 0, 0, 0 };

    if (!cpu) {
      for (k = 0; k < ch->n_h2d; k++)
        bytes[0] += ch->h2d[k].width * ch->h2d[k].rows;
      for (k = 0; k < ch->n_d2h; k++)
        bytes[2] += ch->d2h[k].width * ch->d2h[k].rows;
    }
    for (k = 0; k < 3; k++) {
      CoOpRecord *op;

      if (cpu && k != CO_OP_KERNEL)
        continue;
      op = &ops[n++];
      op->kind = (CoOpKind) k;
      op->start = ch->ts[k];
      op->end = MAX (ch->ts[k + 1], ch->ts[k]);
      op->bytes = bytes[k];
      if (priv->trace) {
        gchar args[128];

        g_snprintf (args, sizeof (args),
            "{\"frame\":%" G_GUINT64_FORMAT ",\"chunk\":%u,\"bytes\":%"
            G_GUINT64_FORMAT ",\"stream\":%u}", cf->seqnum, i, bytes[k],
            ch->stream);
        co_trace_complete (priv->trace, 1, TID_STREAM0 + ch->stream * 3 + k,
            names[k], "device", op->start, op->end - op->start, args);
      }
    }
  }
  co_stats_add_frame (priv->stats, ops, n, push_ns - fr->chain_ns, fr->path);
}
