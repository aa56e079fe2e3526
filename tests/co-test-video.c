/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * co-test-video: what the cudavideofilter suites share (see
 * co-test-video.h).
 */

#include <string.h>

#include "co-test-video.h"

#define DEFAULT_SEED 0x5eed2024u
#define CO_TEST_VIDEO_ELEMENT "cudavideofilter"
#define DEFAULT_SEED 0x5eed2024u

/* ------------------------------------------------------------------------ */
/* Configurations                                                            */
/* ------------------------------------------------------------------------ */

const OpCfg op_cfgs[N_OPS] = {
  {CO_REF_INVERT, 1.0, 0},
  {CO_REF_GAMMA, 0.45, 0},
  {CO_REF_GAMMA, 2.2, 0},
  {CO_REF_GAMMA, 1.0, 0},
  {CO_REF_BOX_BLUR, 1.0, 0},
  {CO_REF_BOX_BLUR, 1.0, 1},
  {CO_REF_BOX_BLUR, 1.0, 2},
  {CO_REF_BOX_BLUR, 1.0, 7},
  {CO_REF_BOX_BLUR, 1.0, 32},
};

const Size small_sizes[N_SMALL_SIZES] = {
  {1, 1}, {2, 2}, {7, 3}, {33, 17}, {1, 9}, {5, 1},
};

const Layout layout_default = { 0, 0, 0, 0, FALSE, FALSE, FALSE, FALSE };

/* GstVideoMeta, strides + 64, plane 0 at 128, 64 bytes between planes */
const Layout layout_padded = { 64, 128, 64, 0, TRUE, FALSE, FALSE,
  FALSE
};

GstVideoFormat
format_at (guint i)
{
  return co_ref_formats ()[i];
}

gchar *
op_desc (const OpCfg * op)
{
  switch (op->op) {
    case CO_REF_GAMMA:
      return g_strdup_printf ("gamma gamma=%g", op->gamma);
    case CO_REF_BOX_BLUR:
      return g_strdup_printf ("box-blur radius=%u", op->radius);
    default:
      return g_strdup (co_ref_op_nick (op->op));
  }
}

/* ------------------------------------------------------------------------ */
/* Leak check (leaks tracer activity checkpoints)                            */
/* ------------------------------------------------------------------------ */

/* Harnesses made by the running test.  A failed check leaves the test
 * function at once; the fixture's teardown then tears down what is left, so
 * that a no-fork run (CUDA) goes on with the next test instead of waiting
 * forever for the element's threads in gst_task_cleanup_all(). */
static GList *live_harnesses;

/* For a harness whose element posts on a bus of the test's: tear both
 * down. */
void
teardown_harness_with_bus (GstHarness * h, GstBus * bus)
{
  gst_element_set_bus (h->element, NULL);
  teardown_harness (h);
  gst_bus_set_flushing (bus, TRUE);
  gst_object_unref (bus);
}

void
teardown_harness (GstHarness * h)
{
  live_harnesses = g_list_remove (live_harnesses, h);
  gst_harness_teardown (h);
}

static guint
teardown_leftovers (void)
{
  guint n = 0;

  while (live_harnesses) {
    GstHarness *h = live_harnesses->data;
    live_harnesses = g_list_remove (live_harnesses, h);
    gst_element_set_state (h->element, GST_STATE_NULL);
    gst_harness_teardown (h);
    n++;
  }
  return n;
}

void
leaks_teardown (void)
{
  if (teardown_leftovers () > 0) {
    /* the test failed half-way: what it held is not a leak to report */
    co_test_leaks_stop ();
    return;
  }
  co_test_leaks_check (TRUE);
}

/* ------------------------------------------------------------------------ */
/* Pictures                                                                  */
/* ------------------------------------------------------------------------ */

