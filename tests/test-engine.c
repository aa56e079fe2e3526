/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Unit tests of the overlap engine (engine/co-engine*.c) on the CPU backend,
 * without GStreamer and without a GPU: frames of gain chunks (upload into
 * the slot's input area, kernel into its output area, download), in order,
 * and, in a -Dfault-injection build (make check's), every fault point of
 * the CPU backend and of the backend choice: a failing point fails the
 * engine's creation with an error that names it, or completes its frame
 * with frame->error set, and the engine stays usable and frees cleanly.
 */
#include <string.h>
#include <glib.h>

#include "co-engine.h"
#include "co-parcopy.h"
#include "co-fault.h"

#define SAMPLES 64              /* floats per chunk */
#define CHUNKS 2

static CoEngine *
new_engine (gboolean cpu_direct, GError ** error)
{
  CoEngineConfig cfg = { 0, };

  cfg.backend = CO_BACKEND_CPU;
  cfg.device_id = -1;
  cfg.streams = 2;
  cfg.chunks = CHUNKS;
  cfg.max_in_flight = 3;
  cfg.dev_in_size = cfg.dev_out_size = CHUNKS * SAMPLES * sizeof (gfloat);
  cfg.const_size = 16;
  cfg.cpu_direct = cpu_direct;
  cfg.name = "test";
  return co_engine_new (&cfg, error);
}

static void
plan_copy (CoCopy * c, const void *src, void *dst, gsize bytes)
{
  c->src = src;
  c->dst = dst;
  c->width = c->spitch = c->dpitch = bytes;
  c->rows = 1;
}

/* in[i] = seq * 1000 + i; out = 2 * in */
static void
plan_frame (CoFrame * f, const gfloat * in, gfloat * out)
{
  gsize bytes = SAMPLES * sizeof (gfloat);
  guint k;

  f->n_chunks = CHUNKS;
  for (k = 0; k < CHUNKS; k++) {
    CoChunk *ch = &f->chunks[k];
    CoAudioParams *p = &ch->params.audio;

    memset (ch, 0, sizeof (*ch));
    ch->kind = CO_KERNEL_AUDIO;
    ch->n_h2d = ch->n_d2h = 1;
    plan_copy (&ch->h2d[0], in + k * SAMPLES, f->dev_in + k * bytes, bytes);
    plan_copy (&ch->d2h[0], f->dev_out + k * bytes, out + k * SAMPLES, bytes);
    p->op = CO_AUDIO_OP_GAIN;
    p->format = CO_AUDIO_F32;
    p->channels = 1;
    p->frames = SAMPLES;
    p->src = f->dev_in + k * bytes;
    p->dst = f->dev_out + k * bytes;
    p->gain = 2.0f;
  }
}

/* Submits frame @seq and waits for it; its error (NULL: none) or the
 * submit's is returned. */
static gchar *
run_frame (CoEngine * e, guint seq)
{
  gfloat in[CHUNKS * SAMPLES], out[CHUNKS * SAMPLES];
  CoFrame *f = co_engine_acquire (e), *done;
  GError *err = NULL;
  gboolean ok;
  gchar *ret = NULL;
  guint i;

  g_assert_nonnull (f);
  g_assert_cmpuint (f->seqnum, ==, seq);
  for (i = 0; i < G_N_ELEMENTS (in); i++) {
    in[i] = seq * 1000.0f + i;
    out[i] = -1.0f;
  }
  plan_frame (f, in, out);
  ok = co_engine_submit (e, f, &err);
  done = co_engine_wait_oldest (e);
  g_assert_true (done == f);
  g_assert_true (ok == (err == NULL));
  if (!ok)
    g_assert_cmpstr (err->message, ==, f->error);
  if (f->error) {
    ret = g_strdup (f->error);
  } else {
    for (i = 0; i < G_N_ELEMENTS (in); i++)
      g_assert_cmpfloat (out[i], ==, 2.0f * in[i]);
  }
  g_clear_error (&err);
  co_engine_release (e, f);
  return ret;
}

static void
test_run (void)
{
  GError *err = NULL;
  CoEngine *e = new_engine (FALSE, &err);
  CoDeviceInfo info;
  guint i;

  g_assert_no_error (err);
  g_assert_cmpint (co_engine_backend (e), ==, CO_BACKEND_CPU);
  co_engine_device_info (e, &info);
  g_assert_cmpstr (info.name, ==, "cpu");
  g_assert_true (co_engine_set_const (e, "0123456789abcdef", 16, &err));
  g_assert_cmpmem (co_engine_const_ptr (e), 16, "0123456789abcdef", 16);
  for (i = 0; i < 10; i++)
    g_assert_null (run_frame (e, i));
  g_assert_true (co_engine_drain (e));
  co_engine_free (e);
}

static void
test_cpu_direct (void)
{
  GError *err = NULL;
  CoEngine *e = new_engine (TRUE, &err);
  CoFrame *f;

  g_assert_no_error (err);
  f = co_engine_acquire (e);
  g_assert_null (f->dev_in);
  g_assert_null (f->dev_out);
  co_engine_cancel (e, f);
  co_engine_free (e);
}

/* CoFrame.ordered and CoChunk.d2d: a running value kept in "device"
 * memory passes from frame to frame in submission order although the
 * frames' chunks 0 run on different streams and several frames are in
 * flight: chunk 0 copies the running value into its slot (zeros on the
 * first frame), then its own into the running value, and downloads what
 * it got. */
static void
test_ordered (void)
{
  CoEngineConfig cfg = { 0, };
  CoEngine *e;
  GError *err = NULL;
  gfloat running = -1.0f, got[40], value[40];
  CoFrame *f, *done;
  guint seq, k;

  cfg.backend = CO_BACKEND_CPU;
  cfg.device_id = -1;
  cfg.streams = 3;
  cfg.chunks = 2;
  cfg.max_in_flight = 4;
  cfg.dev_in_size = cfg.dev_out_size = 16;
  cfg.name = "test-ordered";
  e = co_engine_new (&cfg, &err);
  g_assert_no_error (err);
  for (seq = 0; seq < G_N_ELEMENTS (got); seq++) {
    value[seq] = seq + 1.0f;
    got[seq] = -2.0f;
    if (co_engine_in_flight (e) == co_engine_max_in_flight (e)) {
      done = co_engine_wait_oldest (e);
      g_assert_null (done->error);
      co_engine_release (e, done);
    }
    f = co_engine_acquire (e);
    /* an odd number of chunks moves chunk 0 from stream to stream */
    f->n_chunks = seq % 2 ? 1 : 2;
    for (k = 0; k < f->n_chunks; k++) {
      memset (&f->chunks[k], 0, sizeof (CoChunk));
      f->chunks[k].kind = CO_KERNEL_NONE;
    }
    f->chunks[0].n_d2d = 2;
    if (seq == 0)
      plan_copy (&f->chunks[0].d2d[0], NULL, f->dev_in, sizeof (gfloat));
    else
      plan_copy (&f->chunks[0].d2d[0], &running, f->dev_in, sizeof (gfloat));
    plan_copy (&f->chunks[0].d2d[1], &value[seq], &running, sizeof (gfloat));
    f->chunks[0].n_d2h = 1;
    plan_copy (&f->chunks[0].d2h[0], f->dev_in, &got[seq], sizeof (gfloat));
    f->ordered = TRUE;
    g_assert_true (co_engine_submit (e, f, &err));
  }
  while (co_engine_in_flight (e) > 0) {
    done = co_engine_wait_oldest (e);
    co_engine_release (e, done);
  }
  co_engine_free (e);
  for (seq = 0; seq < G_N_ELEMENTS (got); seq++)
    g_assert_cmpfloat (got[seq], ==, seq == 0 ? 0.0f : value[seq - 1]);
  g_assert_cmpfloat (running, ==, value[G_N_ELEMENTS (got) - 1]);
}

/* co_chunk_ts_sources: an event with nothing queued since the one before
 * it stands for that one; every kind of work between two events keeps the
 * later one. */
static void
test_ts_sources (void)
{
  CoFrame *f = g_new0 (CoFrame, 1);
  guint src[CO_TS_COUNT];
  CoChunk *c0 = &f->chunks[0], *c1 = &f->chunks[1];

  f->n_chunks = 2;
  c1->stream = 1;
  /* host memory in and out: copies, kernel, copies */
  c0->n_h2d = c0->n_d2h = 1;
  c0->kind = CO_KERNEL_VIDEO;
  co_chunk_ts_sources (f, 0, src);
  g_assert_cmpuint (src[CO_TS_BEGIN], ==, CO_TS_BEGIN);
  g_assert_cmpuint (src[CO_TS_H2D_DONE], ==, CO_TS_H2D_DONE);
  g_assert_cmpuint (src[CO_TS_KERNEL_DONE], ==, CO_TS_KERNEL_DONE);
  g_assert_cmpuint (src[CO_TS_END], ==, CO_TS_END);
  /* CUDA memory in and out: a kernel alone, two events */
  c1->kind = CO_KERNEL_VIDEO;
  co_chunk_ts_sources (f, 1, src);
  g_assert_cmpuint (src[CO_TS_BEGIN], ==, CO_TS_BEGIN);
  g_assert_cmpuint (src[CO_TS_H2D_DONE], ==, CO_TS_BEGIN);
  g_assert_cmpuint (src[CO_TS_KERNEL_DONE], ==, CO_TS_KERNEL_DONE);
  g_assert_cmpuint (src[CO_TS_END], ==, CO_TS_KERNEL_DONE);
  /* the frame's tables: chunk 1 on another stream waits for them */
  f->n_pre = 1;
  co_chunk_ts_sources (f, 1, src);
  g_assert_cmpuint (src[CO_TS_H2D_DONE], ==, CO_TS_H2D_DONE);
  /* ... but not on chunk 0's stream */
  c1->stream = 0;
  co_chunk_ts_sources (f, 1, src);
  g_assert_cmpuint (src[CO_TS_H2D_DONE], ==, CO_TS_BEGIN);
  /* chunk 0 uploads them */
  c0->n_h2d = 0;
  co_chunk_ts_sources (f, 0, src);
  g_assert_cmpuint (src[CO_TS_H2D_DONE], ==, CO_TS_H2D_DONE);
  f->n_pre = 0;
  co_chunk_ts_sources (f, 0, src);
  g_assert_cmpuint (src[CO_TS_H2D_DONE], ==, CO_TS_BEGIN);
  /* device copies (CUDA memory in, system memory out; no kernel) */
  c1->n_d2d = 1;
  c1->n_d2h = 1;
  c1->kind = CO_KERNEL_NONE;
  co_chunk_ts_sources (f, 1, src);
  g_assert_cmpuint (src[CO_TS_H2D_DONE], ==, CO_TS_H2D_DONE);
  g_assert_cmpuint (src[CO_TS_KERNEL_DONE], ==, CO_TS_H2D_DONE);
  g_assert_cmpuint (src[CO_TS_END], ==, CO_TS_END);
  /* nothing at all: every timestamp is the first */
  memset (c1, 0, sizeof (*c1));
  c1->kind = CO_KERNEL_NONE;
  co_chunk_ts_sources (f, 1, src);
  g_assert_cmpuint (src[CO_TS_END], ==, CO_TS_BEGIN);
  g_free (f);
}

/* co_engine_wait_oldest_done, then co_engine_read_times after the frame's
 * output is used (or co_engine_release reading them): the same frames, in
 * order, with their timestamps. */
static void
test_wait_done (void)
{
  GError *err = NULL;
  CoEngine *e = new_engine (FALSE, &err);
  gfloat in[CHUNKS * SAMPLES], out[CHUNKS * SAMPLES];
  guint seq, i;

  g_assert_no_error (err);
  for (seq = 0; seq < 6; seq++) {
    CoFrame *f = co_engine_acquire (e), *done;

    for (i = 0; i < G_N_ELEMENTS (in); i++)
      in[i] = seq * 1000.0f + i;
    plan_frame (f, in, out);
    g_assert_true (co_engine_submit (e, f, &err));
    done = co_engine_wait_oldest_done (e);
    g_assert_true (done == f);
    g_assert_null (f->error);
    for (i = 0; i < G_N_ELEMENTS (in); i++)
      g_assert_cmpfloat (out[i], ==, 2.0f * in[i]);
    if (seq % 2) {
      g_assert_true (co_engine_read_times (e, f));
      for (i = 0; i < CHUNKS; i++)
        g_assert_cmpuint (f->chunks[i].ts[CO_TS_END], >=,
            f->chunks[i].ts[CO_TS_BEGIN]);
      /* a second read changes nothing */
      g_assert_true (co_engine_read_times (e, f));
    }
    co_engine_release (e, f);
  }
  co_engine_free (e);
}

/* co_engine_next_read hands frames on once the backend has finished
 * reading their host memory (on the CPU backend: once their work is
 * done), each once, in submission order, before they are waited for; a
 * frame acquired again starts unread. */
static void
test_next_read (void)
{
  GError *err = NULL;
  CoEngine *e = new_engine (FALSE, &err);
  gfloat in[3][CHUNKS * SAMPLES], out[3][CHUNKS * SAMPLES];
  CoFrame *f[3];
  guint round, seq, got, i;

  g_assert_no_error (err);
  g_assert_null (co_engine_next_read (e, FALSE, FALSE));        /* nothing submitted */
  for (round = 0; round < 2; round++) {
    gint64 deadline = g_get_monotonic_time () + 10 * G_TIME_SPAN_SECOND;

    for (seq = 0; seq < 3; seq++) {
      f[seq] = co_engine_acquire (e);
      g_assert_false (f[seq]->host_read);
      for (i = 0; i < CHUNKS * SAMPLES; i++)
        in[seq][i] = seq * 1000.0f + i;
      plan_frame (f[seq], in[seq], out[seq]);
      g_assert_true (co_engine_submit (e, f[seq], &err));
    }
    for (got = 0; got < 3;) {
      CoFrame *r = co_engine_next_read (e, TRUE, TRUE);

      if (!r) {
        g_assert_cmpint (g_get_monotonic_time (), <, deadline);
        g_usleep (1000);
        continue;
      }
      g_assert_true (r == f[got]);
      g_assert_true (r->host_read);
      /* the CPU backend's workers read the input up to the end */
      for (i = 0; i < CHUNKS * SAMPLES; i++)
        g_assert_cmpfloat (out[got][i], ==, 2.0f * in[got][i]);
      got++;
    }
    g_assert_null (co_engine_next_read (e, FALSE, FALSE));      /* each once */
    for (seq = 0; seq < 3; seq++) {
      g_assert_true (co_engine_wait_oldest (e) == f[seq]);
      g_assert_null (f[seq]->error);
      co_engine_release (e, f[seq]);
    }
  }
  co_engine_free (e);
}

#ifdef CO_FAULT_INJECTION

/* A frame whose submission failed is never handed on by
 * co_engine_next_read (its memory is idle only once it is waited for),
 * nor is any later one before it is waited for. */
static void
test_next_read_failed (void)
{
  GError *err = NULL;
  CoEngine *e = new_engine (FALSE, &err);
  gfloat in[2][CHUNKS * SAMPLES], out[2][CHUNKS * SAMPLES];
  CoFrame *f[2], *r;
  guint seq;

  g_assert_no_error (err);
  for (seq = 0; seq < 2; seq++) {
    /* the first submission fails */
    co_fault_arm (seq == 0 ? "co_cpu_submit" : NULL, seq == 0 ? 0 : -1);
    f[seq] = co_engine_acquire (e);
    plan_frame (f[seq], in[seq], out[seq]);
    co_engine_submit (e, f[seq], seq == 0 ? NULL : &err);
  }
  g_assert_no_error (err);
  g_assert_nonnull (f[0]->error);
  g_assert_null (co_engine_next_read (e, TRUE, TRUE));
  g_assert_false (f[0]->host_read);
  g_assert_true (co_engine_wait_oldest (e) == f[0]);
  co_engine_release (e, f[0]);
  /* the next frame is handed on once its work is done */
  while (!(r = co_engine_next_read (e, TRUE, TRUE)))
    g_usleep (1000);
  g_assert_true (r == f[1]);
  g_assert_true (co_engine_wait_oldest (e) == f[1]);
  g_assert_null (f[1]->error);
  co_engine_release (e, f[1]);
  co_engine_free (e);
}

/* Each allocation and thread start of co_engine_new() in turn fails: no
 * engine, an error that names the point (and the size of an allocation). */
static void
test_open_faults (void)
{
  static const gchar *points[] = { "g_try_malloc", "g_thread_try_new" };
  guint p;

  for (p = 0; p < G_N_ELEMENTS (points); p++) {
    gint64 n;

    for (n = 0;; n++) {
      GError *err = NULL;
      CoEngine *e;

      co_fault_arm (points[p], n);
      e = new_engine (FALSE, &err);
      if (e) {
        g_assert_no_error (err);
        g_assert_cmpuint (co_fault_injected (), ==, 0);
        g_assert_null (run_frame (e, 0));
        co_engine_free (e);
        break;
      }
      g_assert_cmpuint (co_fault_injected (), ==, 1);
      g_assert_error (err, CO_ENGINE_ERROR, CO_ENGINE_ERROR_NO_MEMORY);
      if (p == 0)
        g_assert_nonnull (strstr (err->message, "could not allocate"));
      else
        g_assert_nonnull (strstr (err->message,
                "injected failure of g_thread_try_new"));
      g_clear_error (&err);
    }
    g_assert_cmpint (n, >=, 2);
  }
  co_fault_arm (NULL, -1);
}

/* A failed submission or chunk completes its frame with the error; the
 * engine goes on. */
static void
test_frame_faults (void)
{
  GError *err = NULL;
  CoEngine *e = new_engine (FALSE, &err);
  gchar *msg;

  g_assert_no_error (err);
  co_fault_arm ("co_cpu_submit", 2);
  g_assert_null (run_frame (e, 0));
  g_assert_null (run_frame (e, 1));
  msg = run_frame (e, 2);
  g_assert_cmpstr (msg, ==, "injected failure of co_cpu_submit (frame 2)");
  g_free (msg);
  co_fault_arm (NULL, -1);
  g_assert_null (run_frame (e, 3));

  /* frames run one at a time: calls 0-1 are frame 4's chunks, 2-3 frame
   * 5's */
  co_fault_arm ("co_cpu_run_chunk", 3);
  g_assert_null (run_frame (e, 4));
  msg = run_frame (e, 5);
  g_assert_nonnull (msg);
  g_assert_true (g_str_has_prefix (msg,
          "injected failure of co_cpu_run_chunk (chunk "));
  g_assert_nonnull (strstr (msg, "of frame 5)"));
  g_free (msg);
  co_fault_arm (NULL, -1);
  g_assert_null (run_frame (e, 6));
  g_assert_true (co_engine_drain (e));
  co_engine_free (e);
}

/* "No usable CUDA device" comes from one place, for the elements and for
 * co_engine_new() alike; auto then runs on the CPU. */
static void
test_backend_choice (void)
{
  CoEngineConfig cfg = { 0, };
  GError *err = NULL;
  CoEngine *e;

  co_fault_arm ("cudaGetDeviceCount", 0);
  g_assert_false (co_engine_backend_usable (CO_BACKEND_CUDA, -1, &err));
#ifdef CO_HAVE_CUDA
  g_assert_cmpstr (err->message, ==, "injected failure of cudaGetDeviceCount");
#else
  /* a build without CUDA (-Dcuda=disabled) says so, whatever the driver */
  g_assert_cmpstr (err->message, ==, "this build of cudaoverlap has no CUDA "
      "backend (built with -Dcuda=disabled)");
#endif
  g_clear_error (&err);
  g_assert_true (co_engine_backend_usable (CO_BACKEND_AUTO, -1, NULL));
  g_assert_true (co_engine_backend_usable (CO_BACKEND_CPU, 0, NULL));

  cfg.backend = CO_BACKEND_CUDA;
  cfg.device_id = -1;
  g_assert_null (co_engine_new (&cfg, &err));
  g_assert_error (err, CO_ENGINE_ERROR, CO_ENGINE_ERROR_NO_DEVICE);
  g_clear_error (&err);
  cfg.backend = CO_BACKEND_AUTO;
  e = co_engine_new (&cfg, &err);
  g_assert_no_error (err);
  g_assert_cmpint (co_engine_backend (e), ==, CO_BACKEND_CPU);
  co_engine_free (e);
  co_fault_arm (NULL, -1);
}

#endif /* CO_FAULT_INJECTION */

/* The parallel copy (a job finished at once): every byte right for sizes
 * around its part bounds, odd offsets and lengths, from many threads at
 * once. */
static gpointer
parcopy_worker (gpointer data)
{
  GRand *rand = g_rand_new_with_seed (GPOINTER_TO_UINT (data));
  const gsize sizes[] = { 0, 1, 4095, CO_PARCOPY_MIN_PART - 1,
    2 * CO_PARCOPY_MIN_PART - 1, 2 * CO_PARCOPY_MIN_PART,
    2 * CO_PARCOPY_MIN_PART + 7, 9 * CO_PARCOPY_MIN_PART + 333,
    33177600 + 13
  };
  guint i, k;

  for (i = 0; i < G_N_ELEMENTS (sizes); i++) {
    gsize n = sizes[i], so = g_rand_int_range (rand, 0, 64),
        d_o = g_rand_int_range (rand, 0, 64);
    guint8 *src = g_malloc (n + 64), *dst = g_malloc (n + 128);
    CoParcopyJob *job = co_parcopy_job_new ();
    guint parts;

    for (k = 0; k < n + 64; k++)
      src[k] = (guint8) g_rand_int (rand);
    memset (dst, 0xa5, n + 128);
    parts = co_parcopy_job_add (job, dst + d_o, src + so, n, NULL, NULL);
    co_parcopy_job_finish (job);
    g_assert_cmpuint (parts, >=, 1);
    g_assert_cmpuint (parts, <=, co_parallel_copy_parts ());
    if (n >= 4 * CO_PARCOPY_MIN_PART)
      g_assert_cmpuint (parts, >, 1);
    g_assert_true (memcmp (dst + d_o, src + so, n) == 0);
    for (k = 0; k < d_o; k++)
      g_assert_cmpuint (dst[k], ==, 0xa5);
    for (k = d_o + n; k < n + 128; k++)
      g_assert_cmpuint (dst[k], ==, 0xa5);
    g_free (src);
    g_free (dst);
  }
  g_rand_free (rand);
  return NULL;
}

static void
test_parallel_copy (void)
{
  GThread *t[4];
  guint i;

  /* the host's CPUs less two, 2 to CO_PARCOPY_MAX_PARTS */
  g_assert_cmpuint (co_parallel_copy_parts (), >=, 2);
  g_assert_cmpuint (co_parallel_copy_parts (), <=, CO_PARCOPY_MAX_PARTS);
  g_assert_cmpuint (co_parallel_copy_parts (), ==,
      CLAMP ((gint) g_get_num_processors () - 2, 2, CO_PARCOPY_MAX_PARTS));
  for (i = 0; i < G_N_ELEMENTS (t); i++)
    t[i] = g_thread_new ("parcopy", parcopy_worker, GUINT_TO_POINTER (i + 1));
  for (i = 0; i < G_N_ELEMENTS (t); i++)
    g_thread_join (t[i]);
}

/* Jobs: copies that run while their caller goes on.  Each copy's done
 * notify sees it complete, the notifies come in the order the copies were
 * added, and several jobs in flight at once (the next frame's copies
 * queued before the previous frame's job is finished) all come out right. */
typedef struct
{
  const guint8 *src;
  guint8 *dst;
  gsize size;
  guint index;
  GArray *order;
} JobCopy;

static void
job_copy_done (gpointer data)
{
  JobCopy *c = data;

  g_assert_true (memcmp (c->dst, c->src, c->size) == 0);
  g_array_append_val (c->order, c->index);
}

static void
test_parcopy_jobs (void)
{
  const gsize sizes[] = { 5 * CO_PARCOPY_MIN_PART + 77, 1000, 0,
    2 * CO_PARCOPY_MIN_PART, 3 * CO_PARCOPY_MIN_PART - 5,
    CO_PARCOPY_MIN_QUEUED - 1, CO_PARCOPY_MIN_QUEUED, 640 * 480 + 3
  };
  enum
  { JOBS = 4, COPIES = G_N_ELEMENTS (sizes) };
  GRand *rand = g_rand_new_with_seed (0x70b5);
  CoParcopyJob *jobs[JOBS];
  JobCopy copies[JOBS][COPIES];
  GArray *order[JOBS];
  guint j, k, n;
  gsize i;

  co_parcopy_job_finish (NULL);
  for (j = 0; j < JOBS; j++) {
    jobs[j] = co_parcopy_job_new ();
    /* half of them queue their small copies too */
    if (j % 2)
      co_parcopy_job_queue_small (jobs[j]);
    order[j] = g_array_new (FALSE, FALSE, sizeof (guint));
    for (k = 0; k < COPIES; k++) {
      JobCopy *c = &copies[j][k];
      guint8 *src = g_malloc (sizes[k] + 1);

      for (i = 0; i < sizes[k]; i++)
        src[i] = (guint8) g_rand_int (rand);
      *c = (JobCopy) {
      src, g_malloc0 (sizes[k] + 1), sizes[k], k, order[j]};
      n = co_parcopy_job_add (jobs[j], c->dst, c->src, c->size,
          job_copy_done, c);
      g_assert_cmpuint (n, >=, 1);
      g_assert_cmpuint (n, <=, co_parallel_copy_parts ());
      if (sizes[k] >= 4 * CO_PARCOPY_MIN_PART)
        g_assert_cmpuint (n, >, 1);
    }
    /* a job without notifies */
    if (j == 1)
      co_parcopy_job_add (jobs[j], copies[j][1].dst, copies[j][1].src,
          copies[j][1].size, NULL, NULL);
  }
  for (j = 0; j < JOBS; j++) {
    co_parcopy_job_finish (jobs[j]);
    g_assert_cmpuint (order[j]->len, ==, COPIES);
    for (k = 0; k < COPIES; k++) {
      g_assert_cmpuint (g_array_index (order[j], guint, k), ==, k);
      g_free ((gpointer) copies[j][k].src);
      g_free (copies[j][k].dst);
    }
    g_array_free (order[j], TRUE);
  }
  g_rand_free (rand);
}

/* A job that queues small copies runs one of a small frame's size on the
 * pool while its caller goes on (its bytes arrive before the job is
 * finished); a plain job makes it at once, as it does a copy under
 * CO_PARCOPY_MIN_QUEUED bytes in either job. */
static void
test_parcopy_queue_small (void)
{
  const gsize sizes[] = { 640 * 480, CO_PARCOPY_MIN_QUEUED - 1 };
  guint q, s;

  for (q = 0; q < 2; q++)
    for (s = 0; s < G_N_ELEMENTS (sizes); s++) {
      gsize n = sizes[s], i;
      guint8 *src = g_malloc (n), *dst = g_malloc0 (n);
      CoParcopyJob *job = co_parcopy_job_new ();
      gint64 deadline = g_get_monotonic_time () + 10 * G_TIME_SPAN_SECOND;
      gboolean queued = q && n >= CO_PARCOPY_MIN_QUEUED;

      for (i = 0; i < n; i++)
        src[i] = (guint8) (i * 7 + 1);
      if (q)
        co_parcopy_job_queue_small (job);
      g_assert_cmpuint (co_parcopy_job_add (job, dst, src, n, NULL, NULL), ==,
          1);
      if (!queued)
        g_assert_true (memcmp (dst, src, n) == 0);
      /* the pool copies it, unfinished */
      while (co_parcopy_job_left (job) > 0) {
        g_assert_true (queued);
        g_assert_cmpint (g_get_monotonic_time (), <, deadline);
        g_usleep (100);
      }
      g_assert_true (memcmp (dst, src, n) == 0);
      co_parcopy_job_finish (job);
      g_assert_true (memcmp (dst, src, n) == 0);
      g_free (src);
      g_free (dst);
    }
}

/* A frame's host job (its staged input) is finished before its device
 * work is queued, by the thread that queues it (the caller's, or the
 * submit thread, while the caller stages the next frame), and by
 * co_engine_cancel() for a frame never submitted. */
#define BIG_SAMPLES (1 << 20)   /* 4 MiB of floats: the copies are cut */

typedef struct
{
  gfloat *pageable;
  gint *done;
} StagedSrc;

static void
staged_src_done (gpointer data)
{
  StagedSrc *s = data;

  g_free (s->pageable);
  g_atomic_int_inc (s->done);
  g_free (s);
}

static void
test_host_job (gconstpointer data)
{
  gboolean submit_thread = GPOINTER_TO_INT (data);
  gsize bytes = BIG_SAMPLES * sizeof (gfloat);
  CoEngineConfig cfg = { 0, };
  GError *err = NULL;
  CoEngine *e;
  gfloat *staged[3], *out[3];
  gint done = 0;
  guint seq, i, queued = 0;
  CoFrame *f;

  cfg.backend = CO_BACKEND_CPU;
  cfg.device_id = -1;
  cfg.streams = 2;
  cfg.chunks = 1;
  cfg.max_in_flight = 3;
  cfg.dev_in_size = cfg.dev_out_size = bytes;
  cfg.submit_thread = submit_thread;
  cfg.name = "host-job";
  e = co_engine_new (&cfg, &err);
  g_assert_no_error (err);
  g_assert_true (co_engine_submit_thread (e) == submit_thread);
  for (i = 0; i < 3; i++) {
    staged[i] = g_malloc (bytes);
    out[i] = g_malloc (bytes);
  }
  /* 12 frames, up to 3 in flight: frame n + 1 staged while n runs */
  for (seq = 0; seq < 12 + 3; seq++) {
    if (seq >= 3) {
      CoFrame *d = co_engine_wait_oldest (e);

      g_assert_null (d->error);
      for (i = 0; i < BIG_SAMPLES; i += 997)
        g_assert_cmpfloat (out[d->slot][i], ==,
            2.0f * ((seq - 3) * 7.0f + (gfloat) (i % 1000)));
      co_engine_release (e, d);
      queued--;
    }
    if (seq >= 12)
      continue;
    f = co_engine_acquire (e);
    {
      StagedSrc *s = g_new0 (StagedSrc, 1);
      CoChunk *ch = &f->chunks[0];
      CoAudioParams *p = &ch->params.audio;

      s->pageable = g_malloc (bytes);
      s->done = &done;
      for (i = 0; i < BIG_SAMPLES; i++)
        s->pageable[i] = seq * 7.0f + (gfloat) (i % 1000);
      f->host_job = co_parcopy_job_new ();
      co_parcopy_job_add (f->host_job, staged[f->slot], s->pageable, bytes,
          staged_src_done, s);
      f->n_chunks = 1;
      memset (ch, 0, sizeof (*ch));
      ch->kind = CO_KERNEL_AUDIO;
      ch->n_h2d = ch->n_d2h = 1;
      plan_copy (&ch->h2d[0], staged[f->slot], f->dev_in, bytes);
      plan_copy (&ch->d2h[0], f->dev_out, out[f->slot], bytes);
      p->op = CO_AUDIO_OP_GAIN;
      p->format = CO_AUDIO_F32;
      p->channels = 1;
      p->frames = BIG_SAMPLES;
      p->src = f->dev_in;
      p->dst = f->dev_out;
      p->gain = 2.0f;
    }
    g_assert_true (co_engine_submit (e, f, &err));
    g_assert_no_error (err);
    queued++;
  }
  g_assert_cmpuint (queued, ==, 0);
  g_assert_cmpint (g_atomic_int_get (&done), ==, 12);
  /* cancelled: its copy finished (its notify called) by the cancel */
  f = co_engine_acquire (e);
  {
    StagedSrc *s = g_new0 (StagedSrc, 1);

    s->pageable = g_malloc0 (bytes);
    s->done = &done;
    f->host_job = co_parcopy_job_new ();
    co_parcopy_job_add (f->host_job, staged[f->slot], s->pageable, bytes,
        staged_src_done, s);
  }
  co_engine_cancel (e, f);
  g_assert_null (f->host_job);
  g_assert_cmpint (g_atomic_int_get (&done), ==, 13);
  g_assert_true (co_engine_drain (e));
  co_engine_free (e);
  for (i = 0; i < 3; i++) {
    g_free (staged[i]);
    g_free (out[i]);
  }
}

/* Runs @c as row memcpy()s from @src into @dst (offsets from @c's own
 * pointers, relative to @src_base and @dst_base), a naive reference. */
static void
naive_copy (const CoCopy * c, const guint8 * src_base, guint8 * dst_base,
    const guint8 * src, guint8 * dst)
{
  gsize r;

  for (r = 0; r < c->rows; r++)
    memcpy (dst + ((const guint8 *) c->dst - dst_base) + r * c->dpitch,
        src + ((const guint8 *) c->src - src_base) + r * c->spitch, c->width);
}

/* co_copy_split: for plain and pitched copies and every offset, the pieces
 * move exactly the bytes of the copy, those before the offset read only
 * bytes before it and the others only bytes from it on. */
static void
test_copy_split (void)
{
  static const struct
  {
    gsize width, spitch, dpitch, rows;
  } v[] = { {7, 7, 7, 5}, {10, 16, 12, 4}, {10, 10, 16, 3}, {1, 3, 1, 6},
  {4096, 4096, 4096, 1}, {33, 40, 33, 2}
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (v); i++) {
    gsize sbytes = (v[i].rows - 1) * v[i].spitch + v[i].width;
    gsize dbytes = (v[i].rows - 1) * v[i].dpitch + v[i].width;
    guint8 *src = g_malloc (sbytes), *want = g_malloc0 (dbytes);
    guint8 *got = g_malloc0 (dbytes);
    /* addresses made up: only offsets are used */
    const guint8 *sb = (const guint8 *) (guintptr) 0x10000;
    guint8 *db = (guint8 *) (guintptr) 0x90000;
    CoCopy c = { sb, db, v[i].spitch, v[i].dpitch, v[i].width, v[i].rows };
    gsize off, k;

    g_assert_cmpuint (co_copy_extent (&c), ==, sbytes);
    for (k = 0; k < sbytes; k++)
      src[k] = (guint8) (k * 7 + 3);
    naive_copy (&c, sb, db, src, want);
    for (off = 1; off < sbytes; off++) {
      CoCopy parts[4];
      guint n = co_copy_split (&c, off, parts), j;
      gboolean after = FALSE;

      g_assert_cmpuint (n, >=, 2);
      g_assert_cmpuint (n, <=, 4);
      memset (got, 0, dbytes);
      for (j = 0; j < n; j++) {
        gsize first = (const guint8 *) parts[j].src - sb;
        gsize last = first + co_copy_extent (&parts[j]);

        g_assert_cmpuint (parts[j].rows, >, 0);
        g_assert_cmpuint (parts[j].width, >, 0);
        /* the pieces before the offset, then those from it on */
        if (first >= off)
          after = TRUE;
        if (after)
          g_assert_cmpuint (first, >=, off);
        else
          g_assert_cmpuint (last, <=, off);
        naive_copy (&parts[j], sb, db, src, got);
      }
      g_assert_true (after);
      g_assert_cmpmem (got, dbytes, want, dbytes);
    }
    g_free (src);
    g_free (want);
    g_free (got);
  }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/engine/run", test_run);
  g_test_add_func ("/engine/parallel-copy", test_parallel_copy);
  g_test_add_func ("/engine/parcopy-jobs", test_parcopy_jobs);
  g_test_add_func ("/engine/parcopy-queue-small", test_parcopy_queue_small);
  g_test_add_data_func ("/engine/host-job", GINT_TO_POINTER (FALSE),
      test_host_job);
  g_test_add_data_func ("/engine/host-job/submit-thread",
      GINT_TO_POINTER (TRUE), test_host_job);
  g_test_add_func ("/engine/cpu-direct", test_cpu_direct);
  g_test_add_func ("/engine/ordered", test_ordered);
  g_test_add_func ("/engine/ts-sources", test_ts_sources);
  g_test_add_func ("/engine/copy-split", test_copy_split);
  g_test_add_func ("/engine/wait-done", test_wait_done);
  g_test_add_func ("/engine/next-read", test_next_read);
#ifdef CO_FAULT_INJECTION
  g_test_add_func ("/engine/faults/open", test_open_faults);
  g_test_add_func ("/engine/faults/frame", test_frame_faults);
  g_test_add_func ("/engine/faults/next-read", test_next_read_failed);
  g_test_add_func ("/engine/faults/backend-choice", test_backend_choice);
#else
  g_printerr ("built without -Dfault-injection: the fault tests do not "
      "run\n");
#endif
  return g_test_run ();
}
