/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cudavideofilter and memory:CUDAMemory.
 *
 * CO_TEST_BACKEND=cpu (make check, no GPU needed): negotiation of every pad
 * combination without a usable GPU for CUDA memory (backend=cpu, and
 * backend=auto where no device is there): caps queries show no CUDA
 * memory, forcing memory:CUDAMemory on either side fails with an element
 * error of ours that says why, system memory keeps working; with a fake GPU
 * (-Dfault-injection builds) the caps a GPU machine advertises and the
 * output memory the element picks; operation=none passes system-memory
 * buffers through (the same buffer out).
 *
 * CO_TEST_BACKEND=cuda (the GPU machine; skipped with exit 77 elsewhere):
 * every CUDA-memory format and operation through
 *   cudaupload ! CUDA ! cudavideofilter ! CUDA ! cudadownload
 * and the two mixed paths, byte-identical to the system-memory path and to
 * the reference (co-reference.c); one GstCudaContext shared with
 * cudaupload/cudadownload; no copy bytes for a CUDA-to-CUDA frame.
 */
#include <string.h>
#include <cuda_runtime.h>
#include <gst/app/gstappsrc.h>
#include <gst/app/gstappsink.h>

#include "co-reference.h"
#include "co-test-cudamem.h"
#include "co-test-util.h"
#include "co-test-fault.h"

#define ELEMENT "cudavideofilter"
#define DEFAULT_SEED 0xc0da15u

static const gchar *const cuda_formats[] = {
  "RGBA", "BGRA", "ARGB", "ABGR", "RGBx", "BGRx", "RGB", "BGR", "NV12",
  "NV21", "I420", "YV12", "Y42B", "Y444", "Y444_16LE", "P010_10LE", "P016_LE",
  "I420_10LE", "YUY2", "UYVY", "RGB10A2_LE", "BGR10A2_LE"
};

static const gchar *const system_only_formats[] = {
  "GRAY8", "GRAY16_LE", "xRGB", "xBGR"
};

/* ------------------------------------------------------------------------ */
/* Helpers                                                                   */
/* ------------------------------------------------------------------------ */

/* A frame of @caps (system memory) with random bytes. */
static GstBuffer *
random_frame (GstCaps * caps, guint32 seed)
{
  GstVideoInfo info;
  GstBuffer *buf;
  GstMapInfo map;
  GRand *rand = g_rand_new_with_seed (seed);

  fail_unless (gst_video_info_from_caps (&info, caps));
  buf = gst_buffer_new_allocate (NULL, GST_VIDEO_INFO_SIZE (&info), NULL);
  gst_buffer_map (buf, &map, GST_MAP_WRITE);
  co_test_fill_random (rand, map.data, map.size);
  gst_buffer_unmap (buf, &map);
  g_rand_free (rand);
  return buf;
}

/* ------------------------------------------------------------------------ */
/* Without a GPU for CUDA memory (CO_TEST_BACKEND=cpu)                       */
/* ------------------------------------------------------------------------ */

/* Both templates list CUDA memory first, for the formats both we and 1.22's
 * nvcodec carry there, then system memory for all of ours. */
GST_START_TEST (test_templates)
{
  GstElementFactory *f = gst_element_factory_find (ELEMENT);
  const GList *l;

  fail_unless (f != NULL);
  for (l = gst_element_factory_get_static_pad_templates (f); l; l = l->next) {
    GstCaps *caps = gst_static_caps_get (&((GstStaticPadTemplate *)
            l->data)->static_caps);
    GstStructure *s = gst_caps_get_structure (caps, 0);
    guint i;

    fail_unless_equals_int (gst_caps_get_size (caps), 2);
    fail_unless (gst_caps_features_contains (gst_caps_get_features (caps, 0),
            CUDA_FEATURE));
    fail_if (gst_caps_features_contains (gst_caps_get_features (caps, 1),
            CUDA_FEATURE));
    fail_unless_equals_int (gst_value_list_get_size (gst_structure_get_value
            (s, "format")), G_N_ELEMENTS (cuda_formats));
    for (i = 0; i < G_N_ELEMENTS (system_only_formats); i++) {
      GstCaps *c =
          co_test_caps_printf ("video/x-raw(" CUDA_FEATURE "),format=%s",
          system_only_formats[i]);

      fail_if (gst_caps_can_intersect (c, caps), "%s in CUDA memory",
          system_only_formats[i]);
      gst_caps_unref (c);
    }
    gst_caps_unref (caps);
  }
  gst_object_unref (f);
}

