/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * gst-check tests of cudavideofilter, what travels with the pictures:
 * timestamps and flags, metas (copied, or dropped where they describe the
 * input's memory), timecodes, and the same checks with frames sent in
 * batches. Outputs are compared with the independent reference in
 * co-reference.c; the set-up and the environment are co-test-video.h's.
 */

#include <string.h>
#include <stdlib.h>
#include <unistd.h>

#include "co-test-video.h"

/* ------------------------------------------------------------------------ */
/* Metadata                                                                  */
/* ------------------------------------------------------------------------ */

GST_START_TEST (test_timestamps_flags)
{
  guint32 seed = co_test_seed ("test_timestamps_flags", 0);
  GRand *rand = g_rand_new_with_seed (seed);
  const OpCfg *op = &op_cfgs[0];
  GstVideoInfo info;
  GstHarness *h = make_harness (op, &co_test_run_cfgs[5]);
  GQueue pending = G_QUEUE_INIT;
  gchar *ctx = g_strdup_printf ("[timestamps RGBx 17x9 backend=%s "
      "seed=0x%08x]", co_test_backend, seed);
  guint i;
  const guint n = 6;

  gst_harness_set_src_caps (h, caps_of (GST_VIDEO_FORMAT_RGBx, 17, 9, &info));
  for (i = 0; i < n; i++) {
    GstBuffer *in = make_input (rand, &info, &layout_default);
    GstBuffer *exp = make_expected (op, in, &info);

    GST_BUFFER_PTS (in) = GST_BUFFER_PTS (exp) = 1000 * GST_MSECOND +
        i * 33 * GST_MSECOND;
    GST_BUFFER_DTS (in) = GST_BUFFER_DTS (exp) = i == 3 ?
        GST_CLOCK_TIME_NONE : (GstClockTime) (990 * GST_MSECOND +
        i * 33 * GST_MSECOND);
    GST_BUFFER_DURATION (in) = GST_BUFFER_DURATION (exp) =
        (i == 4) ? GST_CLOCK_TIME_NONE : (GstClockTime) (33 * GST_MSECOND + i);
    if (i == 0)
      GST_BUFFER_FLAG_SET (in, GST_BUFFER_FLAG_DISCONT);
    if (i == 2)
      GST_BUFFER_FLAG_SET (in, GST_BUFFER_FLAG_MARKER);
    if (i == 5)
      GST_BUFFER_FLAG_SET (in, GST_BUFFER_FLAG_DISCONT |
          GST_BUFFER_FLAG_DELTA_UNIT);
    GST_MINI_OBJECT_FLAGS (exp) = GST_MINI_OBJECT_FLAGS (in);
    g_queue_push_tail (&pending, exp);
    fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_OK);
  }
  for (i = 0; i < n; i++) {
    GstBuffer *exp = g_queue_pop_head (&pending);
    GstBuffer *out = co_test_pull_buffer (h, ctx);
    const GstBufferFlags want = GST_BUFFER_FLAG_DISCONT |
        GST_BUFFER_FLAG_MARKER | GST_BUFFER_FLAG_DELTA_UNIT;

    fail_unless_equals_uint64 (GST_BUFFER_PTS (out), GST_BUFFER_PTS (exp));
    fail_unless_equals_uint64 (GST_BUFFER_DTS (out), GST_BUFFER_DTS (exp));
    fail_unless_equals_uint64 (GST_BUFFER_DURATION (out),
        GST_BUFFER_DURATION (exp));
    fail_unless_equals_int (GST_BUFFER_FLAGS (out) & want,
        GST_BUFFER_FLAGS (exp) & want);
    check_output (out, exp, &info, ctx);
    gst_buffer_unref (out);
    gst_buffer_unref (exp);
  }
  teardown_harness (h);
  g_free (ctx);
  g_rand_free (rand);
}

GST_END_TEST;

/* Metas: every meta without tags, or tagged only video/orientation/size,
 * reaches the output of its own input; the input's GstVideoMeta, metas
 * bound to its memory and metas tagged otherwise do not (co-test-meta.h
 * has the ones both elements share). */
