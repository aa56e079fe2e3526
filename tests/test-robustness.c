/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cudavideofilter (and cudaaudiofilter's DRAIN) where upstream, downstream
 * or the application do what a plain pipeline does not: sparse buffers, a
 * small upstream pool, ALLOCATION/LATENCY/DRAIN queries, settings switched
 * at any rate, state changes from streaming threads, contradicting video
 * metas, properties set while PLAYING.  One concern per test; its variants
 * are the named rows of its table, named in every failure.  Every output
 * frame is compared with the reference (co-reference.c); waits are bounded
 * and a watchdog aborts a test that hangs.  Environment: co-test-util.h.
 */

#include <string.h>
#include <stdlib.h>
#include <signal.h>
#include <unistd.h>

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/app/gstappsrc.h>
#include <gst/app/gstappsink.h>
#include <gst/video/video.h>

#include "co-reference.h"
#include "co-test-fault.h"
#include "co-test-util.h"

#define ELEMENT "cudavideofilter"
#define DEFAULT_SEED 0x0b0575u
/* the bound of a wait for one buffer or message */
#define WAIT (5 * GST_SECOND)

static CoTestFaultArm fault_arm;

/* ---- Watchdog, pipelines, harnesses ------------------------------------- */

static gchar wd_what[256];

static void
wd_fire (int sig)
{
  static const char head[] = "\n*** watchdog: did not end in time (a hang): ";

  if (write (2, head, sizeof (head) - 1) < 0 ||
      write (2, wd_what, strlen (wd_what)) < 0)
    _exit (128 + sig);
  abort ();
}

/* @what must end within @seconds, else the process aborts naming it. */
static void
wd_arm (guint seconds, const gchar * what)
{
  g_strlcpy (wd_what, what, sizeof (wd_what));
  signal (SIGALRM, wd_fire);
  alarm (seconds);
}

/* appsrc (non-live, format=time) ! element ! appsink (sync=false) */
typedef struct
{
  GstElement *pipeline, *src, *filter, *sink;
  GstBus *bus;
  GstVideoInfo info;
} Pipe;

/* What the running test made: the teardown frees what a failed check left
 * behind, so that an unforked run goes on with the next test. */
static GList *live_pipes, *live_harnesses;

static GstCaps *
video_caps (GstVideoFormat format, guint w, guint h, gint fps_n, gint fps_d,
    GstVideoInfo * info)
{
  gst_video_info_init (info);
  fail_unless (gst_video_info_set_format (info, format, w, h));
  GST_VIDEO_INFO_FPS_N (info) = fps_n;
  GST_VIDEO_INFO_FPS_D (info) = fps_d;
  return gst_video_info_to_caps (info);
}

static Pipe *
pipe_new (GstVideoFormat format, guint w, guint h, gint fps_n, gint fps_d,
    const gchar * props)
{
  Pipe *p = g_new0 (Pipe, 1);
  GError *err = NULL;
  gchar *desc = g_strdup_printf ("appsrc name=src format=time ! " ELEMENT
      " name=f backend=%s %s ! appsink name=sink sync=false", co_test_backend,
      props);
  GstCaps *caps;

  p->pipeline = gst_parse_launch (desc, &err);
  fail_unless (p->pipeline != NULL && err == NULL, "cannot make \"%s\": %s",
      desc, err ? err->message : "");
  g_free (desc);
  gst_object_ref_sink (p->pipeline);
  p->src = gst_bin_get_by_name (GST_BIN (p->pipeline), "src");
  p->filter = gst_bin_get_by_name (GST_BIN (p->pipeline), "f");
  p->sink = gst_bin_get_by_name (GST_BIN (p->pipeline), "sink");
  p->bus = gst_element_get_bus (p->pipeline);
  caps = video_caps (format, w, h, fps_n, fps_d, &p->info);
  g_object_set (p->src, "caps", caps, NULL);
  gst_caps_unref (caps);
  live_pipes = g_list_prepend (live_pipes, p);
  return p;
}

static void
pipe_free (Pipe * p)
{
  live_pipes = g_list_remove (live_pipes, p);
  gst_element_set_state (p->pipeline, GST_STATE_NULL);
  gst_object_unref (p->src);
  gst_object_unref (p->filter);
  gst_object_unref (p->sink);
  gst_object_unref (p->bus);
  gst_object_unref (p->pipeline);
  g_free (p);
}

static void
pipe_play (Pipe * p)
{
  fail_unless (gst_element_set_state (p->pipeline, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
}

/* The next output buffer, or NULL after @timeout (or at EOS). */
static GstBuffer *
pipe_pull (Pipe * p, GstClockTime timeout)
{
  GstSample *s = gst_app_sink_try_pull_sample (GST_APP_SINK (p->sink),
      timeout);
  GstBuffer *b = s ? gst_buffer_ref (gst_sample_get_buffer (s)) : NULL;

  if (s)
    gst_sample_unref (s);
  return b;
}

static void
check_no_error (GstBus * bus, const gchar * ctx)
{
  GstMessage *m = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);

  fail_unless (m == NULL, "%s: an ERROR on the bus: %s", ctx,
      m ? co_test_error_text (m) : "");
}

/* A harness on a new @element with @props ("name=value ..."); with @bus,
 * the element posts on a bus of the test's (a harness has none). */
static GstHarness *
harness_new (const gchar * element, const gchar * props, GstBus ** bus)
{
  GstElement *e = co_test_make_element (element);
  gchar **kv = g_strsplit (props, " ", -1), **p;
  GstHarness *h;

  for (p = kv; *p; p++) {
    gchar **pair = g_strsplit (*p, "=", 2);

    if (pair[0] && pair[1])
      gst_util_set_object_arg (G_OBJECT (e), pair[0], pair[1]);
    g_strfreev (pair);
  }
  g_strfreev (kv);
  h = gst_harness_new_with_element (e, "sink", "src");
  gst_object_unref (e);
  if (bus) {
    *bus = gst_bus_new ();
    gst_element_set_bus (h->element, *bus);
  }
  live_harnesses = g_list_prepend (live_harnesses, h);
  return h;
}

static void
harness_free (GstHarness * h, GstBus * bus)
{
  live_harnesses = g_list_remove (live_harnesses, h);
  if (bus)
    gst_element_set_bus (h->element, NULL);
  gst_harness_teardown (h);
  if (bus) {
    gst_bus_set_flushing (bus, TRUE);
    gst_object_unref (bus);
  }
}

static void
robustness_teardown (void)
{
  gboolean left = live_pipes || live_harnesses;

  alarm (0);
  gst_check_clear_log_filter ();
  if (fault_arm)
    fault_arm (NULL, -1);
  while (live_pipes)
    pipe_free (live_pipes->data);
  while (live_harnesses) {
    GstHarness *h = live_harnesses->data;

    live_harnesses = g_list_remove (live_harnesses, h);
    gst_element_set_state (h->element, GST_STATE_NULL);
    gst_harness_teardown (h);
  }
  /* a test that failed half-way: what it held is not a leak to report */
  if (left)
    co_test_leaks_stop ();
  else
    co_test_leaks_check (TRUE);
}

/* ---- Frames and the reference ------------------------------------------- */

/* Frame @i of a run: random bytes from the run's @seed and @i (a checker
 * makes the same input again), PTS @i ms. */
static void
fill_frame (GstBuffer * buf, guint32 seed, guint i)
{
  GRand *rand = g_rand_new_with_seed (seed ^ (i * 0x9e3779b9u));
  GstMapInfo map;

  fail_unless (gst_buffer_map (buf, &map, GST_MAP_WRITE));
  co_test_fill_random (rand, map.data, map.size);
  gst_buffer_unmap (buf, &map);
  g_rand_free (rand);
  GST_BUFFER_PTS (buf) = i * GST_MSECOND;
  GST_BUFFER_DURATION (buf) = GST_MSECOND;
}

static GstBuffer *
new_frame (gsize size, guint32 seed, guint i)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, size, NULL);

  fill_frame (buf, seed, i);
  return buf;
}

/* What every failure message of a test row starts with. */
static gchar *
row_ctx (const gchar * test, const gchar * row, guint32 seed)
{
  return g_strdup_printf ("[%s, row %s, backend=%s seed=0x%08x]", test, row,
      co_test_backend, seed);
}

/* One operation of the reference, or the identity (none, gamma 1). */
typedef struct
{
  const gchar *name;
  CoRefOp op;
  gdouble gamma;
  guint radius;
  gboolean identity;
} Expect;

static const Expect expect_invert = {.name = "invert",.op = CO_REF_INVERT };

/* Whether @out is @e's output for @in, both read as @info says; else @msg
 * says where they differ. */