GST_END_TEST;

/* Caps queries on both pads show no CUDA memory, and a filter of CUDA
 * memory only finds nothing. */
GST_START_TEST (test_caps_queries_no_cuda)
{
  const gchar *backend;

  if (co_test_no_gpu_backend (__i__, &backend))
    co_test_check_caps_no_cuda ("videotestsrc", ELEMENT, backend,
        "video/x-raw");
}

GST_END_TEST;

/* appsrc (system-memory buffers, caps in @in memory) ! element !
 * capsfilter (@out memory) ! appsink, for every combination: system memory
 * on both sides works, CUDA memory on either side fails with our error. */
GST_START_TEST (test_pad_combinations)
{
  const gchar *backend;
  gboolean in_cuda = __i__ & 1, out_cuda = (__i__ >> 1) & 1;
  const gchar *fmt = (__i__ >> 2) & 1 ? "NV12" : "RGBA";
  gchar *caps, *desc;
  GstCaps *c;
  GList *bufs = NULL;
  RunResult r;
  gint i;

  if (!co_test_no_gpu_backend (__i__ >> 3, &backend))
    return;
  caps = g_strdup_printf ("format=%s,width=64,height=48,framerate=30/1", fmt);
  desc = g_strdup_printf ("appsrc name=src format=time caps=\"video/x-raw%s,"
      "%s\" ! %s name=f backend=%s ! capsfilter name=cf ! appsink name=sink "
      "sync=false", in_cuda ? "(" CUDA_FEATURE ")" : "", caps, ELEMENT,
      backend);
  c = co_test_caps_printf ("video/x-raw,%s", caps);
  for (i = 0; i < 3; i++) {
    GstBuffer *b = random_frame (c, i);

    GST_BUFFER_PTS (b) = i * GST_SECOND / 30;
    bufs = g_list_append (bufs, b);
  }
  gst_caps_unref (c);
  co_test_run_pipeline (desc, out_cuda ? "video/x-raw(" CUDA_FEATURE ")" :
      "video/x-raw", bufs, FALSE, &r);
  co_test_check_pad_combination (&r, desc, in_cuda, out_cuda, 3);
  co_test_run_result_clear (&r);
  g_free (desc);
  g_free (caps);
}

GST_END_TEST;

/* CUDA memory forced next to the element in a launch line: the link
 * itself is refused (its caps check finds no CUDA memory), naming the
 * element and the caps. */
GST_START_TEST (test_forced_at_link)
{
  const gchar *backend;

  if (co_test_no_gpu_backend (__i__ >> 1, &backend))
    co_test_check_forced_at_link ("videotestsrc", "video/x-raw", ELEMENT,
        backend, __i__ & 1);
}

GST_END_TEST;

/* CUDA memory of a format 1.22's CUDA memory does not carry is refused by
 * the caps (ACCEPT_CAPS), on any machine. */
GST_START_TEST (test_system_only_format)
{
  gchar *desc = g_strdup_printf ("appsrc name=src format=time caps=\""
      "video/x-raw(" CUDA_FEATURE "),format=%s,width=16,height=8,"
      "framerate=30/1\" ! %s name=f ! fakesink", system_only_formats[__i__],
      ELEMENT);
  RunResult r;
  GstCaps *c = co_test_caps_printf ("video/x-raw,format=%s,width=16,height=8",
      system_only_formats[__i__]);

  co_test_run_pipeline (desc, NULL, g_list_append (NULL, random_frame (c, 1)),
      TRUE, &r);
  fail_unless (r.error != NULL, "%s: no error", desc);
  co_test_run_result_clear (&r);
  gst_caps_unref (c);
  g_free (desc);
}