#define GEOMETRY_META "CoTestGeometryMeta"
#define COLOUR_META "CoTestColourMeta"

static void
register_video_metas (void)
{
  static const gchar *geometry[] = { GST_META_TAG_VIDEO_STR,
    GST_META_TAG_VIDEO_SIZE_STR, NULL
  };
  static const gchar *colour[] = { GST_META_TAG_VIDEO_STR,
    GST_META_TAG_VIDEO_COLORSPACE_STR, NULL
  };

  co_test_custom_meta (GEOMETRY_META, geometry);
  co_test_custom_meta (COLOUR_META, colour);
}

/* Input @index's caption bytes (CEA-708 triplets) */
static gsize
caption_of (guint64 index, guint8 * cc)
{
  gsize i, n = 3 * (1 + index % 5);

  for (i = 0; i < n; i++)
    cc[i] = (guint8) (0xfc ^ (index * 7 + i));
  return n;
}

/* Input @index's rectangle (ROI, crop), inside the picture */
static void
rect_of (const GstVideoInfo * info, guint64 index, guint r[4])
{
  r[0] = index % GST_VIDEO_INFO_WIDTH (info);
  r[1] = (index * 3) % GST_VIDEO_INFO_HEIGHT (info);
  r[2] = GST_VIDEO_INFO_WIDTH (info) - r[0];
  r[3] = GST_VIDEO_INFO_HEIGHT (info) - r[1];
}

static void
add_video_metas (GstBuffer * buf, const GstVideoInfo * info, guint64 index)
{
  GstVideoRegionOfInterestMeta *roi;
  GstVideoCropMeta *crop;
  guint8 cc[16];
  guint r[4];

  register_video_metas ();
  co_test_add_common_metas (buf, index);
  gst_buffer_add_video_caption_meta (buf, GST_VIDEO_CAPTION_TYPE_CEA708_RAW,
      cc, caption_of (index, cc));
  gst_buffer_add_video_time_code_meta_full (buf, 30, 1, NULL,
      GST_VIDEO_TIME_CODE_FLAGS_NONE, 10, index / 1800 % 60, index / 30 % 60,
      index % 30, 0);
  rect_of (info, index, r);
  roi = gst_buffer_add_video_region_of_interest_meta (buf, "face", r[0], r[1],
      r[2], r[3]);
  roi->id = (gint) index;
  gst_video_region_of_interest_meta_add_param (roi,
      gst_structure_new ("detection", "index", G_TYPE_UINT64, index, NULL));
  crop = gst_buffer_add_video_crop_meta (buf);
  crop->x = r[0];
  crop->y = r[1];
  crop->width = r[2];
  crop->height = r[3];
  gst_buffer_add_video_affine_transformation_meta (buf)->matrix[12] =
      (gfloat) index;
  co_test_add_custom_meta (buf, GEOMETRY_META, index);
  co_test_add_custom_meta (buf, COLOUR_META, index);
}

/* @out came from an input with add_video_metas (@index), or, @index
 * negative, with none: what must be on it, and its GstVideoMeta describes
 * it (check_output maps it through that meta). */