static gboolean
matches (const Expect * e, GstBuffer * in, GstBuffer * out,
    const GstVideoInfo * info, gchar ** msg)
{
  GstVideoFrame fin, fout, fexp;
  GstBuffer *exp;
  gboolean same;

  fail_unless (gst_video_frame_map (&fin, info, in, GST_MAP_READ));
  /* a meta's larger picture: the caps' part of it */
  fin.info.width = GST_VIDEO_INFO_WIDTH (info);
  fin.info.height = GST_VIDEO_INFO_HEIGHT (info);
  fail_unless (gst_video_frame_map (&fout, info, out, GST_MAP_READ),
      "an output buffer of %" G_GSIZE_FORMAT " bytes cannot be read as the "
      "caps say", gst_buffer_get_size (out));
  if (e->identity) {
    same = co_ref_compare (&fin, &fout, msg);
  } else {
    exp = gst_buffer_new_allocate (NULL, GST_VIDEO_INFO_SIZE (info), NULL);
    fail_unless (gst_video_frame_map (&fexp, info, exp, GST_MAP_WRITE));
    co_ref_apply (e->op, e->gamma, e->radius, &fin, &fexp);
    same = co_ref_compare (&fexp, &fout, msg);
    gst_video_frame_unmap (&fexp);
    gst_buffer_unref (exp);
  }
  gst_video_frame_unmap (&fout);
  gst_video_frame_unmap (&fin);
  return same;
}

/* @out is @e's output for @in (and has its PTS); consumes @out. */
static void
check_frame (const Expect * e, GstBuffer * in, GstBuffer * out,
    const GstVideoInfo * info, const gchar * ctx)
{
  gchar *msg = NULL;

  fail_unless_equals_uint64 (GST_BUFFER_PTS (out), GST_BUFFER_PTS (in));
  fail_unless (matches (e, in, out, info, &msg), "%s: frame at %"
      GST_TIME_FORMAT " differs from the reference's %s: %s", ctx,
      GST_TIME_ARGS (GST_BUFFER_PTS (out)), e->name, msg);
  g_free (msg);
  gst_buffer_unref (out);
}

/* Frames @first.. @first + @n - 1 of @seed through harness @h (operation
 * invert), each checked. */
static void
harness_frames (GstHarness * h, const GstVideoInfo * info, guint32 seed,
    guint first, guint n, const gchar * ctx)
{
  guint i;

  for (i = first; i < first + n; i++)
    fail_unless_equals_int (gst_harness_push (h,
            new_frame (GST_VIDEO_INFO_SIZE (info), seed, i)), GST_FLOW_OK);
  for (i = first; i < first + n; i++) {
    GstBuffer *in = new_frame (GST_VIDEO_INFO_SIZE (info), seed, i);

    check_frame (&expect_invert, in, co_test_pull_buffer (h, ctx), info, ctx);
    gst_buffer_unref (in);
  }
}

/* ---- 1. Partial batches are never held ---------------------------------- */

typedef struct
{
  const gchar *name;
  guint batch;                  /* 0: the element's automatic choice */
  gint fps_n;                   /* frames per second; 0: unknown */
} SparseCase;

static const SparseCase sparse_cases[] = {
  {.name = "sparse-after-burst",.batch = 8,.fps_n = 30},
  {.name = "sparse-after-burst-no-rate",.batch = 8,.fps_n = 0},
  {.name = "sparse-after-burst-auto",.batch = 0,.fps_n = 30},
  {.name = "sparse-after-burst-auto-no-rate",.batch = 0,.fps_n = 0},
};

#define BURST 50
#define N_SPARSE 5

/* A burst of small frames (where the automatic batch may be 8) whose last
 * batch is partial, then single buffers one at a time: each comes out
 * within a second, since the element submits a partial batch once no
 * buffer has come for min (frame duration, 20 ms), or 2 ms without a
 * rate. */
GST_START_TEST (test_partial_batch_not_held)
{
  const SparseCase *c = &sparse_cases[__i__];
  guint32 seed = co_test_seed (c->name, 0);
  gchar *props = g_strdup_printf ("operation=invert batch=%u", c->batch);
  Pipe *p = pipe_new (GST_VIDEO_FORMAT_GRAY8, 640, 480, c->fps_n, 1, props);
  gsize size = GST_VIDEO_INFO_SIZE (&p->info);
  gchar *ctx = row_ctx ("partial batches", c->name, seed);
  GstBuffer *in[BURST + N_SPARSE], *out;
  guint i;

  wd_arm (60, ctx);
  pipe_play (p);
  for (i = 0; i < BURST; i++) {
    in[i] = new_frame (size, seed, i);
    gst_app_src_push_buffer (GST_APP_SRC (p->src), gst_buffer_ref (in[i]));
  }
  for (i = 0; i < BURST; i++) {
    out = pipe_pull (p, WAIT);
    fail_unless (out != NULL, "%s: frame %u of the burst of %u did not come "
        "out within 5 s (a partial batch held?)", ctx, i, BURST);
    check_frame (&expect_invert, in[i], out, &p->info, ctx);
  }
  for (i = BURST; i < BURST + N_SPARSE; i++) {
    in[i] = new_frame (size, seed, i);
    gst_app_src_push_buffer (GST_APP_SRC (p->src), gst_buffer_ref (in[i]));
    out = pipe_pull (p, GST_SECOND);
    fail_unless (out != NULL, "%s: sparse buffer %u (alone after the burst) "
        "did not come out within 1 s: its partial batch is held", ctx,
        i - BURST);
    check_frame (&expect_invert, in[i], out, &p->info, ctx);
  }
  check_no_error (p->bus, ctx);
  pipe_free (p);
  for (i = 0; i < BURST + N_SPARSE; i++)
    gst_buffer_unref (in[i]);
  g_free (props);
  g_free (ctx);
}

GST_END_TEST;

/* ---- 2. A small upstream pool of its own never hangs -------------------- */

typedef struct
{
  const gchar *name;
  guint pool_size;              /* min = max buffers of upstream's pool */
  guint batch;
} PoolCase;

static const PoolCase pool_cases[] = {
  {.name = "own-pool-of-2",.pool_size = 2,.batch = 8},
  {.name = "own-pool-of-3",.pool_size = 3,.batch = 8},
  {.name = "own-pool-of-6",.pool_size = 6,.batch = 8},
  {.name = "own-pool-of-8",.pool_size = 8,.batch = 8},
  {.name = "own-pool-of-2-auto",.pool_size = 2,.batch = 0},
  {.name = "own-pool-of-3-auto",.pool_size = 3,.batch = 0},
  {.name = "own-pool-of-6-auto",.pool_size = 6,.batch = 0},
  {.name = "own-pool-of-8-auto",.pool_size = 8,.batch = 0},
};

#define POOL_FRAMES 200

static Pipe *feed_pipe;
static GstBufferPool *feed_pool;
static guint32 feed_seed;

/* Upstream as a decoder or a capture source is: every buffer from its own
 * pool (acquire blocks while the pool is empty), never from the pool the
 * element proposes. */
static gpointer
feed_from_own_pool (gpointer data)
{
  GstBuffer *buf;
  guint i;

  for (i = 0; i < POOL_FRAMES; i++) {
    if (gst_buffer_pool_acquire_buffer (feed_pool, &buf, NULL) != GST_FLOW_OK)
      break;
    fill_frame (buf, feed_seed, i);
    if (gst_app_src_push_buffer (GST_APP_SRC (feed_pipe->src), buf) !=
        GST_FLOW_OK)
      break;
  }
  gst_app_src_end_of_stream (GST_APP_SRC (feed_pipe->src));
  return NULL;
}

/* Pulls @n inverted frames in order (seeded @seed), each within WAIT, then
 * joins @feeder and waits for EOS. */
static void
pull_inverted_to_eos (Pipe * p, guint n, guint32 seed, GThread * feeder,
    const gchar * ctx)
{
  gsize size = GST_VIDEO_INFO_SIZE (&p->info);
  GstMessage *msg;
  guint i;

  for (i = 0; i < n; i++) {
    GstBuffer *out = pipe_pull (p, WAIT), *ref;

    fail_unless (out != NULL, "%s: %u of %u frames came out, then none for "
        "5 s: a hang", ctx, i, n);
    ref = new_frame (size, seed, i);
    check_frame (&expect_invert, ref, out, &p->info, ctx);
    gst_buffer_unref (ref);
  }
  g_thread_join (feeder);
  msg = gst_bus_timed_pop_filtered (p->bus, WAIT,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS,
      "%s: no EOS after the last frame (%s)", ctx,
      msg ? co_test_error_text (msg) : "timed out");
  gst_message_unref (msg);
}