GST_END_TEST;

/* ---- a fake GPU (-Dfault-injection builds) ---------------------------------- */

typedef struct
{
  const gchar *in;              /* input caps */
  const gchar *takes;           /* what downstream takes */
  const gchar *out;             /* the output caps the element must pick
                                 * (NULL: none, an error) */
} FakeCase;

#define RGBA_CAPS "format=RGBA,width=32,height=16,framerate=30/1"
static const FakeCase fake_cases[] = {
  {"video/x-raw," RGBA_CAPS, "ANY", "video/x-raw," RGBA_CAPS},
  {"video/x-raw(" CUDA_FEATURE ")," RGBA_CAPS, "ANY",
      "video/x-raw(" CUDA_FEATURE ")," RGBA_CAPS},
  {"video/x-raw(" CUDA_FEATURE ")," RGBA_CAPS, "video/x-raw",
      "video/x-raw," RGBA_CAPS},
  {"video/x-raw," RGBA_CAPS, "video/x-raw(" CUDA_FEATURE ")",
      "video/x-raw(" CUDA_FEATURE ")," RGBA_CAPS},
  {"video/x-raw,format=GRAY8,width=8,height=8", "video/x-raw("
        CUDA_FEATURE ")", NULL},
};

/* With a fake GPU: the sink caps offer downstream's caps in both memories
 * (CUDA memory only for its formats), and the CAPS event picks the output
 * memory (the same when downstream takes it, else the other). */
GST_START_TEST (test_fake_gpu)
{
  const FakeCase *fc = &fake_cases[__i__];
  GstCaps *offered = NULL, *got = NULL, *want;

  /* the suite adds this test only where the hook exists */
  fail_unless (co_test_fake_negotiate (ELEMENT, fc->in, fc->takes, &offered,
          &got), "no co_test_set_fake_cuda_memory");
  /* downstream's RGBA in system memory is offered in both memories */
  want = gst_caps_from_string ("video/x-raw(" CUDA_FEATURE "),format=RGBA");
  fail_unless (g_str_equal (fc->takes, "video/x-raw(" CUDA_FEATURE ")") ||
      gst_caps_can_intersect (offered, want), "%" GST_PTR_FORMAT, offered);
  gst_caps_unref (want);
  want = gst_caps_from_string ("video/x-raw(" CUDA_FEATURE "),format=GRAY8");
  fail_if (gst_caps_can_intersect (offered, want), "%" GST_PTR_FORMAT, offered);
  gst_caps_unref (want);
  if (fc->out) {
    want = gst_caps_from_string (fc->out);
    fail_unless (got && gst_caps_is_equal (got, want), "in %s, "
        "downstream %s: output %" GST_PTR_FORMAT ", not %s", fc->in,
        fc->takes, got, fc->out);
    gst_caps_unref (want);
  } else {
    fail_unless (got == NULL, "%" GST_PTR_FORMAT, got);
  }
  gst_caps_unref (offered);
  gst_clear_caps (&got);
}

GST_END_TEST;

/* ------------------------------------------------------------------------ */
/* Both backends                                                             */
/* ------------------------------------------------------------------------ */

/* operation=none with system memory on both pads: the input buffer itself
 * goes on (passthrough), counted so. */
