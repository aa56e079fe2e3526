/* cudaoverlap: GstCudaOverlapFilter's statistics, passport and trace.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Called from the push thread (record_frame, post_stats per window) and from
 * the streaming thread only while nothing is in flight (passport, the
 * messages at EOS).  The statistics arithmetic itself is engine/co-stats.c;
 * the messages' fields are listed once, in engine/co-stats-fields.c.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudaoverlapfilter-private.h"
#include "co-stats-fields.h"

#define GST_CAT_DEFAULT gst_cuda_overlap_filter_debug

const gchar *
gst_cuda_overlap_enum_nick (GType type, gint value)
{
  GEnumClass *klass = g_type_class_ref (type);
  GEnumValue *v = g_enum_get_value (klass, value);
  /* registered statically: the nick outlives the class reference */
  const gchar *nick = v ? v->value_nick : "unknown";

  g_type_class_unref (klass);
  return nick;
}

/* ---- statistics, passport and trace ------------------------------------ */

/* Builds the message @list describes (engine/co-stats-fields.c) from the
 * values in @sources: every field in the list's order, nothing else. */
static GstStructure *
fields_structure (const CoFieldList * list,
    const void *const sources[CO_FIELD_N_SOURCES])
{
  GstStructure *st = gst_structure_new_empty (list->name);
  gsize i;

  for (i = 0; i < list->n_fields; i++) {
    const CoField *f = &list->fields[i];
    const void *p = co_field_value (f, sources);
    GValue v = G_VALUE_INIT;

    g_assert (p != NULL);
    switch (f->type) {
      case CO_FIELD_UINT64:
        g_value_init (&v, G_TYPE_UINT64);
        g_value_set_uint64 (&v, *(const uint64_t *) p);
        break;
      case CO_FIELD_DOUBLE:
        g_value_init (&v, G_TYPE_DOUBLE);
        g_value_set_double (&v, *(const double *) p);
        break;
      case CO_FIELD_UINT:
        g_value_init (&v, G_TYPE_UINT);
        g_value_set_uint (&v, *(const unsigned int *) p);
        break;
      case CO_FIELD_INT:
        g_value_init (&v, G_TYPE_INT);
        g_value_set_int (&v, *(const int *) p);
        break;
      case CO_FIELD_STRING:
        g_value_init (&v, G_TYPE_STRING);
        g_value_set_string (&v, *(const char *const *) p);
        break;
      case CO_FIELD_CLOCK_TIME:
        g_value_init (&v, GST_TYPE_CLOCK_TIME);
        g_value_set_uint64 (&v, *(const uint64_t *) p);
        break;
      case CO_FIELD_BOOLEAN:
        if ((f->flags & CO_FIELD_ONLY_IF_TRUE) && !*(const bool *) p)
          continue;
        g_value_init (&v, G_TYPE_BOOLEAN);
        g_value_set_boolean (&v, *(const bool *) p);
        break;
    }
    gst_structure_take_value (st, f->name, &v);
  }
  return st;
}

static void
span_reset (GstCudaOverlapStatsSpan * span)
{
  gst_segment_init (&span->segment, GST_FORMAT_UNDEFINED);
  span->first = span->end = GST_CLOCK_TIME_NONE;
}

/* The time fields of @span, as the level element computes its own. */
static void
span_times (const GstCudaOverlapStatsSpan * span, CoStatsTimes * t)
{
  const GstSegment *seg = &span->segment;

  t->timestamp = span->first;
  t->duration = t->stream_time = t->running_time = GST_CLOCK_TIME_NONE;
  if (!GST_CLOCK_TIME_IS_VALID (span->first))
    return;
  t->duration = span->end - span->first;
  if (seg->format != GST_FORMAT_TIME)
    return;
  t->stream_time = gst_segment_to_stream_time (seg, GST_FORMAT_TIME,
      span->first);
  t->running_time = gst_segment_to_running_time (seg, GST_FORMAT_TIME,
      span->first);
}