/* The element limits its batch to half of a foreign pool's maximum, and
 * halves it when a batch of foreign buffers times out unfilled: every
 * frame comes out, whatever the pool's size. */
GST_START_TEST (test_small_own_pool)
{
  const PoolCase *c = &pool_cases[__i__];
  guint32 seed = co_test_seed (c->name, 0);
  gchar *props = g_strdup_printf ("operation=invert batch=%u", c->batch);
  Pipe *p = pipe_new (GST_VIDEO_FORMAT_GRAY8, 640, 480, 30, 1, props);
  gsize size = GST_VIDEO_INFO_SIZE (&p->info);
  GstBufferPool *pool = gst_video_buffer_pool_new ();
  GstStructure *config = gst_buffer_pool_get_config (pool);
  GstCaps *caps = gst_video_info_to_caps (&p->info);
  gchar *ctx = row_ctx ("small own pool", c->name, seed);
  GThread *feeder;

  gst_buffer_pool_config_set_params (config, caps, size, c->pool_size,
      c->pool_size);
  gst_caps_unref (caps);
  fail_unless (gst_buffer_pool_set_config (pool, config));
  fail_unless (gst_buffer_pool_set_active (pool, TRUE));
  wd_arm (20, ctx);
  pipe_play (p);
  feed_pipe = p;
  feed_pool = pool;
  feed_seed = seed;
  feeder = g_thread_new ("feeder", feed_from_own_pool, NULL);
  pull_inverted_to_eos (p, POOL_FRAMES, seed, feeder, ctx);
  pipe_free (p);
  gst_buffer_pool_set_active (pool, FALSE);
  gst_object_unref (pool);
  g_free (props);
  g_free (ctx);
}

GST_END_TEST;

/* ---- 2b. A ring of buffers of upstream's own, without a pool ---------- */

typedef struct
{
  const gchar *name;
  guint slots;                  /* upstream's buffers */
  gboolean recurring;           /* one GstMemory per slot, else a new one
                                 * per frame with a destroy notify */
  guint batch;
  guint in_flight;              /* max-in-flight, 0: not set */
} RingCase;

static const RingCase ring_cases[] = {
  {.name = "slots-8-batch-8",.slots = 8,.batch = 8},
  {.name = "slots-8-batch-16",.slots = 8,.batch = 16},
  {.name = "slots-4-batch-8",.slots = 4,.batch = 8},
  {.name = "slots-8-auto",.slots = 8,.batch = 0},
  {.name = "recurring-8-batch-8",.slots = 8,.recurring = TRUE,.batch = 8},
  {.name = "recurring-6-batch-16",.slots = 6,.recurring = TRUE,.batch = 16},
  {.name = "slots-4-batch-1-in-flight-3",.slots = 4,.batch = 1,.in_flight = 3},
  {.name = "recurring-4-batch-1-in-flight-3",.slots = 4,.recurring = TRUE,
      .batch = 1,.in_flight = 3},
};

#define RING_FRAMES 120
#define RING_MAX_SLOTS 8

/* Upstream as an application with a fixed set of buffers: slot i mod n is
 * reused once the element let it go (the destroy notify of the GstMemory
 * over it, or the GstBuffer over its recurring GstMemory freed). */
typedef struct
{
  GMutex lock;
  GCond cond;
  gboolean busy[RING_MAX_SLOTS];
  guint8 *mem[RING_MAX_SLOTS];
  GstMemory *wrapped[RING_MAX_SLOTS];
  guint frame[RING_MAX_SLOTS];  /* the frame in each slot */
  const RingCase *c;
  gsize size;
  gboolean timed_out;
  gint pushed;                  /* atomic: buffers the element pushed */
  gboolean after_push[RING_FRAMES];     /* the frame's slot came back after
                                         * its output was pushed */
} RingFeed;

static RingFeed ring_feed;

static void
ring_slot_free (gpointer data)
{
  guint k = GPOINTER_TO_UINT (data);

  g_mutex_lock (&ring_feed.lock);
  ring_feed.busy[k] = FALSE;
  ring_feed.after_push[ring_feed.frame[k]] =
      (guint) g_atomic_int_get (&ring_feed.pushed) > ring_feed.frame[k];
  g_cond_broadcast (&ring_feed.cond);
  g_mutex_unlock (&ring_feed.lock);
}

static GstPadProbeReturn
ring_count_push (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  g_atomic_int_inc (&ring_feed.pushed);
  return GST_PAD_PROBE_OK;
}

static void
ring_buffer_freed (gpointer data, GstMiniObject * where)
{
  ring_slot_free (data);
}

static gpointer
feed_from_ring (gpointer data)
{
  RingFeed *f = &ring_feed;
  guint i, k;

  for (i = 0; i < RING_FRAMES; i++) {
    gint64 until = g_get_monotonic_time () + 5 * G_TIME_SPAN_SECOND;
    GstBuffer *buf;

    k = i % f->c->slots;
    g_mutex_lock (&f->lock);
    while (f->busy[k] && g_cond_wait_until (&f->cond, &f->lock, until));
    f->timed_out = f->busy[k];
    f->busy[k] = TRUE;
    f->frame[k] = i;
    g_mutex_unlock (&f->lock);
    if (f->timed_out)
      break;
    if (f->c->recurring) {
      buf = gst_buffer_new ();
      gst_buffer_append_memory (buf, gst_memory_ref (f->wrapped[k]));
      gst_mini_object_weak_ref (GST_MINI_OBJECT_CAST (buf), ring_buffer_freed,
          GUINT_TO_POINTER (k));
    } else {
      buf = gst_buffer_new_wrapped_full (0, f->mem[k], f->size, 0, f->size,
          GUINT_TO_POINTER (k), ring_slot_free);
    }
    fill_frame (buf, feed_seed, i);
    if (gst_app_src_push_buffer (GST_APP_SRC (feed_pipe->src), buf) !=
        GST_FLOW_OK)
      break;
  }
  gst_app_src_end_of_stream (GST_APP_SRC (feed_pipe->src));
  return NULL;
}

/* The element's minimum latency: its batch's wait, (fill - 1) timeouts. */
static GstClockTime
filter_min_latency (Pipe * p)
{
  GstPad *pad = gst_element_get_static_pad (p->filter, "src");
  GstQuery *q = gst_query_new_latency ();
  GstClockTime min = GST_CLOCK_TIME_NONE;

  if (gst_pad_query (pad, q))
    gst_query_parse_latency (q, NULL, &min, NULL);
  gst_query_unref (q);
  gst_object_unref (pad);
  return min;
}

/* An application's ring of n buffers (no pool): every frame comes out in
 * order and right, upstream never waits 5 s for a buffer back, and a batch
 * takes half of the ring at most, so that one fills while the previous one
 * runs (the element's minimum latency says its batch).  On CUDA, once the
 * element has seen the ring and its frames in flight can hold it whole,
 * each slot comes back once its frame's copies in are done, before the
 * frame's output is pushed (the push task polls for those copies rather
 * than sleeping until the frame is done). */