GST_START_TEST (test_none_passthrough)
{
  GstElement *e = co_test_make_element (ELEMENT);
  GstHarness *h = gst_harness_new_with_element (e, "sink", "src");
  GstBuffer *in, *out;
  GstCaps *caps = gst_caps_from_string ("video/x-raw,format=NV12,width=33,"
      "height=17,framerate=30/1");
  GstStructure *st = NULL;
  guint64 pt = 0;
  gint i;

  gst_util_set_object_arg (G_OBJECT (e), "operation", "none");
  gst_harness_set_src_caps (h, gst_caps_ref (caps));
  for (i = 0; i < 3; i++) {
    in = random_frame (caps, i);
    gst_buffer_ref (in);
    fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_OK);
    out = co_test_pull_buffer (h, "none");
    fail_unless (out == in, "operation=none did not pass the buffer through");
    gst_buffer_unref (out);
    gst_buffer_unref (in);
  }
  gst_harness_push_event (h, gst_event_new_eos ());
  g_object_get (e, "stats", &st, NULL);
  fail_unless (st != NULL);
  fail_unless (gst_structure_get_uint64 (st, "frames-passthrough", &pt));
  fail_unless_equals_uint64 (pt, 3);
  gst_structure_free (st);
  gst_caps_unref (caps);
  gst_object_unref (e);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* ------------------------------------------------------------------------ */
/* On the GPU (CO_TEST_BACKEND=cuda), against nvcodec's cudaupload and       */
/* cudadownload                                                              */
/* ------------------------------------------------------------------------ */

/* NULL when cudaupload and cudadownload exist, else why the tests that
 * need them cannot run (for co_test_add_loop_if) */
static const gchar *
nvcodec_missing (void)
{
  GstElementFactory *up = gst_element_factory_find ("cudaupload");
  GstElementFactory *down = gst_element_factory_find ("cudadownload");
  gboolean ok = up && down;

  gst_clear_object (&up);
  gst_clear_object (&down);
  return ok ? NULL : "no cudaupload/cudadownload (gst-plugins-bad's "
      "nvcodec, with a GPU)";
}

/* the suite adds the tests that need nvcodec only where it exists */
static void
require_nvcodec (const gchar * test)
{
  fail_unless (nvcodec_missing () == NULL, "%s: %s", test, nvcodec_missing ());
}

typedef struct
{
  CoRefOp op;
  gboolean none;
  gdouble gamma;
  guint radius;
} GpuOp;

static const GpuOp gpu_ops[] = {
  {CO_REF_INVERT, FALSE, 1.0, 0},
  {CO_REF_GAMMA, FALSE, 2.2, 0},
  {CO_REF_BOX_BLUR, FALSE, 1.0, 3},
  {CO_REF_BOX_BLUR, FALSE, 1.0, 32},
  {CO_REF_INVERT, TRUE, 1.0, 0},        /* none */
};

/* The memory paths: [0] system to system (the control), then CUDA to
 * CUDA, CUDA to system, system to CUDA. */
static const gchar *const path_names[] = { "sys-sys", "cuda-cuda",
  "cuda-sys", "sys-cuda"
};

static gchar *
gpu_pipeline (guint path, const gchar * fmt, const GpuOp * op, gint w, gint h)
{
  gboolean in_cuda = path == 1 || path == 2, out_cuda = path == 1 || path == 3;
  gchar *props = op->none ? g_strdup ("operation=none") :
      g_strdup_printf ("operation=%s gamma=%g radius=%u",
      co_ref_op_nick (op->op), op->gamma, op->radius);
  gchar *desc = g_strdup_printf ("appsrc name=src format=time caps=\""
      "video/x-raw,format=%s,width=%d,height=%d,framerate=30/1\" ! %s"
      "%s name=f backend=cuda streams=4 chunks=4 %s ! %s ! "
      "appsink name=sink sync=false", fmt, w, h, in_cuda ? "cudaupload ! "
      "video/x-raw(" CUDA_FEATURE ") ! " : "", ELEMENT, props, out_cuda ?
      "video/x-raw(" CUDA_FEATURE ") ! cudadownload ! video/x-raw" :
      "video/x-raw");

  g_free (props);
  return desc;
}

/* @got (a run's output buffer) against @want, byte for byte. */
static void
compare_frames (GstVideoInfo * info, GstBuffer * want, GstBuffer * got,
    const gchar * what)
{
  GstVideoFrame fw, fg;
  gchar *msg = NULL;
  gboolean same;

  fail_unless (gst_video_frame_map (&fw, info, want, GST_MAP_READ));
  fail_unless (gst_video_frame_map (&fg, info, got, GST_MAP_READ), "%s", what);
  same = co_ref_compare (&fw, &fg, &msg);
  gst_video_frame_unmap (&fw);
  gst_video_frame_unmap (&fg);
  fail_unless (same, "%s: %s", what, msg);
  g_free (msg);
}