/* A fresh input picture with random content everywhere (padding too). */
GstBuffer *
make_input (GRand * rand, const GstVideoInfo * info, const Layout * lay)
{
  const CoRefFormat *f = co_ref_format (GST_VIDEO_INFO_FORMAT (info));
  GstBuffer *buf;
  GstMapInfo map;
  gsize offset[GST_VIDEO_MAX_PLANES] = { 0, };
  gint stride[GST_VIDEO_MAX_PLANES] = { 0, };
  gsize size;
  guint p;

  if (!lay->meta) {
    size = GST_VIDEO_INFO_SIZE (info);
  } else {
    gsize pos = lay->offset0;
    for (p = 0; p < f->n_planes; p++) {
      guint pw, ph;
      co_ref_plane_size (f, p, GST_VIDEO_INFO_WIDTH (info),
          GST_VIDEO_INFO_HEIGHT (info), &pw, &ph);
      if (lay->tight)
        stride[p] = co_ref_plane_row_bytes (f, p, GST_VIDEO_INFO_WIDTH (info));
      else
        stride[p] = GST_VIDEO_INFO_PLANE_STRIDE (info, p) + lay->stride_pad;
      offset[p] = pos;
      pos += (gsize) stride[p] * ph + lay->plane_gap;
    }
    size = pos + lay->tail;
    if (lay->trim) {
      guint last = f->n_planes - 1, pw, ph;
      co_ref_plane_size (f, last, GST_VIDEO_INFO_WIDTH (info),
          GST_VIDEO_INFO_HEIGHT (info), &pw, &ph);
      size = offset[last] + (gsize) stride[last] * (ph - 1) +
          co_ref_plane_row_bytes (f, last, GST_VIDEO_INFO_WIDTH (info));
    }
  }

  if (!lay->split) {
    GstAllocationParams params;

    /* Frames of a megabyte or more start and end on their own pages, as a
     * page-aligned application ring would: on CUDA they are page-locked in
     * place, and one frame's registration never takes a page of its
     * neighbour's (frames that do share pages are staged, safely: that
     * case is test_shared_ring's). */
    gst_allocation_params_init (&params);
    if (size >= (1 << 20)) {
      params.align = 4095;
      params.padding = (4096 - size % 4096) % 4096;
    }
    buf = gst_buffer_new_allocate (NULL, size, &params);
    fail_unless (buf != NULL);
    fail_unless (gst_buffer_map (buf, &map, GST_MAP_WRITE));
    co_test_fill_random (rand, map.data, map.size);
    gst_buffer_unmap (buf, &map);
  } else {
    /* memory boundaries: with a meta at the planes (a plane must lie in one
     * memory for gst_video_meta_map), else anywhere */
    gsize cut[GST_VIDEO_MAX_PLANES + 2];
    guint n_cut = 0, i;

    cut[n_cut++] = 0;
    if (lay->meta) {
      for (p = 1; p < f->n_planes; p++)
        cut[n_cut++] = offset[p];
    } else {
      cut[n_cut++] = size / 3 + 1;
      cut[n_cut++] = 2 * size / 3 + 3;
    }
    cut[n_cut] = size;
    buf = gst_buffer_new ();
    for (i = 0; i < n_cut; i++) {
      gsize len = cut[i + 1] > cut[i] ? cut[i + 1] - cut[i] : 0;
      GstMemory *mem;
      if (len == 0)
        continue;
      mem = gst_allocator_alloc (NULL, len, NULL);
      fail_unless (gst_memory_map (mem, &map, GST_MAP_WRITE));
      co_test_fill_random (rand, map.data, map.size);
      gst_memory_unmap (mem, &map);
      gst_buffer_append_memory (buf, mem);
    }
    fail_unless_equals_uint64 (gst_buffer_get_size (buf), size);
  }

  if (lay->meta)
    gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE,
        GST_VIDEO_INFO_FORMAT (info), GST_VIDEO_INFO_WIDTH (info),
        GST_VIDEO_INFO_HEIGHT (info), f->n_planes, offset, stride);
  return buf;
}