GST_START_TEST (test_own_ring)
{
  const RingCase *c = &ring_cases[__i__];
  guint32 seed = co_test_seed (c->name, 0);
  gchar *props = c->in_flight ?
      g_strdup_printf ("operation=invert batch=%u max-in-flight=%u",
      c->batch, c->in_flight) :
      g_strdup_printf ("operation=invert batch=%u", c->batch);
  Pipe *p = pipe_new (GST_VIDEO_FORMAT_GRAY8, 640, 480, 30, 1, props);
  gsize size = GST_VIDEO_INFO_SIZE (&p->info);
  gchar *ctx = row_ctx ("own ring", c->name, seed);
  GstClockTime timeout = GST_SECOND / 30 < 20 * GST_MSECOND ?
      GST_SECOND / 30 : 20 * GST_MSECOND, min;
  GstStructure *pp = NULL;
  guint mif = 0, batch = 0;
  GThread *feeder;
  GstPad *srcpad;
  guint k, i;

  memset (&ring_feed, 0, sizeof (ring_feed));
  g_mutex_init (&ring_feed.lock);
  g_cond_init (&ring_feed.cond);
  ring_feed.c = c;
  ring_feed.size = size;
  for (k = 0; k < c->slots; k++) {
    ring_feed.mem[k] = g_malloc (size);
    if (c->recurring)
      ring_feed.wrapped[k] = gst_memory_new_wrapped (0, ring_feed.mem[k], size,
          0, size, NULL, NULL);
  }
  srcpad = gst_element_get_static_pad (p->filter, "src");
  gst_pad_add_probe (srcpad, GST_PAD_PROBE_TYPE_BUFFER, ring_count_push,
      NULL, NULL);
  gst_object_unref (srcpad);
  wd_arm (30, ctx);
  pipe_play (p);
  feed_pipe = p;
  feed_seed = seed;
  feeder = g_thread_new ("feeder", feed_from_ring, NULL);
  pull_inverted_to_eos (p, RING_FRAMES, seed, feeder, ctx);
  fail_if (ring_feed.timed_out, "%s: upstream waited 5 s for a buffer the "
      "element held", ctx);
  g_object_get (p->filter, "passport", &pp, NULL);
  fail_unless (pp && gst_structure_get_uint (pp, "max-in-flight", &mif) &&
      gst_structure_get_uint (pp, "batch", &batch), "%s: no max-in-flight "
      "and batch in the passport %" GST_PTR_FORMAT, ctx, pp);
  gst_structure_free (pp);
  /* the ring is known from frame n on; a batch later, every frame's poll */
  if (g_str_equal (co_test_backend, "cuda") && c->slots <= (mif + 1) * batch)
    for (i = c->slots + 2 * batch; i < RING_FRAMES; i++)
      fail_if (ring_feed.after_push[i], "%s: frame %u of a ring of %u came "
          "back after its output was pushed (max-in-flight %u, batch %u): "
          "upstream waited for the whole frame", ctx, i, c->slots, mif, batch);
  /* fill - 1 timeouts at most, fill <= slots / 2 (whatever the batch
   * property, automatic included) */
  min = filter_min_latency (p);
  fail_unless (GST_CLOCK_TIME_IS_VALID (min) &&
      min <= (c->slots / 2 - 1) * timeout, "%s: minimum latency %"
      GST_TIME_FORMAT ": a batch larger than half of upstream's %u buffers",
      ctx, GST_TIME_ARGS (min), c->slots);
  pipe_free (p);
  for (k = 0; k < c->slots; k++) {
    if (ring_feed.wrapped[k])
      gst_memory_unref (ring_feed.wrapped[k]);
    g_free (ring_feed.mem[k]);
  }
  g_mutex_clear (&ring_feed.lock);
  g_cond_clear (&ring_feed.cond);
  g_free (props);
  g_free (ctx);
}

GST_END_TEST;

/* ---- 3. The ALLOCATION answer ------------------------------------------- */

typedef struct
{
  const gchar *name;
  const gchar *props;
} AllocCase;

static const AllocCase alloc_cases[] = {
  {.name = "allocation-batch-1",.props = "batch=1"},
  {.name = "allocation-batch-4",.props = "batch=4"},
  {.name = "allocation-batch-8-in-flight-3",.props = "batch=8 max-in-flight=3"},
  {.name = "allocation-auto",.props = ""},
};

/* The first pool entry says how many buffers the element holds: a batch in
 * each of max-in-flight slots and one more for upstream to go on with, the
 * values in effect (the passport's).  The CPU backend proposes no pool
 * (an entry without one); on CUDA the entry is the element's page-locked
 * pool, which, configured with that minimum as upstream does, still makes
 * only its first two buffers up front. */
GST_START_TEST (test_allocation_answer)
{
  const AllocCase *c = &alloc_cases[__i__];
  guint32 seed = co_test_seed (c->name, 0);
  gchar *ctx = row_ctx ("allocation", c->name, seed);
  GstStructure *pp = NULL;
  GstBufferPool *pool = NULL;
  guint mif = 0, batch = 0, size, min, max;
  GstVideoInfo info;
  GstHarness *h;
  GstCaps *caps;
  GstQuery *q;

  h = harness_new (ELEMENT, c->props, NULL);
  caps = video_caps (GST_VIDEO_FORMAT_GRAY8, 64, 48, 30, 1, &info);
  gst_harness_set_src_caps (h, gst_caps_ref (caps));
  /* the engine exists once a buffer went through */
  harness_frames (h, &info, seed, 0, 1, ctx);
  g_object_get (h->element, "passport", &pp, NULL);
  fail_unless (pp && gst_structure_get_uint (pp, "max-in-flight", &mif) &&
      gst_structure_get_uint (pp, "batch", &batch), "%s: no max-in-flight "
      "and batch in the passport %" GST_PTR_FORMAT, ctx, pp);
  gst_structure_free (pp);

  q = gst_query_new_allocation (caps, TRUE);
  fail_unless (gst_pad_peer_query (h->srcpad, q), "%s: ALLOCATION refused",
      ctx);
  fail_unless (gst_query_get_n_allocation_pools (q) >= 1, "%s: no pool entry "
      "in the ALLOCATION answer", ctx);
  gst_query_parse_nth_allocation_pool (q, 0, &pool, &size, &min, &max);
  fail_unless (min == mif * batch + 1, "%s: the first pool entry has "
      "min_buffers %u, not max-in-flight (%u) x batch (%u) + 1", ctx, min,
      mif, batch);
  fail_unless_equals_int (size, GST_VIDEO_INFO_SIZE (&info));
  fail_unless ((pool != NULL) == g_str_equal (co_test_backend, "cuda"),
      "%s: a pool proposed on the CPU backend, or none on CUDA", ctx);
  if (pool) {
    GstStructure *config = gst_buffer_pool_get_config (pool);
    guint pmin = 0;

    gst_buffer_pool_config_set_params (config, caps, size, min, max);
    fail_unless (gst_buffer_pool_set_config (pool, config), "%s: the "
        "proposed pool refuses the answer's own parameters", ctx);
    config = gst_buffer_pool_get_config (pool);
    gst_buffer_pool_config_get_params (config, NULL, NULL, &pmin, NULL);
    gst_structure_free (config);
    fail_unless (pmin <= 2, "%s: the proposed pool makes %u buffers up "
        "front", ctx, pmin);
    gst_object_unref (pool);
  }
  gst_query_unref (q);
  gst_caps_unref (caps);
  harness_free (h, NULL);
  g_free (ctx);
}

GST_END_TEST;

/* ---- 4. LATENCY never overflows ----------------------------------------- */

#define UP_MIN (10 * GST_MSECOND)
#define MS GST_MSECOND

typedef struct
{
  const gchar *name;
  gint fps_n, fps_d;
  guint batch;
  GstClockTime up_max;          /* upstream's maximum (NONE: unbounded) */
  GstClockTime wait;            /* (batch - 1) x the batch timeout */
} LatencyCase;

static const LatencyCase latency_cases[] = {
  {.name = "rate-1/2147483647",.fps_n = 1,.fps_d = G_MAXINT,.batch = 16,
      .up_max = GST_CLOCK_TIME_NONE,.wait = 15 * 20 * MS},
  {.name = "rate-1/2147483647-bounded-upstream",.fps_n = 1,.fps_d = G_MAXINT,
      .batch = 16,.up_max = GST_SECOND,.wait = 15 * 20 * MS},
  {.name = "30fps-batch-16",.fps_n = 30,.fps_d = 1,.batch = 16,
      .up_max = GST_SECOND,.wait = 15 * 20 * MS},
  {.name = "no-rate-batch-16",.fps_n = 0,.fps_d = 1,.batch = 16,
      .up_max = GST_SECOND,.wait = 15 * 2 * MS},
  {.name = "30fps-batch-1",.fps_n = 30,.fps_d = 1,.batch = 1,
      .up_max = GST_SECOND,.wait = 0},
};

/* Upstream is live, with UP_MIN of latency and the case's maximum. */
static GstPadProbeReturn
answer_latency (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  const LatencyCase *c = data;
  GstQuery *q = GST_PAD_PROBE_INFO_QUERY (info);

  if (GST_QUERY_TYPE (q) != GST_QUERY_LATENCY)
    return GST_PAD_PROBE_OK;
  gst_query_set_latency (q, TRUE, UP_MIN, c->up_max);
  return GST_PAD_PROBE_HANDLED;
}

/* The minimum the element answers with @fill images per batch. */
static GstClockTime
latency_with_fill (const LatencyCase * c, guint fill)
{
  return c->batch > 1 ? UP_MIN + c->wait / (c->batch - 1) * (fill - 1) : UP_MIN;
}

/* Whether the element posted a LATENCY message on @bus (drained). */
static gboolean
latency_posted (GstBus * bus)
{
  gboolean posted = FALSE;
  GstMessage *m;

  while ((m = gst_bus_pop_filtered (bus, GST_MESSAGE_LATENCY))) {
    posted = TRUE;
    gst_message_unref (m);
  }
  return posted;
}