/* The reference's output for @in. */
static GstBuffer *
reference_frame (GstVideoInfo * info, GstBuffer * in, const GpuOp * op)
{
  GstBuffer *out = gst_buffer_new_allocate (NULL, GST_VIDEO_INFO_SIZE (info),
      NULL);
  GstVideoFrame fi, fo;

  if (op->none) {
    gst_buffer_unref (out);
    return gst_buffer_ref (in);
  }
  gst_video_frame_map (&fi, info, in, GST_MAP_READ);
  gst_video_frame_map (&fo, info, out, GST_MAP_WRITE);
  co_ref_apply (op->op, op->gamma, op->radius, &fi, &fo);
  gst_video_frame_unmap (&fi);
  gst_video_frame_unmap (&fo);
  return out;
}

/* What a path's passport and statistics must say. */
static void
check_run_facts (RunResult * r, guint path, const gchar * what)
{
  co_test_check_memory_facts (r, path == 1 || path == 2, path == 1 ||
      path == 3, what);
}

/* The width to test @fmt at through cudaupload and cudadownload, @width or
 * the next even one for packed 4:2:2: GStreamer 1.22's CUDA memory copies
 * (gst_cuda_buffer_copy and the upload's) move COMP_WIDTH x PSTRIDE bytes a
 * row, which for an odd-width YUY2 or UYVY row leaves out the second half
 * of its last pair (the padding luma and V): the element would get bytes
 * nobody wrote.  Odd widths of those formats are tested in system memory
 * (test-video-ops, test-video-memory). */
static gint
upload_width (const gchar * fmt, gint width)
{
  if (g_str_equal (fmt, "YUY2") || g_str_equal (fmt, "UYVY"))
    return (width + 1) & ~1;
  return width;
}

/* Every CUDA-memory format x operation, on every memory path, byte-identical
 * to the system-memory path and to the reference; the passport says which
 * memory each pad had and a CUDA side moved no bytes over PCIe. */
GST_START_TEST (test_cuda_paths)
{
  const gchar *fmt = cuda_formats[__i__ % G_N_ELEMENTS (cuda_formats)];
  const GpuOp *op = &gpu_ops[__i__ / G_N_ELEMENTS (cuda_formats)];
  const gint width = upload_width (fmt, 333);
  GstCaps *caps =
      co_test_caps_printf ("video/x-raw,format=%s,width=%d,height=201,"
      "framerate=30/1", fmt, width);
  GstBuffer *in[3], *want[3];
  GList *control = NULL;
  GstVideoInfo info;
  guint path, k;

  require_nvcodec ("test_cuda_paths");
  gst_video_info_from_caps (&info, caps);
  for (k = 0; k < 3; k++) {
    in[k] = random_frame (caps, co_test_seed ("cuda_paths", __i__ * 3 + k));
    GST_BUFFER_PTS (in[k]) = k * GST_SECOND / 30;
    want[k] = reference_frame (&info, in[k], op);
  }
  for (path = 0; path < 4; path++) {
    gchar *desc = gpu_pipeline (path, fmt, op, width, 201);
    gchar *what = g_strdup_printf ("%s %s", path_names[path], desc);
    GList *bufs = NULL, *l;
    RunResult r;

    if (op->none && path <= 1) {
      /* a passthrough: no engine, nothing of ours to compare */
      g_free (desc);
      g_free (what);
      continue;
    }
    for (k = 0; k < 3; k++)
      bufs = g_list_append (bufs, gst_buffer_copy (in[k]));
    co_test_run_pipeline (desc, NULL, bufs, FALSE, &r);
    fail_unless (r.error == NULL, "%s: %" GST_PTR_FORMAT, what, r.error);
    fail_unless_equals_int (g_list_length (r.out), 3);
    for (k = 0, l = r.out; l; l = l->next, k++) {
      compare_frames (&info, want[k], l->data, what);
      if (control)
        compare_frames (&info, g_list_nth_data (control, k), l->data, what);
    }
    check_run_facts (&r, path, what);
    if (path == 0)
      control = g_steal_pointer (&r.out);
    co_test_run_result_clear (&r);
    g_free (desc);
    g_free (what);
  }
  g_list_free_full (control, (GDestroyNotify) gst_buffer_unref);
  for (k = 0; k < 3; k++) {
    gst_buffer_unref (in[k]);
    gst_buffer_unref (want[k]);
  }
  gst_caps_unref (caps);
}