static void
check_video_metas (GstBuffer * out, const GstVideoInfo * info, gint64 index,
    const gchar * ctx)
{
  const guint has = index >= 0;
  GstVideoCaptionMeta *cc = gst_buffer_get_video_caption_meta (out);
  GstVideoTimeCodeMeta *tc = gst_buffer_get_video_time_code_meta (out);
  GstVideoRegionOfInterestMeta *roi =
      gst_buffer_get_video_region_of_interest_meta (out);
  GstVideoCropMeta *crop = gst_buffer_get_video_crop_meta (out);
  GstVideoAffineTransformationMeta *affine =
      gst_buffer_get_video_affine_transformation_meta (out);
  GstVideoMeta *vm = gst_buffer_get_video_meta (out);
  guint8 want_cc[16];
  guint64 got = 0;
  guint r[4], p;

  register_video_metas ();
  co_test_check_common_metas (out, index, ctx);
  co_test_check_meta_count (out, GST_VIDEO_CAPTION_META_API_TYPE, has, ctx);
  co_test_check_meta_count (out, GST_VIDEO_TIME_CODE_META_API_TYPE, has, ctx);
  co_test_check_meta_count (out, GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE,
      has, ctx);
  co_test_check_meta_count (out, GST_VIDEO_CROP_META_API_TYPE, has, ctx);
  co_test_check_meta_count (out, GST_VIDEO_AFFINE_TRANSFORMATION_META_API_TYPE,
      has, ctx);
  co_test_check_custom_meta (out, GEOMETRY_META, index, ctx);
  co_test_check_custom_meta (out, COLOUR_META, -1, ctx);
  co_test_check_own_meta (out, GST_VIDEO_META_API_TYPE, ctx);
  for (p = 0; vm && p < vm->n_planes; p++)
    fail_unless (vm->stride[p] == GST_VIDEO_INFO_PLANE_STRIDE (info, p)
        && vm->offset[p] == GST_VIDEO_INFO_PLANE_OFFSET (info, p),
        "%s: the output's GstVideoMeta has plane %u at %" G_GSIZE_FORMAT
        " stride %d, not its own layout", ctx, p, vm->offset[p], vm->stride[p]);
  if (!has)
    return;

  fail_unless (cc->caption_type == GST_VIDEO_CAPTION_TYPE_CEA708_RAW
      && cc->size == caption_of (index, want_cc)
      && memcmp (cc->data, want_cc, cc->size) == 0,
      "%s: the captions of input %" G_GINT64_FORMAT " changed", ctx, index);
  fail_unless (gst_video_time_code_frames_since_daily_jam (&tc->tc) ==
      10 * 108000 + (guint64) index && tc->tc.config.fps_n == 30,
      "%s: timecode %02u:%02u:%02u:%02u on the output of input %"
      G_GINT64_FORMAT, ctx, tc->tc.hours, tc->tc.minutes, tc->tc.seconds,
      tc->tc.frames, index);
  rect_of (info, index, r);
  fail_unless (g_str_equal (g_quark_to_string (roi->roi_type), "face")
      && roi->x == r[0] && roi->y == r[1] && roi->w == r[2] && roi->h == r[3]
      && roi->id == (gint) index, "%s: ROI %s %u,%u %ux%u id %d on the "
      "output of input %" G_GINT64_FORMAT, ctx,
      g_quark_to_string (roi->roi_type), roi->x, roi->y, roi->w, roi->h,
      roi->id, index);
  fail_unless (gst_structure_get_uint64
      (gst_video_region_of_interest_meta_get_param (roi, "detection"),
          "index", &got) && got == (guint64) index,
      "%s: the ROI lost its parameters", ctx);
  fail_unless (crop->x == r[0] && crop->y == r[1] && crop->width == r[2]
      && crop->height == r[3], "%s: crop %u,%u %ux%u on the output of "
      "input %" G_GINT64_FORMAT, ctx, crop->x, crop->y, crop->width,
      crop->height, index);
  fail_unless (affine->matrix[12] == (gfloat) index, "%s: the affine "
      "transformation of another input", ctx);
}

/* Pushes a random picture (input @index: PTS @index frames), with the
 * metas of add_video_metas() when @metas; queues its expected output, the
 * index in its OFFSET (NONE without metas). */
static void
push_meta_frame (GstHarness * h, GRand * rand, const GstVideoInfo * info,
    const OpCfg * op, const Layout * lay, guint64 index, gboolean metas,
    GQueue * pending, const gchar * ctx)
{
  GstBuffer *in = make_input (rand, info, lay);
  GstBuffer *exp = make_expected (op, in, info);

  if (metas)
    add_video_metas (in, info, index);
  GST_BUFFER_PTS (in) = GST_BUFFER_PTS (exp) = index * GST_SECOND / 30;
  GST_BUFFER_OFFSET (exp) = metas ? index : GST_BUFFER_OFFSET_NONE;
  g_queue_push_tail (pending, exp);
  fail_unless (gst_harness_push (h, in) == GST_FLOW_OK, "%s: push of input "
      "%" G_GUINT64_FORMAT " failed", ctx, index);
}