/* The element adds (batch - 1) batch timeouts, min (frame duration, 20 ms)
 * each (2 ms without a rate), to the minimum; with a frame duration of 68
 * years nothing wraps around.  The frames here come from no pool of the
 * element's, so on a loaded machine a batch can time out before it fills
 * and the element halves it (docs/architecture.md, "Batches"): then the
 * answer must be that of the smaller batch and a LATENCY message must have
 * said so. */
GST_START_TEST (test_latency_no_overflow)
{
  const LatencyCase *c = &latency_cases[__i__];
  gchar *props = g_strdup_printf ("operation=invert batch=%u", c->batch);
  GstHarness *h = harness_new (ELEMENT, props, NULL);
  guint32 seed = co_test_seed (c->name, 0);
  gchar *ctx = row_ctx ("latency", c->name, seed);
  GstBus *bus = gst_bus_new ();
  GstClockTime min, max;
  GstVideoInfo info;
  gboolean live;
  GstQuery *q;
  guint fill;

  gst_harness_set_src_caps (h, video_caps (GST_VIDEO_FORMAT_RGBA, 32, 32,
          c->fps_n, c->fps_d, &info));
  gst_pad_add_probe (h->srcpad, GST_PAD_PROBE_TYPE_QUERY_UPSTREAM,
      answer_latency, (gpointer) c, NULL);
  gst_element_set_bus (h->element, bus);
  /* one full batch: the engine exists */
  harness_frames (h, &info, seed, 0, c->batch, ctx);
  q = gst_query_new_latency ();
  fail_unless (gst_pad_peer_query (h->sinkpad, q), "%s: LATENCY failed", ctx);
  gst_query_parse_latency (q, &live, &min, &max);
  gst_query_unref (q);
  fail_unless (live, "%s: the answer is not live", ctx);
  fail_unless (GST_CLOCK_TIME_IS_VALID (min) && min < G_MAXUINT64 / 2,
      "%s: min %" G_GUINT64_FORMAT " ns wrapped around", ctx, min);
  fail_unless (!GST_CLOCK_TIME_IS_VALID (max) || min <= max, "%s: min %"
      G_GUINT64_FORMAT " ns > max %" G_GUINT64_FORMAT " ns", ctx, min, max);
  for (fill = c->batch; fill > 1 && min != latency_with_fill (c, fill);)
    fill /= 2;
  fail_unless (min == latency_with_fill (c, fill), "%s: min is %"
      GST_TIME_FORMAT ", not upstream's %" GST_TIME_FORMAT " + %"
      GST_TIME_FORMAT " of batch wait (or that of a halved batch)", ctx,
      GST_TIME_ARGS (min), GST_TIME_ARGS (UP_MIN), GST_TIME_ARGS (c->wait));
  if (fill != c->batch) {
    g_print ("%s: the batch timed out before it filled (a loaded machine): "
        "%u images per batch\n", ctx, fill);
    fail_unless (latency_posted (bus), "%s: the batch became %u without a "
        "LATENCY message", ctx, fill);
  }
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  harness_free (h, NULL);
  g_free (props);
  g_free (ctx);
}

GST_END_TEST;

/* ---- 5. Operation switches at any rate ---------------------------------- */

static const Expect switch_expects[] = {
  {.name = "invert",.op = CO_REF_INVERT},
  {.name = "gamma 2.2",.op = CO_REF_GAMMA,.gamma = 2.2},
  {.name = "box-blur radius 2",.op = CO_REF_BOX_BLUR,.radius = 2},
  {.name = "identity (none, gamma 1)",.identity = TRUE},
};

typedef struct
{
  const gchar *name;
  gboolean ops;                 /* invert, gamma, box-blur, none */
  gboolean gammas;              /* 1.0, 2.2 */
  guint batch;
  guint allowed;                /* bits of switch_expects */
} SwitchCase;

static const SwitchCase switch_cases[] = {
  {.name = "operations",.ops = TRUE,.batch = 1,.allowed = 0xf},
  {.name = "operations-batch-4",.ops = TRUE,.batch = 4,.allowed = 0xf},
  {.name = "gamma-1-and-2.2",.gammas = TRUE,.batch = 1,.allowed = 0xa},
  {.name = "operations-and-gamma",.ops = TRUE,.gammas = TRUE,.batch = 1,
      .allowed = 0xf},
};

#define SWITCH_FRAMES 400

typedef struct
{
  GstElement *filter;
  const SwitchCase *c;
  gint stop;
  guint n;
} Switcher;

static gpointer
switch_settings (gpointer data)
{
  static const gchar *const ops[] = { "invert", "gamma", "box-blur", "none" };
  Switcher *s = data;
  guint k;

  for (k = 0; !g_atomic_int_get (&s->stop); k++) {
    if (s->c->ops)
      gst_util_set_object_arg (G_OBJECT (s->filter), "operation", ops[k % 4]);
    if (s->c->gammas)
      g_object_set (s->filter, "gamma", k % 3 ? 2.2 : 1.0, NULL);
  }
  s->n = k;
  return NULL;
}

/* Another thread switches the settings as fast as it can while frames
 * flow: no error, and every output is one operation's output for its
 * input, never a mix of two settings. */
GST_START_TEST (test_operation_switches)
{
  const SwitchCase *c = &switch_cases[__i__];
  guint32 seed = co_test_seed (c->name, 0);
  gchar *props = g_strdup_printf ("operation=gamma gamma=2.2 radius=2 "
      "batch=%u", c->batch);
  Pipe *p = pipe_new (GST_VIDEO_FORMAT_RGBA, 64, 48, 30, 1, props);
  gchar *ctx = row_ctx ("operation switches", c->name, seed);
  Switcher sw = {.filter = p->filter,.c = c };
  guint seen[G_N_ELEMENTS (switch_expects)] = { 0 };
  GstBuffer *in[SWITCH_FRAMES], *out;
  GThread *thread;
  guint i, n, k;

  wd_arm (120, ctx);
  thread = g_thread_new ("switcher", switch_settings, &sw);
  pipe_play (p);
  for (i = 0; i < SWITCH_FRAMES; i++) {
    in[i] = new_frame (GST_VIDEO_INFO_SIZE (&p->info), seed, i);
    gst_app_src_push_buffer (GST_APP_SRC (p->src), gst_buffer_ref (in[i]));
  }
  gst_app_src_end_of_stream (GST_APP_SRC (p->src));
  for (n = 0; (out = pipe_pull (p, WAIT)); n++) {
    gboolean found = FALSE;

    fail_unless (n < SWITCH_FRAMES && GST_BUFFER_PTS (out) == n * GST_MSECOND,
        "%s: output %u is at %" GST_TIME_FORMAT, ctx, n,
        GST_TIME_ARGS (GST_BUFFER_PTS (out)));
    for (k = 0; k < G_N_ELEMENTS (switch_expects) && !found; k++) {
      gchar *msg = NULL;

      if ((c->allowed & (1u << k)) &&
          (found = matches (&switch_expects[k], in[n], out, &p->info, &msg)))
        seen[k]++;
      g_free (msg);
    }
    fail_unless (found, "%s: frame %u is the output of none of the "
        "operations for its input", ctx, n);
    gst_buffer_unref (out);
  }
  g_atomic_int_set (&sw.stop, 1);
  g_thread_join (thread);
  fail_unless (n == SWITCH_FRAMES, "%s: %u of %u frames came out (then none "
      "for 5 s)", ctx, n, SWITCH_FRAMES);
  check_no_error (p->bus, ctx);
  g_print ("%s: %u switches; outputs: invert %u, gamma %u, box-blur %u, "
      "identity %u\n", ctx, sw.n, seen[0], seen[1], seen[2], seen[3]);
  pipe_free (p);
  for (i = 0; i < SWITCH_FRAMES; i++)
    gst_buffer_unref (in[i]);
  g_free (props);
  g_free (ctx);
}

GST_END_TEST;

/* ---- 6. State changes from streaming threads ---------------------------- */

typedef enum
{
  SRC_PROBE,                    /* buffer probe: the element's push thread */
  STATS_MSG,                    /* bus sync handler: the push thread */
  PUSH_ERROR,                   /* bus sync handler: the push thread */
  CHAIN_ERROR,                  /* bus sync handler: upstream's thread */
  SINK_PROBE,                   /* buffer probe: upstream's thread */
} StopFrom;

typedef struct
{
  const gchar *name;
  StopFrom from;
  GstState to;
} StopCase;