GST_END_TEST;

/* One GstCudaContext for the element, cudaupload and cudadownload: the
 * first one made (ours, at NULL to READY, or nvcodec's), which the others
 * find through the CONTEXT query and join. */
GST_START_TEST (test_context_shared)
{
  const gchar *desc = __i__ == 0 ?
      "appsrc name=src ! cudaupload name=up ! video/x-raw(" CUDA_FEATURE
      ") ! " ELEMENT " name=f backend=cuda ! video/x-raw(" CUDA_FEATURE
      ") ! cudadownload name=down ! fakesink" :
      "appsrc name=src ! cudaupload name=up ! video/x-raw(" CUDA_FEATURE
      ") ! " ELEMENT " name=f backend=cuda ! video/x-raw ! fakesink";
  GstElement *pipe, *f, *up, *down;
  GObject *cf, *cu, *cd = NULL;
  GstQuery *q;

  require_nvcodec ("test_context_shared");
  pipe = gst_parse_launch (desc, NULL);
  fail_unless (pipe != NULL);
  /* PAUSED: nvcodec's elements find or make their context in start(),
   * READY to PAUSED (the sink waits for a preroll buffer: ASYNC) */
  fail_if (gst_element_set_state (pipe, GST_STATE_PAUSED) ==
      GST_STATE_CHANGE_FAILURE);
  f = gst_bin_get_by_name (GST_BIN (pipe), "f");
  up = gst_bin_get_by_name (GST_BIN (pipe), "up");
  down = gst_bin_get_by_name (GST_BIN (pipe), "down");
  cf = co_test_element_cuda_context (f);
  cu = co_test_element_cuda_context (up);
  fail_unless (cf != NULL, "the element has no CUDA context");
  fail_unless (cf == cu, "cudaupload's context %p is not ours %p", cu, cf);
  if (down) {
    cd = co_test_element_cuda_context (down);
    fail_unless (cf == cd, "cudadownload's context %p is not ours %p", cd, cf);
  }
  /* and the element answers CONTEXT queries with it */
  q = gst_query_new_context ("gst.cuda.context");
  fail_unless (gst_pad_peer_query (up->srcpads->data, q));
  gst_query_unref (q);

  gst_element_set_state (pipe, GST_STATE_NULL);
  g_clear_object (&cf);
  g_clear_object (&cu);
  g_clear_object (&cd);
  gst_clear_object (&down);
  gst_object_unref (up);
  gst_object_unref (f);
  gst_object_unref (pipe);
}

GST_END_TEST;

/* 1921x1081 (odd, two chunks of chroma rows meet mid-pair), box-blur
 * radius 32 across 7 chunks, CUDA memory in and out, in the layouts of
 * 1.22's CUDA memory: among them chroma planes at the luma pitch (YV12,
 * Y42B, I420_10LE), read as the buffer says; samples with padding bits
 * (P010_10LE, I420_10LE: random input, the output's padding bits 0); packed
 * 4:2:2 at 1922 (upload_width), its chroma rows split mid-row by the
 * bands like the others'. */
static const gchar *const odd_size_formats[] = { "RGBA", "NV12", "YV12",
  "Y42B", "RGB", "Y444_16LE", "P010_10LE", "I420_10LE", "YUY2", "UYVY",
  "BGR10A2_LE"
};