/* The next output: its pixels and metas checked.  Returned (unref it). */
static GstBuffer *
pull_meta_frame (GstHarness * h, const GstVideoInfo * info, GQueue * pending,
    const gchar * ctx)
{
  GstBuffer *exp = g_queue_pop_head (pending);
  GstBuffer *out = co_test_pull_buffer (h, ctx);
  gchar *c = g_strdup_printf ("%s, frame pts %" GST_TIME_FORMAT, ctx,
      GST_TIME_ARGS (GST_BUFFER_PTS (exp)));

  fail_unless_equals_uint64 (GST_BUFFER_PTS (out), GST_BUFFER_PTS (exp));
  check_output (out, exp, info, c);
  check_video_metas (out, info, GST_BUFFER_OFFSET_IS_VALID (exp) ?
      (gint64) GST_BUFFER_OFFSET (exp) : -1, c);
  gst_buffer_unref (exp);
  g_free (c);
  return out;
}

/* @c through a new harness: 2 x batch + 1 frames (the last batch partial,
 * sent by EOS), two in three with metas when @metas; every output checked
 * (pixels, metas) in order.  Returns the harness, *@ctx names @what, @c and
 * @seed. */
static GstHarness *
run_batch_case (const BatchCase * c, const gchar * what, gboolean metas,
    guint32 seed, GstVideoInfo * info, gchar ** ctx)
{
  const OpCfg *op = &op_cfgs[c->op];
  const RunCfg *run = &co_test_run_cfgs[c->run];
  const Layout *lay = c->padded ? &layout_padded : &layout_default;
  const guint n = 2 * c->batch + 1;
  GstHarness *h = make_harness (op, run);
  GRand *rand = g_rand_new_with_seed (seed);
  GQueue pending = G_QUEUE_INIT;
  gchar *rd = co_test_run_desc (run), *od = op_desc (op);
  guint i;

  *ctx = g_strdup_printf ("[%s, batch=%u, %u frames, %s %s %ux%u%s %s "
      "submit-thread=%d backend=%s seed=0x%08x]", what, c->batch, n, od,
      gst_video_format_to_string (c->format), c->w, c->h,
      c->padded ? " padded" : "", rd, c->submit_thread, co_test_backend, seed);
  g_object_set (h->element, "batch", c->batch, "submit-thread",
      c->submit_thread, NULL);
  gst_harness_set_src_caps (h, caps_of (c->format, c->w, c->h, info));
  for (i = 0; i < n; i++)
    push_meta_frame (h, rand, info, op, lay, i, metas && i % 3 != 1,
        &pending, *ctx);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()),
      "%s: EOS not handled", *ctx);
  /* EOS sent the partial batch and drained: every output is there */
  fail_unless_equals_int (gst_harness_buffers_in_queue (h), n);
  for (i = 0; i < n; i++)
    gst_buffer_unref (pull_meta_frame (h, info, &pending, *ctx));
  g_free (rd);
  g_free (od);
  g_rand_free (rand);
  return h;
}

/* batch=1; test_batch has the same checks with batches */
static const BatchCase meta_cases[] = {
  {0, GST_VIDEO_FORMAT_NV12, 33, 17, 1, 3, TRUE, FALSE},
  {2, GST_VIDEO_FORMAT_I420, 161, 91, 1, 6, TRUE, FALSE},
  {5, GST_VIDEO_FORMAT_RGBA, 65, 35, 1, 5, FALSE, TRUE},
};

/* Three inputs, two with every kind of meta (and the input's GstVideoMeta
 * with padded strides where asked), pushed at once, then EOS; every output
 * has its own input's metas, the copied ones only. */
GST_START_TEST (test_metas_survive)
{
  GstVideoInfo info;
  gchar *ctx;
  GstHarness *h = run_batch_case (&meta_cases[__i__], "metas", TRUE,
      co_test_seed ("test_metas_survive", __i__), &info, &ctx);

  teardown_harness (h);
  g_free (ctx);
}