static const StopCase stop_cases[] = {
  {.name = "src-probe-null",.from = SRC_PROBE,.to = GST_STATE_NULL},
  {.name = "src-probe-ready",.from = SRC_PROBE,.to = GST_STATE_READY},
  {.name = "stats-message-null",.from = STATS_MSG,.to = GST_STATE_NULL},
  {.name = "stats-message-ready",.from = STATS_MSG,.to = GST_STATE_READY},
  {.name = "push-error-null",.from = PUSH_ERROR,.to = GST_STATE_NULL},
  {.name = "push-error-ready",.from = PUSH_ERROR,.to = GST_STATE_READY},
  {.name = "chain-error-null",.from = CHAIN_ERROR,.to = GST_STATE_NULL},
  {.name = "chain-error-ready",.from = CHAIN_ERROR,.to = GST_STATE_READY},
  {.name = "sink-probe-null",.from = SINK_PROBE,.to = GST_STATE_NULL},
  {.name = "sink-probe-ready",.from = SINK_PROBE,.to = GST_STATE_READY},
};

typedef struct
{
  const StopCase *c;
  Pipe *p;
  gint seen, fired, done;
  GstStateChangeReturn ret;
} Stopper;

static void
stop_now (Stopper * s)
{
  if (g_atomic_int_compare_and_exchange (&s->fired, 0, 1)) {
    s->ret = gst_element_set_state (s->p->pipeline, s->c->to);
    g_atomic_int_set (&s->done, 1);
  }
}

/* the third buffer: the engine runs and frames are in flight */
static GstPadProbeReturn
stop_on_buffer (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  Stopper *s = data;

  if (g_atomic_int_add (&s->seen, 1) == 2)
    stop_now (s);
  return GST_PAD_PROBE_OK;
}

static GstBusSyncReply
stop_on_message (GstBus * bus, GstMessage * msg, gpointer data)
{
  Stopper *s = data;

  if (GST_MESSAGE_SRC (msg) != GST_OBJECT (s->p->filter) ||
      !(s->c->from == STATS_MSG ?
          gst_message_has_name (msg, "cudaoverlap-stats") :
          GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR))
    return GST_BUS_PASS;
  stop_now (s);
  /* handled (the handler unrefs it): not queued after the test emptied the
   * bus */
  gst_message_unref (msg);
  return GST_BUS_DROP;
}

/* Warnings and criticals of GStreamer core and other elements pass (the
 * core warns when a task would join itself); one that names the element's
 * code fails the test. */
static gboolean
let_foreign_pass (const gchar * domain, GLogLevelFlags level,
    const gchar * message, gpointer data)
{
  return !g_regex_match_simple ("cudaoverlap|gst_cuda_overlap|\\bco_[a-z]",
      message, 0, 0);
}

static void
let_foreign_logs_pass (void)
{
  static const gchar *const domains[] = { NULL, "GStreamer", "GLib",
    "GLib-GObject", "GStreamer-Base", "GStreamer-App", "GStreamer-Video"
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (domains); i++)
    gst_check_add_log_filter (domains[i], G_LOG_LEVEL_CRITICAL |
        G_LOG_LEVEL_WARNING, g_regex_new (".*", 0, 0, NULL),
        let_foreign_pass, NULL, NULL);
}

/* Stopped in READY from inside: PLAYING again, and new frames come out
 * right. */
static void
restart_and_check (Pipe * p, guint32 seed, const gchar * ctx)
{
  gsize size = GST_VIDEO_INFO_SIZE (&p->info);
  GstMessage *m;
  guint i, idx;

  while ((m = gst_bus_pop (p->bus)))
    gst_message_unref (m);
  fail_unless (gst_element_set_state (p->pipeline, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE, "%s: PLAYING again failed", ctx);
  for (i = 1000; i < 1005; i++)
    gst_app_src_push_buffer (GST_APP_SRC (p->src), new_frame (size, seed, i));
  for (i = 1000; i < 1005;) {
    GstBuffer *out = pipe_pull (p, WAIT), *ref;

    fail_unless (out != NULL, "%s: after READY and PLAYING again, frame %u "
        "of 5 did not come out within 5 s", ctx, i - 1000);
    /* appsink keeps what reached it before the stop: right too */
    idx = GST_BUFFER_PTS (out) / GST_MSECOND;
    fail_unless (idx == i || idx < 100, "%s: after the restart, an output "
        "at %" GST_TIME_FORMAT " where frame %u was due", ctx,
        GST_TIME_ARGS (GST_BUFFER_PTS (out)), i);
    ref = new_frame (size, seed, idx);
    check_frame (&expect_invert, ref, out, &p->info, ctx);
    gst_buffer_unref (ref);
    i += idx == i;
  }
  check_no_error (p->bus, ctx);
}

/* set_state (NULL or READY) from a probe or a bus sync handler on one of
 * the streaming threads: no crash and no critical of the element's; then
 * the main thread takes the pipeline to NULL and frees it, or from READY
 * back to PLAYING with frames right. */
GST_START_TEST (test_stop_from_streaming_thread)
{
  const StopCase *c = &stop_cases[__i__];
  guint32 seed = co_test_seed (c->name, 0);
  gchar *ctx = row_ctx ("stop from a streaming thread", c->name, seed);
  gboolean probes = c->from == SRC_PROBE || c->from == SINK_PROBE;
  Stopper s = {.c = c };
  GstPad *pad = NULL;
  gulong probe = 0;
  Pipe *p;
  guint i;

  /* the suite adds the rows that raise an error only where the hook
   * exists; the error is raised at a fault point of the CPU backend */
  if (c->from == PUSH_ERROR && !g_str_equal (co_test_backend, "cpu")) {
    g_print ("%s: the CPU backend's fault points only\n", ctx);
    g_free (ctx);
    return;
  }
  fail_unless (c->from != PUSH_ERROR || fault_arm, "%s: no co_fault_arm", ctx);
  let_foreign_logs_pass ();
  p = pipe_new (GST_VIDEO_FORMAT_RGBA, 64, 48, 30, 1, "operation=invert "
      "post-messages=true stats-interval=1000000");
  /* a sink that prerolls asynchronously would leave the state change to
   * the core's asynchronous completion, on a streaming thread */
  g_object_set (p->sink, "async", FALSE, NULL);
  s.p = p;
  if (probes) {
    pad = gst_element_get_static_pad (p->filter,
        c->from == SRC_PROBE ? "src" : "sink");
    probe = gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER,
        stop_on_buffer, &s, NULL);
  } else {
    gst_bus_set_sync_handler (p->bus, stop_on_message, &s, NULL);
  }
  if (c->from == PUSH_ERROR)
    fault_arm ("co_cpu_run_chunk", 0);

  wd_arm (60, ctx);
  pipe_play (p);
  /* a frame every 2 ms until the trigger came (a statistics window needs
   * frames after its interval) */
  for (i = 0; i < 2500 && !g_atomic_int_get (&s.done); i++) {
    GstBuffer *b = new_frame (GST_VIDEO_INFO_SIZE (&p->info), seed, i % 100);

    /* one byte short of the caps: an error in chain */
    if (c->from == CHAIN_ERROR && i == 2)
      gst_buffer_resize (b, 0, gst_buffer_get_size (b) - 1);
    gst_app_src_push_buffer (GST_APP_SRC (p->src), b);
    g_usleep (2000);
  }
  fail_unless (g_atomic_int_get (&s.done),
      "%s: the trigger did not come within 5 s", ctx);
  fail_unless (s.ret != GST_STATE_CHANGE_FAILURE,
      "%s: set_state (%s) from " "the streaming thread failed", ctx,
      gst_element_state_get_name (c->to));
  if (probes) {
    gst_pad_remove_probe (pad, probe);
    gst_object_unref (pad);
  } else {
    gst_bus_set_sync_handler (p->bus, NULL, NULL, NULL);
  }
  if (fault_arm)
    fault_arm (NULL, -1);
  if (c->from == CHAIN_ERROR || c->from == SINK_PROBE) {
    /* the core cannot join a task from its own thread (it warns and keeps
     * the task): upstream's task is joined here, as the main thread would
     * do, so that what follows does not race the thread's way out */
    GstPad *src = gst_element_get_static_pad (p->src, "src");

    gst_pad_stop_task (src);
    gst_object_unref (src);
  }
  if (c->to == GST_STATE_READY)
    restart_and_check (p, seed, ctx);
  fail_unless (gst_element_set_state (p->pipeline, GST_STATE_NULL) ==
      GST_STATE_CHANGE_SUCCESS, "%s: NULL from the main thread failed", ctx);
  pipe_free (p);
  g_free (ctx);
}

GST_END_TEST;

/* ---- 7. DRAIN ----------------------------------------------------------- */

static const Expect expect_blur8 = {.name = "box-blur radius 8",
  .op = CO_REF_BOX_BLUR,.radius = 8
};

typedef struct
{
  const gchar *name;
  const gchar *element, *props, *caps;
  const Expect *expect;         /* video: the reference's operation */
} DrainCase;