GST_START_TEST (test_cuda_odd_size)
{
  const gchar *fmt = odd_size_formats[__i__];
  GpuOp op = { CO_REF_BOX_BLUR, FALSE, 1.0, 32 };
  const gint width = upload_width (fmt, 1921);
  GstCaps *caps = co_test_caps_printf ("video/x-raw,format=%s,width=%d,"
      "height=1081,framerate=30/1", fmt, width);
  GstVideoInfo info;
  GstBuffer *in, *want;
  gchar *desc;
  RunResult r;

  require_nvcodec ("test_cuda_odd_size");
  gst_video_info_from_caps (&info, caps);
  in = random_frame (caps, co_test_seed ("odd_size", __i__));
  want = reference_frame (&info, in, &op);
  desc = g_strdup_printf ("appsrc name=src format=time caps=\"video/x-raw,"
      "format=%s,width=%d,height=1081,framerate=30/1\" ! cudaupload ! "
      "video/x-raw(" CUDA_FEATURE ") ! " ELEMENT " name=f backend=cuda "
      "operation=box-blur radius=32 streams=3 chunks=7 ! video/x-raw("
      CUDA_FEATURE ") ! cudadownload ! video/x-raw ! appsink name=sink "
      "sync=false", fmt, width);
  co_test_run_pipeline (desc, NULL, g_list_append (NULL, gst_buffer_ref (in)),
      FALSE, &r);
  fail_unless (r.error == NULL, "%s: %" GST_PTR_FORMAT, desc, r.error);
  fail_unless_equals_int (g_list_length (r.out), 1);
  compare_frames (&info, want, r.out->data, desc);
  check_run_facts (&r, 1, desc);
  co_test_run_result_clear (&r);
  gst_buffer_unref (in);
  gst_buffer_unref (want);
  gst_caps_unref (caps);
  g_free (desc);
}

GST_END_TEST;

/* ------------------------------------------------------------------------ */
/* Suite                                                                     */
/* ------------------------------------------------------------------------ */

static void
teardown (void)
{
  co_test_leaks_check (TRUE);
}

static Suite *
cudamemory_suite (void)
{
  Suite *s = suite_create ("cudamemory");
  TCase *tc;

  tc = co_test_new_tcase (s, "templates", teardown);
  tcase_add_test (tc, test_templates);
  if (g_str_equal (co_test_backend, "cpu")) {
    tc = co_test_new_tcase (s, "no-gpu", teardown);
    tcase_add_loop_test (tc, test_caps_queries_no_cuda, 0, 2);
    tcase_add_loop_test (tc, test_pad_combinations, 0, 16);
    tcase_add_loop_test (tc, test_forced_at_link, 0, 4);
    tcase_add_loop_test (tc, test_system_only_format, 0,
        G_N_ELEMENTS (system_only_formats));
    co_test_add_loop_if (tc, test_fake_gpu, 0, G_N_ELEMENTS (fake_cases),
        co_test_hook_missing ("co_test_set_fake_cuda_memory"));
  } else {
    tc = co_test_new_tcase (s, "gpu", teardown);
    co_test_add_loop_if (tc, test_cuda_paths, 0,
        G_N_ELEMENTS (cuda_formats) * G_N_ELEMENTS (gpu_ops),
        nvcodec_missing ());
    co_test_add_loop_if (tc, test_context_shared, 0, 2, nvcodec_missing ());
    co_test_add_loop_if (tc, test_cuda_odd_size, 0,
        G_N_ELEMENTS (odd_size_formats), nvcodec_missing ());
  }
  tc = co_test_new_tcase (s, "both", teardown);
  tcase_add_test (tc, test_none_passthrough);
  return s;
}

int
main (int argc, char **argv)
{
  int rc = co_test_init (&argc, &argv, ELEMENT, DEFAULT_SEED, FALSE);
  Suite *s;
  SRunner *sr;
  int n_failed;

  if (rc != 0)
    return rc;
  s = cudamemory_suite ();
  sr = srunner_create (s);
  srunner_run_all (sr, CK_NORMAL);
  n_failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  co_test_leaks_free ();
  return co_test_exit_status (n_failed);
}