GST_END_TEST;

static const struct
{
  const gchar *name;
  guint batch;
} stale_variants[] = {
  {.name = "batch-1",.batch = 1},
  {.name = "batch-3",.batch = 3},
};

/* Output buffers go back to the element's pool and come out again: one
 * that carried copied metas carries none of them the next time (copies are
 * never POOLED, so the pool drops them when the buffer returns). */
GST_START_TEST (test_metas_not_stale)
{
  guint32 seed = co_test_seed ("test_metas_not_stale", __i__);
  GRand *rand = g_rand_new_with_seed (seed);
  const guint batch = stale_variants[__i__].batch;
  GstVideoInfo info;
  GstHarness *h = make_harness (&op_cfgs[0], &co_test_run_cfgs[2]);
  GQueue pending = G_QUEUE_INIT;
  GPtrArray *with_metas = g_ptr_array_new ();
  gchar *ctx = g_strdup_printf ("[stale metas, batch=%u, invert NV12 33x17 "
      "backend=%s seed=0x%08x]", batch, co_test_backend, seed);
  guint i, round, reused = 0;

  co_test_print_variant ("test_metas_not_stale", __i__,
      stale_variants[__i__].name);
  g_object_set (h->element, "batch", batch, NULL);
  gst_harness_set_src_caps (h, caps_of (GST_VIDEO_FORMAT_NV12, 33, 17, &info));
  for (round = 0; round < 200 && reused < batch; round++) {
    for (i = 0; i < batch; i++)
      push_meta_frame (h, rand, &info, &op_cfgs[0], &layout_default,
          round * batch + i, round == 0, &pending, ctx);
    for (i = 0; i < batch; i++) {
      GstBuffer *out = pull_meta_frame (h, &info, &pending, ctx);

      /* only compared, never dereferenced: the pool keeps them alive */
      if (round == 0)
        g_ptr_array_add (with_metas, out);
      else if (g_ptr_array_find (with_metas, out, NULL))
        reused++;
      gst_buffer_unref (out);
    }
  }
  fail_unless (reused == batch, "%s: in %u rounds the pool gave back only "
      "%u of the %u output buffers that carried metas", ctx, round, reused,
      batch);

  g_ptr_array_unref (with_metas);
  teardown_harness (h);
  g_free (ctx);
  g_rand_free (rand);
}

GST_END_TEST;

/* The timecodes of a pipeline with the element (at batch=1 and with
 * partial batches) are those of the same pipeline without it. */