/* The reference's output for @in, in a default-layout buffer. */
GstBuffer *
make_expected (const OpCfg * op, GstBuffer * in, const GstVideoInfo * info)
{
  GstVideoFrame fin, fout;
  GstBuffer *exp = gst_buffer_new_allocate (NULL, GST_VIDEO_INFO_SIZE (info),
      NULL);

  fail_unless (gst_video_frame_map (&fin, info, in, GST_MAP_READ),
      "cannot map the input picture");
  fail_unless (gst_video_frame_map (&fout, info, exp, GST_MAP_WRITE));
  co_ref_apply (op->op, op->gamma, op->radius, &fin, &fout);
  gst_video_frame_unmap (&fout);
  gst_video_frame_unmap (&fin);
  GST_BUFFER_PTS (exp) = GST_BUFFER_PTS (in);
  return exp;
}

gchar *
describe_buffer (GstBuffer * buf)
{
  GstVideoMeta *m = gst_buffer_get_video_meta (buf);

  if (!m)
    return g_strdup_printf ("%" G_GSIZE_FORMAT " bytes, no GstVideoMeta",
        gst_buffer_get_size (buf));
  return g_strdup_printf ("%" G_GSIZE_FORMAT " bytes, GstVideoMeta %s %ux%u "
      "planes %u offsets %" G_GSIZE_FORMAT ",%" G_GSIZE_FORMAT ",%"
      G_GSIZE_FORMAT " strides %d,%d,%d", gst_buffer_get_size (buf),
      gst_video_format_to_string (m->format), m->width, m->height,
      m->n_planes, m->offset[0], m->offset[1], m->offset[2], m->stride[0],
      m->stride[1], m->stride[2]);
}

/* Compares @out with @exp; fails with @ctx and where they differ. */
void
check_output (GstBuffer * out, GstBuffer * exp, const GstVideoInfo * info,
    const gchar * ctx)
{
  GstVideoFrame fexp, fout;
  gchar *msg = NULL;
  gboolean same;

  if (!gst_video_frame_map (&fout, info, out, GST_MAP_READ)) {
    gchar *d = describe_buffer (out);
    fail ("%s: cannot map the output buffer as %s %dx%d (needs %"
        G_GSIZE_FORMAT " bytes): %s", ctx,
        gst_video_format_to_string (GST_VIDEO_INFO_FORMAT (info)),
        GST_VIDEO_INFO_WIDTH (info), GST_VIDEO_INFO_HEIGHT (info),
        GST_VIDEO_INFO_SIZE (info), d);
    g_free (d);
    return;
  }
  fail_unless (gst_video_frame_map (&fexp, info, exp, GST_MAP_READ));
  same = co_ref_compare (&fexp, &fout, &msg);
  gst_video_frame_unmap (&fexp);
  gst_video_frame_unmap (&fout);
  fail_unless (same, "%s: output differs from the reference: %s", ctx, msg);
  g_free (msg);
}

/* ------------------------------------------------------------------------ */
/* Harness                                                                   */
/* ------------------------------------------------------------------------ */

GstElement *
make_element (const OpCfg * op, const RunCfg * run)
{
  GstElement *e = co_test_make_element (CO_TEST_VIDEO_ELEMENT);

  if (op) {
    gst_util_set_object_arg (G_OBJECT (e), "operation",
        co_ref_op_nick (op->op));
    if (op->op == CO_REF_GAMMA)
      g_object_set (e, "gamma", op->gamma, NULL);
    if (op->op == CO_REF_BOX_BLUR)
      g_object_set (e, "radius", op->radius, NULL);
  }
  if (run)
    co_test_set_run (e, run);
  return e;
}

GstHarness *
make_harness (const OpCfg * op, const RunCfg * run)
{
  GstElement *e = make_element (op, run);
  GstHarness *h = gst_harness_new_with_element (e, "sink", "src");

  gst_object_unref (e);
  live_harnesses = g_list_prepend (live_harnesses, h);
  return h;
}

GstCaps *
caps_of (GstVideoFormat format, guint w, guint h, GstVideoInfo * info)
{
  gst_video_info_init (info);
  fail_unless (gst_video_info_set_format (info, format, w, h));
  GST_VIDEO_INFO_FPS_N (info) = 30;
  GST_VIDEO_INFO_FPS_D (info) = 1;
  return gst_video_info_to_caps (info);
}