static GstStructure *
stats_structure (GstCudaOverlapFilter * self, const CoStatsSummary * s,
    const GstCudaOverlapStatsSpan * span, gboolean whole_run)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (self);
  GstCudaOverlapFilterClass *klass = GST_CUDA_OVERLAP_FILTER_GET_CLASS (self);
  CoEngine *e = priv->engine;
  CoStatsSettings set = { 0 };
  CoStatsTimes times;
  const void *sources[CO_FIELD_N_SOURCES] = {
    [CO_FIELD_IN_SUMMARY] = s,
    [CO_FIELD_IN_TIMES] = &times,
    [CO_FIELD_IN_SETTINGS] = &set,
  };

  span_times (span, &times);

  set.streams = e ? co_engine_streams (e) : 0;
  set.chunks = e ? co_engine_chunks (e) : 0;
  set.mode = gst_cuda_overlap_enum_nick (GST_TYPE_CUDA_OVERLAP_MODE,
      priv->mode);
  set.backend = gst_cuda_overlap_enum_nick (GST_TYPE_CUDA_OVERLAP_BACKEND,
      e ? co_engine_backend (e) : priv->backend);
  set.operation = klass->operation_nick (self);
  set.passthrough = g_atomic_int_get (&priv->passthrough);
  set.first_frame_ns = priv->stats.first_frame_ns;
  set.settled_ns = priv->stats.settled_ns;
  set.whole_run = whole_run;
  return fields_structure (&co_stats_fields, sources);
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
gst_cuda_overlap_stats_post (GstCudaOverlapFilter * self, gboolean whole_run)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (self);
  CoStatsSummary s;
  GstStructure *st;

  if (!priv->stats.counts)
    return;
  if (whole_run) {
    co_stats_total (priv->stats.counts, &s);
    st = stats_structure (self, &s, &priv->stats.run, TRUE);
  } else {
    co_stats_take_window (priv->stats.counts, &s);
    st = stats_structure (self, &s, &priv->stats.window, FALSE);
    span_reset (&priv->stats.window);
  }

  keep_and_post (self, &priv->stats.last, st);
}

static guint64
stats_interval (GstCudaOverlapFilter * self)
{
  guint64 interval;

  GST_OBJECT_LOCK (self);
  interval = PRIV (self)->stats_interval;
  GST_OBJECT_UNLOCK (self);
  return interval;
}

/* A window's message once stats-interval has passed.  The push thread, or
 * the streaming thread in passthrough. */
void
gst_cuda_overlap_stats_maybe_post (GstCudaOverlapFilter * self, guint64 now)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (self);
  guint64 interval = stats_interval (self);

  if (interval > 0 && now - priv->stats.last_post_ns >= interval) {
    priv->stats.last_post_ns = now;
    gst_cuda_overlap_stats_post (self, FALSE);
  }
}

/* At EOS, once drained: the last window (only with stats-interval > 0:
 * with 0 the whole run is the one message), then the whole run.
 * Streaming thread. */
void
gst_cuda_overlap_stats_post_eos (GstCudaOverlapFilter * self)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (self);

  if (!priv->stats.counts || !priv->engine)
    return;
  if (stats_interval (self) > 0 && co_engine_in_flight (priv->engine) == 0)
    gst_cuda_overlap_stats_post (self, FALSE);
  gst_cuda_overlap_stats_post (self, TRUE);
}

void
gst_cuda_overlap_stats_post_passport (GstCudaOverlapFilter * self,
    GstCaps * caps, gsize frame_bytes)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (self);
  GstCudaOverlapFilterClass *klass = GST_CUDA_OVERLAP_FILTER_GET_CLASS (self);
  CoDeviceInfo info;
  CoPassport pp = { 0 };
  const void *sources[CO_FIELD_N_SOURCES] = {[CO_FIELD_IN_PASSPORT] = &pp };
  GstStructure *st;
  gchar *caps_str = gst_caps_to_string (caps), *cc;

  co_engine_device_info (priv->engine, &info);
  cc = g_strdup_printf ("%d.%d", info.cc_major, info.cc_minor);
  pp.device_name = info.name;
  pp.compute_capability = cc;
  pp.pci_bus_id = info.pci_bus_id;
  pp.driver_version = info.driver_version;
  pp.runtime_version = info.runtime_version;
  pp.async_engine_count = info.async_engine_count;
  pp.concurrent_kernels = info.concurrent_kernels;
  pp.streams = co_engine_streams (priv->engine);
  pp.chunks = co_engine_chunks (priv->engine);
  pp.max_in_flight = co_engine_max_in_flight (priv->engine);
  pp.batch = priv->batch;
  pp.mode = gst_cuda_overlap_enum_nick (GST_TYPE_CUDA_OVERLAP_MODE, priv->mode);
  /* the CPU backend waits by blocking, whatever wait-mode says */
  pp.wait_mode = co_engine_backend (priv->engine) == CO_BACKEND_CPU ?
      "blocking" : gst_cuda_overlap_enum_nick (GST_TYPE_CUDA_OVERLAP_WAIT_MODE,
      priv->tune.wait);
  pp.submit_thread = co_engine_submit_thread (priv->engine);
  pp.auto_settings = priv->tune.active;
  pp.auto_reason = priv->tune.active ? priv->tune.choice.reason : "";
  pp.device_engines = priv->tune.device_engines;
  pp.backend = gst_cuda_overlap_enum_nick (GST_TYPE_CUDA_OVERLAP_BACKEND,
      co_engine_backend (priv->engine));
  pp.backend_reason = priv->stats.backend_reason ?
      priv->stats.backend_reason : "";
  pp.operation = klass->operation_nick (self);
  pp.memory_in = priv->in_cuda ? "cuda" : "system";
  pp.memory_out = priv->out_cuda ? "cuda" : "system";
  pp.caps = caps_str;
  pp.frame_bytes = frame_bytes;
  pp.plugin_version = PACKAGE_VERSION;
  pp.kernel_compile_ms = info.kernel_compile_ms;
  pp.kernel_cache = info.kernel_cache ? info.kernel_cache : "";
  st = fields_structure (&co_passport_fields, sources);
  g_free (cc);
  g_free (caps_str);

  keep_and_post (self, &priv->stats.passport, st);
}