static GPtrArray *
timecodes_through (const gchar * filter, guint n, const gchar * ctx)
{
  gchar *desc = g_strdup_printf ("videotestsrc num-buffers=%u "
      "pattern=ball ! video/x-raw,format=NV12,width=33,height=17,"
      "framerate=30/1 ! timecodestamper ! %s ! appsink name=sink "
      "sync=false", n, filter);
  GError *err = NULL;
  GstElement *pipe = gst_parse_launch (desc, &err);
  GPtrArray *tcs = g_ptr_array_new_with_free_func (g_free);
  GstElement *sink;
  GstSample *sample;
  GstBus *bus;
  GstMessage *msg;

  fail_unless (pipe != NULL, "%s: %s: %s", ctx, desc, err ? err->message : "");
  sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
  bus = gst_element_get_bus (pipe);
  fail_unless (gst_element_set_state (pipe, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE, "%s: %s does not start", ctx, desc);
  for (;;) {
    GstVideoTimeCodeMeta *tc;

    g_signal_emit_by_name (sink, "pull-sample", &sample);
    if (!sample)
      break;
    tc = gst_buffer_get_video_time_code_meta (gst_sample_get_buffer (sample));
    g_ptr_array_add (tcs, tc ? gst_video_time_code_to_string (&tc->tc) :
        g_strdup ("none"));
    gst_sample_unref (sample);
  }
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  if (msg) {
    gchar *t = co_test_error_text (msg);
    fail ("%s: %s: %s", ctx, desc, t);
    g_free (t);
  }
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (sink);
  gst_object_unref (pipe);
  g_free (desc);
  return tcs;
}

static const struct
{
  const gchar *name;
  guint batch;
  const gchar *mode;
} timecode_variants[] = {
  {.name = "batch-1",.batch = 1,.mode = "overlap"},
  {.name = "batch-4",.batch = 4,.mode = "overlap"},
  {.name = "batch-4-serial",.batch = 4,.mode = "serial"},
};

GST_START_TEST (test_timecodestamper)
{
  const guint batch = timecode_variants[__i__].batch, n = 11;
  const gchar *mode = timecode_variants[__i__].mode;
  gchar *filter =
      g_strdup_printf (CO_TEST_VIDEO_ELEMENT " backend=%s batch=%u mode=%s",
      co_test_backend, batch, mode);
  gchar *ctx = g_strdup_printf ("[timecodestamper ! %s]", filter);
  GPtrArray *want, *got;
  guint i;

  co_test_print_variant ("test_timecodestamper", __i__,
      timecode_variants[__i__].name);
  /* the suite adds this test only where timecodestamper exists */
  fail_unless (gst_registry_check_feature_version (gst_registry_get (),
          "timecodestamper", 1, 0, 0), "%s: no timecodestamper", ctx);
  want = timecodes_through ("identity", n, ctx);
  got = timecodes_through (filter, n, ctx);
  fail_unless_equals_int (want->len, n);
  fail_unless_equals_int (got->len, n);
  for (i = 0; i < n; i++) {
    const gchar *w = g_ptr_array_index (want, i);
    const gchar *g = g_ptr_array_index (got, i);
    fail_unless (!g_str_equal (w, "none") && g_str_equal (w, g),
        "%s: frame %u has timecode %s, without the element %s", ctx, i, g, w);
  }
  g_ptr_array_unref (want);
  g_ptr_array_unref (got);
  g_free (filter);
  g_free (ctx);
}

GST_END_TEST;

/* ------------------------------------------------------------------------ */
/* Batches (batch > 1: several frames per device submission)                 */
/* ------------------------------------------------------------------------ */

static const BatchCase batch_cases[] = {
  {0, GST_VIDEO_FORMAT_GRAY8, 97, 33, 4, 3, FALSE, FALSE},
  {7, GST_VIDEO_FORMAT_NV12, 130, 70, 3, 5, TRUE, FALSE},
  {2, GST_VIDEO_FORMAT_I420, 75, 41, 5, 6, FALSE, FALSE},
  {0, GST_VIDEO_FORMAT_RGBA, 1921, 1081, 2, 2, TRUE, FALSE},
  {5, GST_VIDEO_FORMAT_GRAY16_LE, 333, 77, 16, 0, FALSE, FALSE},
  {6, GST_VIDEO_FORMAT_BGRx, 33, 17, 7, 4, FALSE, FALSE},
  {0, GST_VIDEO_FORMAT_GRAY8, 640, 480, 8, 4, FALSE, TRUE},
  /* rows without padding: a chunk's 2 x 4 plane copies are plain ones, which
   * the CUDA backend queues in one cudaMemcpyBatchAsync per direction */
  {0, GST_VIDEO_FORMAT_NV12, 256, 34, 4, 3, FALSE, FALSE},
  /* the same from larger frames (1.2 MB) */
  {0, GST_VIDEO_FORMAT_RGBA, 640, 480, 4, 3, FALSE, FALSE},
  /* chroma in its own geometry in every image of a batch */
  {6, GST_VIDEO_FORMAT_Y42B, 75, 41, 4, 5, TRUE, FALSE},
  {2, GST_VIDEO_FORMAT_Y444_16LE, 33, 17, 5, 3, FALSE, FALSE},
  {5, GST_VIDEO_FORMAT_NV21, 97, 33, 3, 4, FALSE, TRUE},
  {0, GST_VIDEO_FORMAT_BGR, 65, 35, 6, 1, TRUE, FALSE},
  /* samples with padding bits, cleared in every image */
  {0, GST_VIDEO_FORMAT_P010_10LE, 75, 41, 4, 5, TRUE, FALSE},
  {1, GST_VIDEO_FORMAT_I420_10LE, 33, 17, 3, 3, FALSE, TRUE},
  {7, GST_VIDEO_FORMAT_P016_LE, 65, 35, 5, 1, FALSE, FALSE},
  {6, GST_VIDEO_FORMAT_P010_10LE, 97, 33, 3, 4, FALSE, FALSE},
  /* packed: each 4:2:2 component on its own grid, 10-bit words with their
   * alpha, in every image of a batch (odd widths) */
  {7, GST_VIDEO_FORMAT_YUY2, 75, 41, 4, 5, TRUE, FALSE},
  {2, GST_VIDEO_FORMAT_RGB10A2_LE, 33, 17, 5, 3, FALSE, FALSE},
  {0, GST_VIDEO_FORMAT_UYVY, 97, 33, 3, 4, FALSE, TRUE},
  {8, GST_VIDEO_FORMAT_BGR10A2_LE, 65, 35, 6, 1, TRUE, FALSE},
};

/* 2 x batch + 1 frames (the last batch partial, sent by EOS), every output
 * compared with the reference, in order, and with its own input's metas
 * (test_metas_survive); the statistics count every frame and the passport
 * names the batch. */
GST_START_TEST (test_batch)
{
  const BatchCase *c = &batch_cases[__i__];
  const guint n = 2 * c->batch + 1;
  GstVideoInfo info;
  gchar *ctx;
  GstHarness *h = run_batch_case (c, "batch", TRUE,
      co_test_seed ("test_batch", __i__), &info, &ctx);
  GstStructure *st = NULL;
  guint v = 0;
  guint64 frames = 0;

  g_object_get (h->element, "stats", &st, NULL);
  fail_unless (st != NULL, "%s: no statistics", ctx);
  fail_unless (gst_structure_get_uint64 (st, "frames", &frames));
  fail_unless_equals_uint64 (frames, n);
  if (g_str_equal (co_test_backend, "cuda")
      && GST_VIDEO_INFO_SIZE (&info) >= (1 << 20)) {
    /* the harness's frames are malloc()ed, a new GstMemory each: seen
     * once, each is staged (copied into page-locked memory by a few
     * threads), never registered for one use */
    fail_unless (gst_structure_get_uint64 (st, "frames-staged", &frames));
    fail_unless_equals_uint64 (frames, n);
  }
  gst_structure_free (st);
  g_object_get (h->element, "passport", &st, NULL);
  fail_unless (st != NULL && gst_structure_get_uint (st, "batch", &v));
  fail_unless_equals_int (v, c->batch);
  gst_structure_free (st);

  teardown_harness (h);
  g_free (ctx);
}

GST_END_TEST;

/* ------------------------------------------------------------------------ */
/* Suite                                                                     */
/* ------------------------------------------------------------------------ */

static Suite *
video_stream_suite (void)
{
  Suite *s = suite_create (CO_TEST_VIDEO_ELEMENT "-stream");
  TCase *tc;

  tc = co_test_new_tcase (s, "stream", leaks_teardown);
  tcase_add_test (tc, test_timestamps_flags);
  tcase_add_loop_test (tc, test_metas_survive, 0, G_N_ELEMENTS (meta_cases));
  tcase_add_loop_test (tc, test_metas_not_stale, 0,
      G_N_ELEMENTS (stale_variants));
  /* timecodestamper is gst-plugins-bad's: without it, skipped */
  co_test_add_loop_if (tc, test_timecodestamper, 0,
      G_N_ELEMENTS (timecode_variants),
      gst_registry_check_feature_version (gst_registry_get (),
          "timecodestamper", 1, 0, 0) ? NULL :
      "no timecodestamper element (gst-plugins-bad)");
  tcase_add_loop_test (tc, test_batch, 0, G_N_ELEMENTS (batch_cases));

  return s;
}

int
main (int argc, char **argv)
{
  return co_test_video_main (argc, argv, "video-stream", video_stream_suite);
}
