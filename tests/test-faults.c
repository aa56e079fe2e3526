/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Fault injection at every device call point.
 *
 * A clean run lists the points a pipeline passes (co_fault_points(): on
 * the CPU backend its allocations, thread starts, submissions and chunk
 * runs; on the CUDA backend every cudart call and kernel launch, and the
 * host-memory registry's calls).  Then, for each point, the same pipeline
 * runs with that point failing (from its first call, and from a call in
 * the middle of the stream): it must end in an element error within a
 * second of the failure, set_state (NULL) must return, nothing may leak,
 * and the same pipeline, disarmed, must run again from NULL to PLAYING and
 * give every frame right (against the naive reference in co-reference.c).
 *
 * Needs a -Dfault-injection build (make check's); elsewhere it skips,
 * saying so.  CO_TEST_BACKEND=cuda runs it on the GPU.
 */
#include <gst/check/gstcheck.h>
#include <gst/app/gstappsrc.h>
#include <gst/app/gstappsink.h>
#include <gst/video/video.h>

#include "co-reference.h"
#include "co-test-fault.h"
#include "co-test-util.h"

#define ELEMENT "cudavideofilter"
#define DEFAULT_SEED 0xfa017u
#define WIDTH 161
#define HEIGHT 93
#define N_FRAMES 12

typedef gchar **(*CoTestFaultPoints) (void);
typedef guint64 (*CoTestFaultCount) (const gchar * point);
typedef guint64 (*CoTestFaultInjected) (void);

static CoTestFaultArm fault_arm;
static CoTestFaultPoints fault_points;
static CoTestFaultCount fault_count;
static CoTestFaultInjected fault_injected;

typedef struct
{
  GstElement *pipeline, *src, *filter, *sink;
  GstVideoInfo info;
  GstBuffer *inputs[N_FRAMES];
} Run;

static void
run_init (Run * r, guint32 seed, const gchar * props)
{
  GRand *rand = g_rand_new_with_seed (seed);
  GstCaps *caps;
  gchar *desc;
  guint i, k;

  desc = g_strdup_printf ("appsrc name=src format=time ! %s name=f "
      "backend=%s operation=invert %s ! appsink name=sink sync=false",
      ELEMENT, co_test_backend, props);
  r->pipeline = gst_parse_launch (desc, NULL);
  g_free (desc);
  fail_unless (r->pipeline != NULL);
  r->src = gst_bin_get_by_name (GST_BIN (r->pipeline), "src");
  r->filter = gst_bin_get_by_name (GST_BIN (r->pipeline), "f");
  r->sink = gst_bin_get_by_name (GST_BIN (r->pipeline), "sink");
  gst_video_info_set_format (&r->info, GST_VIDEO_FORMAT_RGBA, WIDTH, HEIGHT);
  caps = gst_video_info_to_caps (&r->info);
  g_object_set (r->src, "caps", caps, NULL);
  g_object_set (r->sink, "max-buffers", 0, "wait-on-eos", FALSE, NULL);
  gst_caps_unref (caps);
  /* fresh data, never zeros; malloc()ed frames (on CUDA staged the first
   * time each is pushed, registered when it is pushed again: the staging
   * copies and the registry meet the injected faults) */
  for (i = 0; i < N_FRAMES; i++) {
    GstMapInfo map;

    r->inputs[i] = gst_buffer_new_allocate (NULL, r->info.size, NULL);
    gst_buffer_map (r->inputs[i], &map, GST_MAP_WRITE);
    for (k = 0; k < map.size; k++)
      map.data[k] = (guint8) g_rand_int (rand);
    gst_buffer_unmap (r->inputs[i], &map);
    GST_BUFFER_PTS (r->inputs[i]) = i * GST_MSECOND;
    GST_BUFFER_DURATION (r->inputs[i]) = GST_MSECOND;
  }
  g_rand_free (rand);
}

static void
run_clear (Run * r)
{
  guint i;

  gst_element_set_state (r->pipeline, GST_STATE_NULL);
  for (i = 0; i < N_FRAMES; i++)
    gst_buffer_unref (r->inputs[i]);
  gst_object_unref (r->src);
  gst_object_unref (r->filter);
  gst_object_unref (r->sink);
  gst_object_unref (r->pipeline);
}

/* PLAYING, the frames, EOS; returns the ERROR or EOS message (or NULL after
 * @timeout_ms) and the time it took. */
static GstMessage *
run_once (Run * r, guint timeout_ms, gint64 * elapsed_us)
{
  GstBus *bus = gst_element_get_bus (r->pipeline);
  gint64 t0 = g_get_monotonic_time ();
  GstMessage *msg;
  guint i;

  gst_element_set_state (r->pipeline, GST_STATE_PLAYING);
  for (i = 0; i < N_FRAMES; i++)
    gst_app_src_push_buffer (GST_APP_SRC (r->src),
        gst_buffer_ref (r->inputs[i]));
  gst_app_src_end_of_stream (GST_APP_SRC (r->src));
  msg = gst_bus_timed_pop_filtered (bus, timeout_ms * GST_MSECOND,
      GST_MESSAGE_ERROR | GST_MESSAGE_EOS);
  *elapsed_us = g_get_monotonic_time () - t0;
  gst_object_unref (bus);
  return msg;
}

/* Every output frame against the reference. */
static void
check_outputs (Run * r, const gchar * ctx)
{
  guint i;

  for (i = 0; i < N_FRAMES; i++) {
    GstSample *s = gst_app_sink_try_pull_sample (GST_APP_SINK (r->sink), 0);
    GstBuffer *exp = gst_buffer_new_allocate (NULL, r->info.size, NULL);
    GstVideoFrame in, out, got;
    gchar *msg = NULL;

    fail_unless (s != NULL, "%s: frame %u of %u missing", ctx, i, N_FRAMES);
    fail_unless (gst_video_frame_map (&in, &r->info, r->inputs[i],
            GST_MAP_READ));
    fail_unless (gst_video_frame_map (&out, &r->info, exp, GST_MAP_WRITE));
    co_ref_apply (CO_REF_INVERT, 1.0, 0, &in, &out);
    fail_unless (gst_video_frame_map (&got, &r->info,
            gst_sample_get_buffer (s), GST_MAP_READ));
    fail_unless (co_ref_compare (&out, &got, &msg), "%s: frame %u: %s", ctx,
        i, msg);
    gst_video_frame_unmap (&in);
    gst_video_frame_unmap (&out);
    gst_video_frame_unmap (&got);
    gst_buffer_unref (exp);
    gst_sample_unref (s);
  }
}

static void
clean_run (Run * r, const gchar * ctx)
{
  gint64 us;
  GstMessage *msg = run_once (r, 20000, &us);

  fail_unless (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS,
      "%s: the disarmed pipeline did not reach EOS (%s)", ctx,
      msg ? co_test_error_text (msg) : "timed out");
  gst_message_unref (msg);
  check_outputs (r, ctx);
  fail_unless_equals_int (gst_element_set_state (r->pipeline,
          GST_STATE_NULL), GST_STATE_CHANGE_SUCCESS);
}

/* One point failing from its @nth call.  Two outcomes are right: an
 * element error within a second of the start (the frames stop), or, where
 * the element has a way around the failure (a refused registration or
 * pointer query: a staged copy; a failed release: said, and the memory
 * given up), EOS with every frame right.  A hang, a crash, or EOS with a
 * missing or wrong frame is a failure. */
static void
failing_run (Run * r, const gchar * point, guint64 nth, const gchar * ctx,
    guint * n_errors, guint * n_absorbed)
{
  GstMessage *msg;
  gint64 us;

  fault_arm (point, (gint64) nth);
  msg = run_once (r, 5000, &us);
  fail_unless (msg != NULL, "%s: no EOS or error in 5 s (a hang?)", ctx);
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    GstSample *s;

    /* the run itself takes a few ms: the error came within a second */
    fail_unless (us < G_USEC_PER_SEC, "%s: the error took %" G_GINT64_FORMAT
        " us", ctx, us);
    while ((s = gst_app_sink_try_pull_sample (GST_APP_SINK (r->sink), 0)))
      gst_sample_unref (s);
    (*n_errors)++;
  } else {
    /* absorbed (or not reached): then every frame came out right */
    check_outputs (r, ctx);
    (*n_absorbed)++;
  }
  gst_message_unref (msg);
  fail_unless (gst_element_set_state (r->pipeline, GST_STATE_NULL) ==
      GST_STATE_CHANGE_SUCCESS, "%s: set_state (NULL) failed", ctx);
  fault_arm (NULL, -1);
}

/* A failed check leaves the test at once (unforked on the GPU): disarm and
 * stop what it left, so the next test and the exit are clean. */
static Run *current_run;

static void
faults_teardown (void)
{
  if (fault_arm)
    fault_arm (NULL, -1);
  if (current_run) {
    run_clear (current_run);
    current_run = NULL;
  }
}

static void
all_points (const gchar * props)
{
  guint32 seed = co_test_seed ("all_points", g_str_hash (props));
  gchar **points, **p;
  Run r;
  guint n = 0, n_errors = 0, n_absorbed = 0;

  /* main() skips the program without the hooks */
  fail_unless (fault_arm != NULL);
  run_init (&r, seed, props);
  current_run = &r;
  co_test_leaks_setup ();
  fault_arm (NULL, -1);         /* counts from here */
  clean_run (&r, "[clean run]");
  points = fault_points ();
  fail_unless (points && points[0], "no fault point was passed");
  for (p = points; *p; p++) {
    guint64 calls = fault_count (*p);
    gchar *ctx;

    ctx = g_strdup_printf ("[%s, %s, first of %" G_GUINT64_FORMAT " calls, "
        "backend=%s seed=0x%08x]", props, *p, calls, co_test_backend, seed);
    failing_run (&r, *p, 0, ctx, &n_errors, &n_absorbed);
    clean_run (&r, ctx);
    g_free (ctx);
    if (calls > 2) {
      ctx = g_strdup_printf ("[%s, %s, from call %" G_GUINT64_FORMAT " of %"
          G_GUINT64_FORMAT ", backend=%s seed=0x%08x]", props, *p,
          calls / 2, calls, co_test_backend, seed);
      failing_run (&r, *p, calls / 2, ctx, &n_errors, &n_absorbed);
      clean_run (&r, ctx);
      g_free (ctx);
    }
    n++;
  }
  {
    gchar *names = g_strjoinv (" ", points);

    g_print ("%s: %u fault points (%s), each failed from its first call and "
        "from mid-stream, each followed by a clean run: %u element errors, "
        "%u failures absorbed with every frame right\n", props, n, names,
        n_errors, n_absorbed);
    g_free (names);
  }
  g_strfreev (points);
  current_run = NULL;
  run_clear (&r);
  co_test_leaks_check (TRUE);
}

GST_START_TEST (test_fault_points)
{
  all_points ("streams=2 chunks=2");
}

GST_END_TEST;

GST_START_TEST (test_fault_points_batch_submit_thread)
{
  all_points ("streams=3 chunks=1 batch=2 submit-thread=true");
}

GST_END_TEST;

static Suite *
faults_suite (void)
{
  Suite *s = suite_create ("faults");
  TCase *tc = tcase_create ("points");

  tcase_set_timeout (tc, 600);
  tcase_add_checked_fixture (tc, NULL, faults_teardown);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_fault_points);
  tcase_add_test (tc, test_fault_points_batch_submit_thread);
  return s;
}

int
main (int argc, char **argv)
{
  int nf = co_test_init (&argc, &argv, ELEMENT, DEFAULT_SEED, FALSE);

  if (nf != 0)
    return nf;
  fault_arm = co_test_plugin_symbol ("co_fault_arm");
  fault_points = co_test_plugin_symbol ("co_fault_points");
  fault_count = co_test_plugin_symbol ("co_fault_count");
  fault_injected = co_test_plugin_symbol ("co_fault_injected");
  if (!fault_arm || !fault_points || !fault_count || !fault_injected) {
    g_print ("SKIP: this build has no fault injection (configure with "
        "-Dfault-injection=true, as make check does)\n");
    co_test_leaks_free ();
    return 77;
  }
  nf = gst_check_run_suite (faults_suite (), "faults", __FILE__);
  co_test_leaks_free ();
  return nf == 0 ? 0 : 1;
}