void
check_output_caps (GstHarness * h, const GstVideoInfo * info, const gchar * ctx)
{
  GstCaps *want = gst_video_info_to_caps (info);
  GstCaps *got = gst_pad_get_current_caps (h->sinkpad);
  gchar *ws = gst_caps_to_string (want), *gs = got ? gst_caps_to_string (got)
      : g_strdup ("(none)");

  fail_unless (got && gst_caps_is_equal (want, got),
      "%s: output caps are %s, input caps were %s", ctx, gs, ws);
  g_free (ws);
  g_free (gs);
  gst_caps_unref (want);
  if (got)
    gst_caps_unref (got);
}

/* Pushes a new random picture; queues its expected output (with its PTS). */
void
push_frame (GstHarness * h, GRand * rand, const GstVideoInfo * info,
    const OpCfg * op, const Layout * lay, GstClockTime pts, GQueue * pending,
    const gchar * ctx)
{
  GstBuffer *in = make_input (rand, info, lay);
  GstBuffer *exp = make_expected (op, in, info);
  GstFlowReturn ret;

  GST_BUFFER_PTS (in) = pts;
  GST_BUFFER_DURATION (in) = GST_SECOND / 30;
  GST_BUFFER_PTS (exp) = pts;
  g_queue_push_tail (pending, exp);
  ret = gst_harness_push (h, in);
  fail_unless (ret == GST_FLOW_OK, "%s: push (pts %" GST_TIME_FORMAT
      ") returned %s", ctx, GST_TIME_ARGS (pts), gst_flow_get_name (ret));
}

void
pull_and_check (GstHarness * h, const GstVideoInfo * info, GQueue * pending,
    const gchar * ctx)
{
  GstBuffer *exp = g_queue_pop_head (pending);
  GstBuffer *out;
  gchar *c;

  fail_unless (exp != NULL);
  c = g_strdup_printf ("%s, frame pts %" GST_TIME_FORMAT, ctx,
      GST_TIME_ARGS (GST_BUFFER_PTS (exp)));
  out = co_test_pull_buffer (h, c);
  fail_unless_equals_uint64 (GST_BUFFER_PTS (out), GST_BUFFER_PTS (exp));
  check_output (out, exp, info, c);
  gst_buffer_unref (out);
  gst_buffer_unref (exp);
  g_free (c);
}

/* One configuration: a harness, @n_frames pictures pushed all at once then
 * pulled (or one by one when @interleave), every output compared. */
void
run_config (const OpCfg * op, const RunCfg * run, GstVideoFormat format,
    guint w, guint hgt, const Layout * lay, guint n_frames,
    gboolean interleave, GRand * rand, guint32 seed)
{
  GstVideoInfo info;
  GstHarness *h;
  GQueue pending = G_QUEUE_INIT;
  gchar *od = op_desc (op), *rd = co_test_run_desc (run), *ld, *ctx;
  guint i;

  if (lay->meta && lay->tight)
    ld = g_strdup_printf (" input: GstVideoMeta, tight strides%s",
        lay->split ? ", one memory per plane" : "");
  else if (lay->meta)
    ld = g_strdup_printf (" input: GstVideoMeta, strides +%d, plane 0 at %"
        G_GSIZE_FORMAT ", gaps %" G_GSIZE_FORMAT ", tail %" G_GSIZE_FORMAT
        "%s%s", lay->stride_pad, lay->offset0, lay->plane_gap, lay->tail,
        lay->split ? ", one memory per plane" : "",
        lay->trim ? ", buffer ends after the last visible byte" : "");
  else
    ld = g_strdup (lay->split ? " input: three memories" : "");
  ctx = g_strdup_printf ("[%s %s %ux%u %s backend=%s%s%s seed=0x%08x]", od,
      gst_video_format_to_string (format), w, hgt, rd, co_test_backend, ld,
      interleave ? " interleaved" : "", seed);
  g_free (ld);
  h = make_harness (op, run);
  gst_harness_set_src_caps (h, caps_of (format, w, hgt, &info));

  for (i = 0; i < n_frames; i++) {
    push_frame (h, rand, &info, op, lay, i * GST_SECOND / 30, &pending, ctx);
    if (interleave)
      pull_and_check (h, &info, &pending, ctx);
  }
  while (!g_queue_is_empty (&pending))
    pull_and_check (h, &info, &pending, ctx);
  check_output_caps (h, &info, ctx);
  fail_unless_equals_int (gst_harness_buffers_in_queue (h), 0);

  teardown_harness (h);
  g_free (ctx);
  g_free (od);
  g_free (rd);
}