#define GRAY8_CAPS "video/x-raw,format=GRAY8,width=64,height=48,framerate="

static const DrainCase drain_cases[] = {
  {.name = "partial-batch",.element = ELEMENT,.props = "batch=8",
      .caps = GRAY8_CAPS "30/1",.expect = &expect_invert},
  {.name = "partial-batch-no-rate",.element = ELEMENT,.props = "batch=8",
      .caps = GRAY8_CAPS "0/1",.expect = &expect_invert},
  {.name = "frames-in-flight",.element = ELEMENT,
        .props = "batch=1 operation=box-blur radius=8",
        .caps = "video/x-raw,format=RGBA,width=640,height=480,framerate=30/1",
      .expect = &expect_blur8},
  {.name = "audio",.element = "cudaaudiofilter",.props = "gain-db=6",
      .caps =
        "audio/x-raw,format=F32LE,rate=48000,channels=2,layout=interleaved"},
};

typedef struct
{
  GstHarness *h;
  guint drains, received_at_drain;
} DrainSeen;

/* Downstream: counts the DRAIN queries and the buffers it had when one
 * came, and answers it. */
static GstPadProbeReturn
see_drain (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  DrainSeen *d = data;

  if (GST_QUERY_TYPE (GST_PAD_PROBE_INFO_QUERY (info)) != GST_QUERY_DRAIN)
    return GST_PAD_PROBE_OK;
  d->drains++;
  d->received_at_drain = gst_harness_buffers_received (d->h);
  return GST_PAD_PROBE_HANDLED;
}

/* A DRAIN query returns TRUE only once every buffer taken (a partial
 * batch, frames in flight) reached downstream, and itself goes downstream
 * after them. */
GST_START_TEST (test_drain)
{
  const DrainCase *c = &drain_cases[__i__];
  guint32 seed = co_test_seed (c->name, 0);
  gchar *ctx = row_ctx ("drain", c->name, seed);
  GstHarness *h = harness_new (c->element, c->props, NULL);
  DrainSeen d = {.h = h };
  GstCaps *caps = gst_caps_from_string (c->caps);
  gsize size = 1024 * 2 * 4;    /* audio: 1024 stereo F32 frames */
  GstBuffer *in[3];
  GstVideoInfo info;
  GstQuery *q;
  gboolean ok;
  guint i, n;

  wd_arm (60, ctx);
  if (c->expect) {
    fail_unless (gst_video_info_from_caps (&info, caps));
    size = GST_VIDEO_INFO_SIZE (&info);
  }
  gst_harness_set_src_caps (h, caps);
  gst_pad_add_probe (h->sinkpad, GST_PAD_PROBE_TYPE_QUERY_DOWNSTREAM,
      see_drain, &d, NULL);
  for (i = 0; i < 3; i++) {
    in[i] = new_frame (size, seed, i);
    fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in[i])),
        GST_FLOW_OK);
  }
  q = gst_query_new_drain ();
  ok = gst_pad_peer_query (h->srcpad, q);
  n = gst_harness_buffers_received (h);
  gst_query_unref (q);
  fail_unless (ok, "%s: DRAIN returned FALSE", ctx);
  fail_unless (n == 3, "%s: DRAIN returned with %u of 3 buffers downstream",
      ctx, n);
  fail_unless (d.drains == 1, "%s: downstream saw %u DRAIN queries, not 1",
      ctx, d.drains);
  fail_unless (d.received_at_drain == 3, "%s: the DRAIN went downstream "
      "ahead of buffers (%u of 3 there)", ctx, d.received_at_drain);
  for (i = 0; i < 3; i++) {
    GstBuffer *out = co_test_pull_buffer (h, ctx);

    if (c->expect)
      check_frame (c->expect, in[i], out, &info, ctx);
    else
      gst_buffer_unref (out);
    gst_buffer_unref (in[i]);
  }
  harness_free (h, NULL);
  g_free (ctx);
}

GST_END_TEST;

/* ---- 8. A video meta that contradicts the caps -------------------------- */

#define RGBA GST_VIDEO_FORMAT_RGBA
#define I420 GST_VIDEO_FORMAT_I420

typedef struct
{
  const gchar *name;
  GstVideoFormat caps_format;   /* caps: 64x48 */
  GstVideoFormat format;        /* the meta's */
  guint n_planes;               /* the meta's (0: its format's) */
  guint width, height;          /* the meta's */
  guint stride_pad;             /* bytes added to each plane's stride */
  gsize offset0;                /* where the first plane starts */
  gboolean good;                /* processed (else an error) */
} MetaCase;

static const MetaCase meta_cases[] = {
  {.name = "format-bgra-for-rgba",.caps_format = RGBA,
      .format = GST_VIDEO_FORMAT_BGRA,.width = 64,.height = 48},
  {.name = "format-nv12-for-i420",.caps_format = I420,
      .format = GST_VIDEO_FORMAT_NV12,.width = 64,.height = 48},
  {.name = "two-planes-for-i420",.caps_format = I420,.format = I420,
      .n_planes = 2,.width = 64,.height = 48},
  {.name = "narrower",.caps_format = RGBA,.format = RGBA,.width = 63,
      .height = 48},
  {.name = "shorter",.caps_format = I420,.format = I420,.width = 64,
      .height = 47},
  {.name = "wider-padded",.caps_format = RGBA,.format = RGBA,.width = 80,
      .height = 48,.stride_pad = 64,.good = TRUE},
  {.name = "taller-offset",.caps_format = RGBA,.format = RGBA,.width = 64,
      .height = 60,.stride_pad = 32,.offset0 = 128,.good = TRUE},
  {.name = "larger-i420-padded",.caps_format = I420,.format = I420,
      .width = 72,.height = 52,.stride_pad = 16,.offset0 = 64,.good = TRUE},
};

/* A buffer laid out as @c's meta says (random bytes everywhere), at least
 * as large as the caps' frame, with that meta. */
static GstBuffer *
meta_buffer (const MetaCase * c, const GstVideoInfo * info, guint32 seed)
{
  gsize offset[GST_VIDEO_MAX_PLANES] = { 0 }, pos = c->offset0;
  gint stride[GST_VIDEO_MAX_PLANES] = { 0 };
  GstVideoInfo m;
  GstBuffer *buf;
  guint i;

  fail_unless (gst_video_info_set_format (&m, c->format, c->width, c->height));
  for (i = 0; i < GST_VIDEO_INFO_N_PLANES (&m); i++) {
    offset[i] = pos;
    stride[i] = GST_VIDEO_INFO_PLANE_STRIDE (&m, i) + c->stride_pad;
    pos += (gsize) stride[i] * GST_VIDEO_INFO_COMP_HEIGHT (&m, i);
  }
  buf = new_frame (MAX (pos, GST_VIDEO_INFO_SIZE (info)), seed, 0);
  gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE, c->format,
      c->width, c->height, c->n_planes ? c->n_planes :
      GST_VIDEO_INFO_N_PLANES (&m), offset, stride);
  return buf;
}

/* A meta of another format, other planes, or a smaller picture than the
 * caps: exactly one STREAM/FORMAT error and no critical.  A larger picture
 * with padded strides inside the memory: processed, the caps' picture read
 * through the meta. */
GST_START_TEST (test_contradicting_meta)
{
  const MetaCase *c = &meta_cases[__i__];
  guint32 seed = co_test_seed (c->name, 0);
  gchar *ctx = row_ctx ("contradicting meta", c->name, seed);
  GstBus *bus;
  GstHarness *h = harness_new (ELEMENT, "operation=invert", &bus);
  GstVideoInfo info;
  GstBuffer *in;
  GstFlowReturn ret;
  GstMessage *msg;
  GError *err = NULL;

  wd_arm (60, ctx);
  gst_harness_set_src_caps (h, video_caps (c->caps_format, 64, 48, 30, 1,
          &info));
  in = meta_buffer (c, &info, seed);
  ret = gst_harness_push (h, gst_buffer_ref (in));
  if (c->good) {
    fail_unless_equals_int (ret, GST_FLOW_OK);
    check_frame (&expect_invert, in, co_test_pull_buffer (h, ctx), &info, ctx);
    check_no_error (bus, ctx);
  } else {
    fail_unless (ret == GST_FLOW_ERROR, "%s: push returned %s", ctx,
        gst_flow_get_name (ret));
    msg = gst_bus_timed_pop_filtered (bus, WAIT, GST_MESSAGE_ERROR);
    fail_unless (msg != NULL, "%s: no ERROR message", ctx);
    gst_message_parse_error (msg, &err, NULL);
    fail_unless (err->domain == GST_STREAM_ERROR &&
        err->code == GST_STREAM_ERROR_FORMAT, "%s: the error is %s %d, not "
        "STREAM/FORMAT: %s", ctx, g_quark_to_string (err->domain), err->code,
        err->message);
    g_clear_error (&err);
    gst_message_unref (msg);
    msg = gst_bus_timed_pop_filtered (bus, GST_SECOND / 2, GST_MESSAGE_ERROR);
    fail_unless (msg == NULL, "%s: a second ERROR: %s", ctx,
        msg ? co_test_error_text (msg) : "");
    fail_unless (gst_harness_try_pull (h) == NULL, "%s: a buffer came out",
        ctx);
  }
  gst_buffer_unref (in);
  harness_free (h, bus);
  g_free (ctx);
}