void
gst_cuda_overlap_stats_open_trace (GstCudaOverlapFilter * self)
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
  priv->stats.trace = co_trace_open (path, msg, sizeof (msg));
  if (!priv->stats.trace)
    GST_ELEMENT_WARNING (self, RESOURCE, OPEN_WRITE,
        ("Could not write the trace file \"%s\"", path), ("%s", msg));
  g_free (path);
  if (!priv->stats.trace)
    return;
  co_trace_name_process (priv->stats.trace, 1, GST_OBJECT_NAME (self));
  co_trace_name_thread (priv->stats.trace, 1, TID_CHAIN,
      "host: chain (submit)");
  co_trace_name_thread (priv->stats.trace, 1, TID_WAIT,
      "host: wait for device");
  co_trace_name_thread (priv->stats.trace, 1, TID_PUSH, "host: push");
  for (i = 0; i < CO_MAX_STREAMS * 3; i++) {
    gchar name[64];

    g_snprintf (name, sizeof (name), "stream %u %s", i / 3, kinds[i % 3]);
    co_trace_name_thread (priv->stats.trace, 1, TID_STREAM0 + i, name);
  }
}

void
gst_cuda_overlap_stats_begin (GstCudaOverlapStats * stats)
{
  if (!stats->counts) {
    stats->counts = co_stats_new ();
    span_reset (&stats->window);
    span_reset (&stats->run);
  }
  stats->last_post_ns = co_engine_now ();
}

void
gst_cuda_overlap_stats_stop (GstCudaOverlapStats * stats)
{
  stats->first_chain_ns = stats->first_frame_ns = stats->settled_ns = 0;
  g_atomic_int_set (&stats->settled, FALSE);
  g_clear_pointer (&stats->counts, co_stats_free);
  co_trace_close (stats->trace);
  stats->trace = NULL;
}

void
gst_cuda_overlap_stats_clear (GstCudaOverlapStats * stats)
{
  g_clear_pointer (&stats->last, gst_structure_free);
  g_clear_pointer (&stats->passport, gst_structure_free);
  g_clear_pointer (&stats->backend_reason, g_free);
}

void
gst_cuda_overlap_stats_record_frame (GstCudaOverlapStats * stats,
    GstCudaOverlapFilterFrame * fr, CoFrame * cf, guint64 push_ns, gboolean cpu)
{
  CoOpRecord ops[CO_MAX_CHUNKS * 3];
  gsize n = 0;
  guint i, k;
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
      if (stats->trace) {
        gchar args[128];

        g_snprintf (args, sizeof (args),
            "{\"frame\":%" G_GUINT64_FORMAT ",\"chunk\":%u,\"bytes\":%"
            G_GUINT64_FORMAT ",\"stream\":%u}", cf->seqnum, i, bytes[k],
            ch->stream);
        co_trace_complete (stats->trace, 1, TID_STREAM0 + ch->stream * 3 + k,
            names[k], "device", op->start, op->end - op->start, args);
      }
    }
  }
  co_stats_add_frame (stats->counts, ops, n, push_ns - fr->chain_ns, fr->path);
}

/* Whether @a and @b give a PTS the same running and stream time: all but
 * the position and duration, which a segment sent again may update. */
static gboolean
same_mapping (const GstSegment * a, const GstSegment * b)
{
  return a->format == b->format && a->flags == b->flags &&
      a->rate == b->rate && a->applied_rate == b->applied_rate &&
      a->base == b->base && a->offset == b->offset && a->start == b->start &&
      a->stop == b->stop && a->time == b->time;
}

/* Widens @span by a frame at @pts + @duration in @segment; a frame of
 * another segment than the span's starts it anew. */
static void
span_add (GstCudaOverlapStatsSpan * span, const GstSegment * segment,
    GstClockTime pts, GstClockTime duration)
{
  GstClockTime end = pts + (GST_CLOCK_TIME_IS_VALID (duration) ? duration : 0);

  if (!GST_CLOCK_TIME_IS_VALID (span->first)
      || !same_mapping (&span->segment, segment)) {
    gst_segment_copy_into (segment, &span->segment);
    span->first = pts;
    span->end = end;
    return;
  }
  span->first = MIN (span->first, pts);
  span->end = MAX (span->end, end);
}

void
gst_cuda_overlap_stats_record_time (GstCudaOverlapStats * stats,
    const GstSegment * segment, GstClockTime pts, GstClockTime duration)
{
  if (!GST_CLOCK_TIME_IS_VALID (pts))
    return;
  span_add (&stats->window, segment, pts, duration);
  span_add (&stats->run, segment, pts, duration);
}