/* ------------------------------------------------------------------------ */

/* Records what leaves the element's src pad, in order. */

static GstPadProbeReturn
record_probe (GstPad * pad G_GNUC_UNUSED, GstPadProbeInfo * pi, gpointer data)
{
  Recorder *r = data;
  gchar *item = NULL;

  gpointer d = GST_PAD_PROBE_INFO_DATA (pi);

  if (d && GST_IS_BUFFER (d)) {
    item = g_strdup_printf ("B %" G_GUINT64_FORMAT, GST_BUFFER_PTS (d));
  } else if (d && GST_IS_EVENT (d)) {
    GstEvent *ev = GST_EVENT_CAST (d);
    if (GST_EVENT_TYPE (ev) == GST_EVENT_CAPS) {
      GstCaps *caps;
      gchar *s;
      gst_event_parse_caps (ev, &caps);
      s = gst_caps_to_string (caps);
      item = g_strdup_printf ("E caps %s", s);
      g_free (s);
    } else {
      item = g_strdup_printf ("E %s", GST_EVENT_TYPE_NAME (ev));
    }
  }
  if (item) {
    g_mutex_lock (&r->lock);
    g_ptr_array_add (r->items, item);
    g_mutex_unlock (&r->lock);
  }
  return GST_PAD_PROBE_OK;
}

Recorder *
recorder_attach (GstHarness * h)
{
  Recorder *r = g_new0 (Recorder, 1);
  GstPad *src = gst_element_get_static_pad (h->element, "src");

  g_mutex_init (&r->lock);
  r->items = g_ptr_array_new_with_free_func (g_free);
  gst_pad_add_probe (src, GST_PAD_PROBE_TYPE_BUFFER |
      GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM | GST_PAD_PROBE_TYPE_EVENT_FLUSH,
      record_probe, r, NULL);
  gst_object_unref (src);
  return r;
}

gchar *
recorder_dump (Recorder * r)
{
  GString *s = g_string_new (NULL);
  guint i;

  g_mutex_lock (&r->lock);
  for (i = 0; i < r->items->len; i++)
    g_string_append_printf (s, "%s%s", i ? " | " : "",
        (gchar *) g_ptr_array_index (r->items, i));
  g_mutex_unlock (&r->lock);
  return g_string_free (s, FALSE);
}

void
recorder_free (Recorder * r)
{
  g_ptr_array_unref (r->items);
  g_mutex_clear (&r->lock);
  g_free (r);
}

/* ------------------------------------------------------------------------ */
/* main()                                                                    */
/* ------------------------------------------------------------------------ */

int
co_test_video_main (int argc, char **argv, const gchar * name,
    Suite * (*suite) (void))
{
  int nf;

  nf = co_test_init (&argc, &argv, CO_TEST_VIDEO_ELEMENT, DEFAULT_SEED, FALSE);
  if (nf != 0)
    return nf;
  g_print ("%s tests: backend=%s seed=0x%08x%s, leak check %s\n", name,
      co_test_backend, co_test_base_seed,
      co_test_full_matrix ? " (full matrix)" : "",
      co_test_leaks_tracer ()? "on" : "OFF");
  if (!co_test_leaks_tracer ()
      && g_strcmp0 (g_getenv ("CO_TEST_LEAKS"), "0") != 0)
    g_printerr ("note: no leak check: the leaks tracer is not active (is "
        "GStreamer's libgstcoretracers on the plugin path? GST_TRACERS=%s)\n",
        g_getenv ("GST_TRACERS"));

  nf = gst_check_run_suite (suite (), name, __FILE__);
  co_test_leaks_free ();
  return co_test_exit_status (nf);
}