GST_END_TEST;

/* ---- 9. Properties set while PLAYING ------------------------------------ */

typedef struct
{
  const gchar *name;
  const gchar *value;           /* NULL: see the test */
  gboolean refused;             /* only NULL and READY may change it */
} PlayingCase;

static const PlayingCase playing_cases[] = {
  {.name = "streams",.value = "3"},
  {.name = "chunks",.value = "2"},
  {.name = "mode",.value = "serial"},
  {.name = "max-in-flight",.value = "3"},
  {.name = "backend",.refused = TRUE},
  {.name = "cuda-device-id",.value = "7",.refused = TRUE},
  {.name = "trace-file",.refused = TRUE},
};

/* everything explicit, so that only the property set rebuilds */
#define PLAYING_PROPS "operation=invert batch=1 streams=2 chunks=1 " \
  "mode=overlap max-in-flight=4 wait-mode=blocking submit-thread=false"

static gchar *trace_path;

/* @v as text, enums by nick; NULL strings as "". */
static gchar *
value_text (const GValue * v)
{
  GEnumClass *k;
  GEnumValue *ev;
  gchar *s;

  if (G_VALUE_HOLDS_STRING (v))
    return g_strdup (g_value_get_string (v) ? g_value_get_string (v) : "");
  if (!G_VALUE_HOLDS_ENUM (v))
    return gst_value_serialize (v);
  k = g_type_class_ref (G_VALUE_TYPE (v));
  ev = g_enum_get_value (k, g_value_get_enum (v));
  s = g_strdup (ev ? ev->value_nick : "?");
  g_type_class_unref (k);
  return s;
}

static gchar *
prop_text (GstElement * e, const gchar * name)
{
  GParamSpec *ps = g_object_class_find_property (G_OBJECT_GET_CLASS (e), name);
  GValue v = G_VALUE_INIT;
  gchar *s;

  g_value_init (&v, ps->value_type);
  g_object_get_property (G_OBJECT (e), name, &v);
  s = value_text (&v);
  g_value_unset (&v);
  return s;
}

/* The next cudaoverlap-passport on @bus (within 5 s). */
static GstStructure *
next_passport (GstBus * bus, const gchar * ctx)
{
  gint64 end = g_get_monotonic_time () + 5 * G_TIME_SPAN_SECOND;
  GstStructure *st = NULL;
  GstMessage *m;

  while (!st) {
    m = gst_bus_timed_pop_filtered (bus, MAX (end - g_get_monotonic_time (),
            0) * GST_USECOND, GST_MESSAGE_ELEMENT);
    fail_unless (m != NULL, "%s: no cudaoverlap-passport within 5 s", ctx);
    if (gst_message_has_name (m, "cudaoverlap-passport"))
      st = gst_structure_copy (gst_message_get_structure (m));
    gst_message_unref (m);
  }
  return st;
}

/* The engine's settings take effect at the next buffer, and the rebuild's
 * passport shows them; where and with what the element runs (backend,
 * device, trace file) changes only in NULL or READY: refused, with one
 * warning naming the property. */
GST_START_TEST (test_properties_while_playing)
{
  const PlayingCase *c = &playing_cases[__i__];
  guint32 seed = co_test_seed (c->name, 0);
  const gchar *value = c->value ? c->value :
      g_str_equal (c->name, "trace-file") ? trace_path :
      g_str_equal (co_test_backend, "cpu") ? "cuda" : "cpu";
  gchar *ctx = row_ctx ("properties while playing", c->name, seed);
  GstBus *bus;
  GstHarness *h = harness_new (ELEMENT, PLAYING_PROPS, &bus);
  gchar *before, *after, *field;
  GError *err = NULL;
  GstVideoInfo info;
  GstStructure *pp;
  GstMessage *m;

  wd_arm (60, ctx);
  gst_harness_set_src_caps (h, video_caps (GST_VIDEO_FORMAT_RGBA, 160, 120,
          30, 1, &info));
  harness_frames (h, &info, seed, 0, 2, ctx);
  gst_structure_free (next_passport (bus, ctx));
  while ((m = gst_bus_pop (bus)))
    gst_message_unref (m);

  before = prop_text (h->element, c->name);
  gst_util_set_object_arg (G_OBJECT (h->element), c->name, value);
  after = prop_text (h->element, c->name);
  if (!c->refused) {
    fail_unless (g_str_equal (after, value), "%s: reads back %s", ctx, after);
    harness_frames (h, &info, seed, 2, 2, ctx);
    pp = next_passport (bus, ctx);
    fail_unless (gst_structure_has_field (pp, c->name), "%s: the passport "
        "has no field %s", ctx, c->name);
    field = value_text (gst_structure_get_value (pp, c->name));
    fail_unless (g_str_equal (field, value), "%s: the next passport says "
        "%s=%s", ctx, c->name, field);
    g_free (field);
    gst_structure_free (pp);
  } else {
    fail_unless (g_str_equal (after, before), "%s: reads back %s, not the "
        "value in effect %s", ctx, after, before);
    m = gst_bus_timed_pop_filtered (bus, WAIT, GST_MESSAGE_WARNING);
    fail_unless (m != NULL, "%s: no WARNING message", ctx);
    gst_message_parse_warning (m, &err, NULL);
    fail_unless (strstr (err->message, c->name) != NULL, "%s: the warning "
        "does not name the property: %s", ctx, err->message);
    g_clear_error (&err);
    gst_message_unref (m);
    harness_frames (h, &info, seed, 2, 2, ctx);
    m = gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING);
    fail_unless (m == NULL, "%s: more than one WARNING", ctx);
  }
  check_no_error (bus, ctx);
  g_free (before);
  g_free (after);
  harness_free (h, bus);
  g_free (ctx);
}

GST_END_TEST;

static Suite *
robustness_suite (void)
{
  Suite *s = suite_create ("robustness");
  TCase *tc = co_test_new_tcase (s, "robustness", robustness_teardown);
  guint i;

  tcase_add_loop_test (tc, test_partial_batch_not_held, 0,
      G_N_ELEMENTS (sparse_cases));
  tcase_add_loop_test (tc, test_small_own_pool, 0, G_N_ELEMENTS (pool_cases));
  tcase_add_loop_test (tc, test_own_ring, 0, G_N_ELEMENTS (ring_cases));
  tcase_add_loop_test (tc, test_allocation_answer, 0,
      G_N_ELEMENTS (alloc_cases));
  tcase_add_loop_test (tc, test_latency_no_overflow, 0,
      G_N_ELEMENTS (latency_cases));
  tcase_add_loop_test (tc, test_operation_switches, 0,
      G_N_ELEMENTS (switch_cases));
  for (i = 0; i < G_N_ELEMENTS (stop_cases); i++)
    co_test_add_variant (tc, test_stop_from_streaming_thread, i,
        stop_cases[i].name, stop_cases[i].from == PUSH_ERROR
        && g_str_equal (co_test_backend, "cpu") ?
        co_test_hook_missing ("co_fault_arm") : NULL);
  tcase_add_loop_test (tc, test_drain, 0, G_N_ELEMENTS (drain_cases));
  tcase_add_loop_test (tc, test_contradicting_meta, 0,
      G_N_ELEMENTS (meta_cases));
  tcase_add_loop_test (tc, test_properties_while_playing, 0,
      G_N_ELEMENTS (playing_cases));
  return s;
}

int
main (int argc, char **argv)
{
  int nf = co_test_init (&argc, &argv, ELEMENT, DEFAULT_SEED, FALSE);

  if (nf != 0)
    return nf;
  fault_arm = co_test_plugin_symbol ("co_fault_arm");
  trace_path = g_build_filename (g_get_tmp_dir (),
      "co-robustness-refused-trace.json", NULL);
  nf = gst_check_run_suite (robustness_suite (), "robustness", __FILE__);
  g_free (trace_path);
  co_test_leaks_free ();
  return co_test_exit_status (nf);
}
