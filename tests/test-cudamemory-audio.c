/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cudaaudiofilter and memory:CUDAMemory.
 *
 * CO_TEST_BACKEND=cpu (make check, no GPU needed): both templates list
 * CUDA memory first; without a usable GPU for CUDA memory (backend=cpu,
 * and backend=auto where no device is there) caps queries show no CUDA
 * memory, CUDA memory forced on either side fails with an element error of
 * ours that says why (or, in a launch line, the link fails), system memory
 * keeps working; with a fake GPU (-Dfault-injection builds) the caps a GPU
 * machine advertises and the output memory the element picks; and, with
 * system memory standing in for CUDA memory on the CPU backend
 * (co_test_set_host_cuda_memory), the GPU cases below: the element's
 * device-memory paths (device plans and copies, the history kept in
 * "device" memory) against the reference and the system path.
 *
 * CO_TEST_BACKEND=cuda (the GPU machine; skipped with exit 77 elsewhere):
 * gain and FIR (3, 64 and 1023 taps), F32LE and S16LE, over streams of odd
 * and short buffers (shorter than the FIR's history, empty, one frame, a
 * DISCONT, one large enough to make every element rebuild its engine) on
 * every memory path of the element "f":
 *   sys-sys    appsrc ! f ! appsink                               (control)
 *   cuda-cuda  appsrc ! up ! CUDA ! f ! CUDA ! down ! appsink
 *   cuda-sys   appsrc ! up ! CUDA ! f ! appsink
 *   sys-cuda   appsrc ! f ! CUDA ! down ! appsink
 * where up and down are cudaaudiofilter at gain 0 dB (an exact copy into
 * and out of CUDA memory: x * 1.0f), with several chunks and streams, and
 * mode=serial; each path against the reference (co-audio-ref.c) and byte
 * for byte against the control; the passport says which memory each pad
 * had, a CUDA side moved no bytes over PCIe; one GstCudaContext for all
 * three elements; and two filters with the
 * samples kept in CUDA memory between them, equal to the same two with
 * system memory between them.
 */
#include <math.h>
#include <string.h>
#include <gst/audio/audio.h>

#include "co-audio-ref.h"
#include "co-test-cudamem.h"
#include "co-test-util.h"
#include "co-test-fault.h"

#define ELEMENT "cudaaudiofilter"
#define DEFAULT_SEED 0xa0d1015u
#define RATE 48000
#define CHANNELS 2

static const gchar *const formats[] = { "F32LE", "S16LE" };

/* A system-memory buffer of @frames random frames of @s. */
static GstBuffer *
random_buffer (const Sig * s, gsize frames, guint32 seed)
{
  GRand *rand = g_rand_new_with_seed (seed);
  GstBuffer *buf = gst_buffer_new_allocate (NULL, frames * co_sig_bpf (s),
      NULL);
  GstMapInfo map;
  gsize i;

  gst_buffer_map (buf, &map, GST_MAP_WRITE);
  for (i = 0; i < frames * s->channels; i++) {
    if (s->s16) {
      gint16 v = (gint16) g_rand_int_range (rand, -32768, 32768);
      memcpy (map.data + 2 * i, &v, 2);
    } else {
      gfloat v = (gfloat) g_rand_double_range (rand, -1.0, 1.0);
      memcpy (map.data + 4 * i, &v, 4);
    }
  }
  gst_buffer_unmap (buf, &map);
  g_rand_free (rand);
  return buf;
}

static gchar *
caps_fields (const gchar * fmt)
{
  return g_strdup_printf ("format=%s,rate=%d,channels=%d,"
      "layout=interleaved", fmt, RATE, CHANNELS);
}

/* ------------------------------------------------------------------------ */
/* Without a GPU for CUDA memory (CO_TEST_BACKEND=cpu)                       */
/* ------------------------------------------------------------------------ */

/* Both templates: CUDA memory first, then system memory, both formats. */
GST_START_TEST (test_templates)
{
  GstElementFactory *f = gst_element_factory_find (ELEMENT);
  const GList *l;

  fail_unless (f != NULL);
  for (l = gst_element_factory_get_static_pad_templates (f); l; l = l->next) {
    GstCaps *caps = gst_static_caps_get (&((GstStaticPadTemplate *)
            l->data)->static_caps);
    guint i;

    fail_unless_equals_int (gst_caps_get_size (caps), 2);
    fail_unless (gst_caps_features_contains (gst_caps_get_features (caps, 0),
            CUDA_FEATURE));
    fail_if (gst_caps_features_contains (gst_caps_get_features (caps, 1),
            CUDA_FEATURE));
    for (i = 0; i < 2; i++)
      fail_unless (gst_structure_is_equal (gst_caps_get_structure (caps, 0),
              gst_caps_get_structure (caps, i)));
    fail_unless_equals_int (gst_value_list_get_size (gst_structure_get_value
            (gst_caps_get_structure (caps, 0), "format")),
        G_N_ELEMENTS (formats));
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
    co_test_check_caps_no_cuda ("audiotestsrc", ELEMENT, backend,
        "audio/x-raw");
}

GST_END_TEST;

/* appsrc (system-memory buffers, caps in @in memory) ! element (FIR) !
 * capsfilter (@out memory) ! appsink, for every combination and both
 * formats: system memory on both sides works, CUDA memory on either side
 * fails with our error. */
GST_START_TEST (test_pad_combinations)
{
  const gchar *backend;
  gboolean in_cuda = __i__ & 1, out_cuda = (__i__ >> 1) & 1;
  const gchar *fmt = formats[(__i__ >> 2) & 1];
  Sig sig = { g_str_equal (fmt, "S16LE"), CHANNELS, TRUE, 3, NULL, 0.0 };
  gchar *fields, *desc;
  GList *bufs = NULL;
  RunResult r;
  gint i;

  if (!co_test_no_gpu_backend (__i__ >> 3, &backend))
    return;
  fields = caps_fields (fmt);
  desc = g_strdup_printf ("appsrc name=src format=time caps=\"audio/x-raw%s,"
      "%s\" ! %s name=f backend=%s operation=fir taps=\"<0.25,0.5,0.25>\" ! "
      "capsfilter name=cf ! appsink name=sink sync=false", in_cuda ? "("
      CUDA_FEATURE ")" : "", fields, ELEMENT, backend);
  for (i = 0; i < 3; i++) {
    GstBuffer *b = random_buffer (&sig, 999 + i, i);

    GST_BUFFER_PTS (b) = i * GST_SECOND / 48;
    bufs = g_list_append (bufs, b);
  }
  co_test_run_pipeline (desc, out_cuda ? "audio/x-raw(" CUDA_FEATURE ")" :
      "audio/x-raw", bufs, FALSE, &r);
  co_test_check_pad_combination (&r, desc, in_cuda, out_cuda, 3);
  co_test_run_result_clear (&r);
  g_free (desc);
  g_free (fields);
}

GST_END_TEST;

/* CUDA memory forced next to the element in a launch line: the link
 * itself is refused, naming the caps. */
GST_START_TEST (test_forced_at_link)
{
  const gchar *backend;

  if (co_test_no_gpu_backend (__i__ >> 1, &backend))
    co_test_check_forced_at_link ("audiotestsrc", "audio/x-raw", ELEMENT,
        backend, __i__ & 1);
}

GST_END_TEST;

typedef struct
{
  const gchar *in;              /* input caps */
  const gchar *takes;           /* what downstream takes */
  const gchar *out;             /* the output caps the element must pick */
} FakeCase;

#define F32_CAPS "format=F32LE,rate=48000,channels=2,layout=interleaved"
static const FakeCase fake_cases[] = {
  {"audio/x-raw," F32_CAPS, "ANY", "audio/x-raw," F32_CAPS},
  {"audio/x-raw(" CUDA_FEATURE ")," F32_CAPS, "ANY",
      "audio/x-raw(" CUDA_FEATURE ")," F32_CAPS},
  {"audio/x-raw(" CUDA_FEATURE ")," F32_CAPS, "audio/x-raw",
      "audio/x-raw," F32_CAPS},
  {"audio/x-raw," F32_CAPS, "audio/x-raw(" CUDA_FEATURE ")",
      "audio/x-raw(" CUDA_FEATURE ")," F32_CAPS},
};

/* With a fake GPU: downstream's caps are offered upstream in both
 * memories, and the CAPS event picks the output memory (the same when
 * downstream takes it, else the other). */
GST_START_TEST (test_fake_gpu)
{
  const FakeCase *fc = &fake_cases[__i__];
  GstCaps *offered = NULL, *got = NULL, *want;

  /* the suite adds this test only where the hook exists */
  fail_unless (co_test_fake_negotiate (ELEMENT, fc->in, fc->takes, &offered,
          &got), "no co_test_set_fake_cuda_memory");
  want = gst_caps_from_string ("audio/x-raw(" CUDA_FEATURE "),format=S16LE");
  fail_unless (gst_caps_can_intersect (offered, want), "%" GST_PTR_FORMAT,
      offered);
  gst_caps_unref (want);
  if (!g_str_equal (fc->takes, "audio/x-raw(" CUDA_FEATURE ")")) {
    want = gst_caps_from_string ("audio/x-raw,format=S16LE");
    fail_unless (gst_caps_can_intersect (offered, want), "%" GST_PTR_FORMAT,
        offered);
    gst_caps_unref (want);
  }
  want = gst_caps_from_string (fc->out);
  fail_unless (got && gst_caps_is_equal (got, want), "in %s, downstream %s: "
      "output %" GST_PTR_FORMAT ", not %s", fc->in, fc->takes, got, fc->out);
  gst_caps_unref (want);
  gst_caps_unref (offered);
  gst_clear_caps (&got);
}

GST_END_TEST;

/* ------------------------------------------------------------------------ */
/* On the GPU (CO_TEST_BACKEND=cuda)                                         */
/* ------------------------------------------------------------------------ */

/* The buffers of a stream, in frames: odd, shorter than 1022 (the longest
 * FIR's history), empty, one frame; a DISCONT at DISCONT_AT; LARGE frames
 * (over the 1 MiB the slots hold at first: every element rebuilds). */
#define LARGE 300007
static const gsize stream_frames[] = { 1000, 1, 3, 4097, 0, 777, 2, 12345,
  LARGE, 300, 1022, 513, 5, 70001
};

#define DISCONT_AT 7

typedef struct
{
  gboolean fir;
  guint n_taps;
  gdouble gain_db;
} GpuOp;

static const GpuOp gpu_ops[] = {
  {FALSE, 1, -6.0},
  {TRUE, 3, 0.0},
  {TRUE, 64, 0.0},
  {TRUE, 1023, 0.0},
};

/* streams and chunks of "f" */
static const gchar *const gpu_runs[] = {
  "streams=4 chunks=4", "streams=2 chunks=7", "mode=serial"
};

static const gchar *const path_names[] = { "sys-sys", "cuda-cuda",
  "cuda-sys", "sys-cuda"
};

/* A copy into or out of CUDA memory (gain 0 dB: x * 1.0f, exact). */
#define COPY_ELEMENT ELEMENT " backend=cuda operation=gain gain-db=0"
#define COPY_ELEMENT_FMT ELEMENT " backend=%s operation=gain gain-db=0"

static gchar *
taps_string (const Sig * s)
{
  GString *str = g_string_new ("<");
  guint k;

  for (k = 0; k < s->n_taps; k++)
    g_string_append_printf (str, "%s%.17g", k ? "," : "", s->taps[k]);
  g_string_append (str, ">");
  return g_string_free (str, FALSE);
}

static gchar *
filter_props (const Sig * s)
{
  gchar *taps, *props;

  if (!s->fir)
    return g_strdup_printf ("operation=gain gain-db=%g", s->gain_db);
  taps = taps_string (s);
  props = g_strdup_printf ("operation=fir taps=\"%s\"", taps);
  g_free (taps);
  return props;
}

static gchar *
path_pipeline (guint path, const gchar * fmt, const Sig * s, const gchar * run,
    const gchar * backend)
{
  gboolean in_cuda = path == 1 || path == 2, out_cuda = path == 1 || path == 3;
  gchar *fields = caps_fields (fmt), *props = filter_props (s);
  gchar *up = g_strdup_printf (COPY_ELEMENT_FMT " name=up ! audio/x-raw("
      CUDA_FEATURE ") ! ", backend);
  gchar *down = g_strdup_printf ("audio/x-raw(" CUDA_FEATURE ") ! "
      COPY_ELEMENT_FMT " name=down ! audio/x-raw", backend);
  gchar *desc = g_strdup_printf ("appsrc name=src format=time caps=\""
      "audio/x-raw,%s\" ! %s%s name=f backend=%s %s %s ! %s ! appsink "
      "name=sink sync=false", fields, in_cuda ? up : "", ELEMENT, backend,
      props, run, out_cuda ? down : "audio/x-raw");

  g_free (up);
  g_free (down);
  g_free (fields);
  g_free (props);
  return desc;
}

/* The stream's input buffers (timestamps, a DISCONT). */
static GList *
stream_buffers (const Sig * s, guint32 seed)
{
  GList *bufs = NULL;
  guint64 frame = 0;
  guint i;

  for (i = 0; i < G_N_ELEMENTS (stream_frames); i++) {
    GstBuffer *b = random_buffer (s, stream_frames[i], seed + i);

    GST_BUFFER_PTS (b) = gst_util_uint64_scale_int (frame, GST_SECOND, RATE);
    GST_BUFFER_DURATION (b) = gst_util_uint64_scale_int (stream_frames[i],
        GST_SECOND, RATE);
    GST_BUFFER_OFFSET (b) = frame;
    if (i == DISCONT_AT)
      GST_BUFFER_FLAG_SET (b, GST_BUFFER_FLAG_DISCONT);
    frame += stream_frames[i];
    bufs = g_list_append (bufs, b);
  }
  return bufs;
}

static GList *
copy_buffers (GList * bufs)
{
  GList *copy = NULL, *l;

  for (l = bufs; l; l = l->next)
    copy = g_list_append (copy, gst_buffer_copy (l->data));
  return copy;
}

/* Each output buffer against the reference (reset at the DISCONT), with
 * the bounds of co-audio-ref.h. */
static void
check_against_reference (const Sig * s, GList * in, GList * out,
    const gchar * what)
{
  Ref ref;
  StreamErr se = { 0, };
  guint64 first = 0;
  guint i;

  fail_unless_equals_int (g_list_length (out), g_list_length (in));
  co_aref_init (&ref, s);
  for (i = 0; in && out; in = in->next, out = out->next, i++) {
    GstMapInfo mi, mo;
    gsize frames = gst_buffer_get_size (in->data) / co_sig_bpf (s);
    gdouble *y = g_new (gdouble, frames * s->channels + 1);
    gdouble *ab = g_new (gdouble, frames * s->channels + 1);

    if (i == DISCONT_AT)
      co_aref_reset (&ref);
    fail_unless_equals_int (gst_buffer_get_size (out->data),
        gst_buffer_get_size (in->data));
    gst_buffer_map (in->data, &mi, GST_MAP_READ);
    gst_buffer_map (out->data, &mo, GST_MAP_READ);
    co_aref_process (&ref, mi.data, frames, y, ab);
    co_aref_check_samples (s, mo.data, y, ab, frames, first, &se, what);
    gst_buffer_unmap (in->data, &mi);
    gst_buffer_unmap (out->data, &mo);
    first += frames;
    g_free (y);
    g_free (ab);
  }
  co_aref_check_stream_error (s, &se, what);
  co_aref_clear (&ref);
}

/* @got's buffers byte for byte equal to @want's. */
static void
compare_runs (GList * want, GList * got, const gchar * what)
{
  guint i;

  fail_unless_equals_int (g_list_length (got), g_list_length (want));
  for (i = 0; want && got; want = want->next, got = got->next, i++) {
    GstMapInfo mw, mg;

    gst_buffer_map (want->data, &mw, GST_MAP_READ);
    gst_buffer_map (got->data, &mg, GST_MAP_READ);
    fail_unless (mw.size == mg.size && memcmp (mw.data, mg.data,
            mw.size) == 0, "%s: buffer %u differs from the system-memory "
        "path's", what, i);
    gst_buffer_unmap (want->data, &mw);
    gst_buffer_unmap (got->data, &mg);
  }
}

static void
sig_for (Sig * s, const GpuOp * op, const gchar * fmt, GRand * rand)
{
  memset (s, 0, sizeof (*s));
  s->s16 = g_str_equal (fmt, "S16LE");
  s->channels = CHANNELS;
  s->fir = op->fir;
  s->n_taps = op->n_taps;
  s->gain_db = op->gain_db;
  s->taps = op->fir ? co_sig_random_taps (rand, op->n_taps, s->s16) : NULL;
}

/* Case @i (an operation x format x run configuration) on every memory
 * path of "f": the reference, the control byte for byte, the memory
 * facts. */
static void
run_paths (guint i, const gchar * backend)
{
  const guint n_ops = G_N_ELEMENTS (gpu_ops), n_fmts = G_N_ELEMENTS (formats);
  const GpuOp *op = &gpu_ops[i % n_ops];
  const gchar *fmt = formats[(i / n_ops) % n_fmts];
  const gchar *run = gpu_runs[i / (n_ops * n_fmts)];
  GRand *rand = g_rand_new_with_seed (co_test_seed ("cuda_paths", i));
  GList *in, *control = NULL;
  guint path;
  Sig s;

  sig_for (&s, op, fmt, rand);
  in = stream_buffers (&s, co_test_seed ("cuda_paths_in", i));
  for (path = 0; path < 4; path++) {
    gchar *desc = path_pipeline (path, fmt, &s, run, backend);
    gchar *what = g_strdup_printf ("%s (seed 0x%08x) %s", path_names[path],
        co_test_seed ("cuda_paths", i), desc);
    RunResult r;

    co_test_run_pipeline (desc, NULL, copy_buffers (in), FALSE, &r);
    fail_unless (r.error == NULL, "%s: %" GST_PTR_FORMAT, what, r.error);
    check_against_reference (&s, in, r.out, what);
    if (control)
      compare_runs (control, r.out, what);
    co_test_check_memory_facts (&r, path == 1 || path == 2, path == 1 ||
        path == 3, what);
    if (path == 0)
      control = g_steal_pointer (&r.out);
    co_test_run_result_clear (&r);
    g_free (desc);
    g_free (what);
  }
  g_list_free_full (control, (GDestroyNotify) gst_buffer_unref);
  g_list_free_full (in, (GDestroyNotify) gst_buffer_unref);
  g_free (s.taps);
  g_rand_free (rand);
}

GST_START_TEST (test_cuda_paths)
{
  run_paths (__i__, "cuda");
}

GST_END_TEST;

/* The same on the CPU backend, whose "device" memory is host memory
 * (-Dfault-injection builds): the element's device-memory paths (the
 * device plans and copies, the history kept in "device" memory, the
 * negotiation, the memory facts) without a GPU. */
GST_START_TEST (test_host_paths)
{
  /* the suite adds this test only where the hook exists */
  fail_unless (co_test_set_host_cuda_memory (TRUE),
      "no co_test_set_host_cuda_memory");
  run_paths (__i__, "cpu");
  co_test_set_host_cuda_memory (FALSE);
}

GST_END_TEST;

/* One GstCudaContext for up, f and down: the first one made (the
 * device's primary context, wrapped by the first of them to reach READY),
 * which the others find and join. */
GST_START_TEST (test_context_shared)
{
  const gchar *desc = "appsrc name=src caps=\"audio/x-raw,format=F32LE,"
      "rate=48000,channels=2,layout=interleaved\" ! " COPY_ELEMENT " name=up "
      "! audio/x-raw(" CUDA_FEATURE ") ! " ELEMENT " name=f backend=cuda "
      "operation=fir taps=\"<0.5,0.5>\" ! audio/x-raw(" CUDA_FEATURE ") ! "
      COPY_ELEMENT " name=down ! audio/x-raw ! fakesink";
  const gchar *names[] = { "up", "f", "down" };
  GstElement *pipe;
  GObject *ctx[3];
  guint i;

  pipe = gst_parse_launch (desc, NULL);
  fail_unless (pipe != NULL);
  fail_if (gst_element_set_state (pipe, GST_STATE_PAUSED) ==
      GST_STATE_CHANGE_FAILURE);
  for (i = 0; i < 3; i++) {
    GstElement *e = gst_bin_get_by_name (GST_BIN (pipe), names[i]);

    ctx[i] = co_test_element_cuda_context (e);
    fail_unless (ctx[i] != NULL, "%s has no CUDA context", names[i]);
    gst_object_unref (e);
  }
  fail_unless (ctx[0] == ctx[1] && ctx[1] == ctx[2], "contexts %p %p %p",
      ctx[0], ctx[1], ctx[2]);
  gst_element_set_state (pipe, GST_STATE_NULL);
  for (i = 0; i < 3; i++)
    g_object_unref (ctx[i]);
  gst_object_unref (pipe);
}

GST_END_TEST;

/* Two filters: a FIR, then a gain, the samples in CUDA memory
 * between them (no copy over PCIe there), equal byte for byte to the same
 * two filters with system memory between them. */
static void
run_two_filters (guint i, const gchar * backend)
{
  const gchar *fmt = formats[i];
  GRand *rand = g_rand_new_with_seed (co_test_seed ("two_filters", i));
  GList *in, *outs[2] = { NULL, NULL };
  GpuOp fir = { TRUE, 64, 0.0 };
  gchar *fields = caps_fields (fmt), *props;
  guint k;
  Sig s;

  sig_for (&s, &fir, fmt, rand);
  props = filter_props (&s);
  in = stream_buffers (&s, co_test_seed ("two_filters_in", i));
  for (k = 0; k < 2; k++) {
    gchar *desc = g_strdup_printf ("appsrc name=src format=time caps=\""
        "audio/x-raw,%s\" ! %s name=f1 backend=%s %s streams=3 chunks=3 ! "
        "audio/x-raw%s ! %s name=f backend=%s operation=gain gain-db=-3 "
        "streams=2 chunks=5 ! audio/x-raw ! appsink name=sink sync=false",
        fields, ELEMENT, backend, props, k ? "(" CUDA_FEATURE ")" : "",
        ELEMENT, backend);
    RunResult r;

    co_test_run_pipeline (desc, NULL, copy_buffers (in), FALSE, &r);
    fail_unless (r.error == NULL, "%s: %" GST_PTR_FORMAT, desc, r.error);
    fail_unless_equals_int (g_list_length (r.out), g_list_length (in));
    co_test_check_memory_facts (&r, k == 1, FALSE, desc);
    outs[k] = g_steal_pointer (&r.out);
    co_test_run_result_clear (&r);
    g_free (desc);
  }
  compare_runs (outs[0], outs[1], "CUDA memory between the filters");
  for (k = 0; k < 2; k++)
    g_list_free_full (outs[k], (GDestroyNotify) gst_buffer_unref);
  g_list_free_full (in, (GDestroyNotify) gst_buffer_unref);
  g_free (props);
  g_free (fields);
  g_free (s.taps);
  g_rand_free (rand);
}

GST_START_TEST (test_two_filters)
{
  run_two_filters (__i__, "cuda");
}

GST_END_TEST;

GST_START_TEST (test_host_two_filters)
{
  /* the suite adds this test only where the hook exists */
  fail_unless (co_test_set_host_cuda_memory (TRUE),
      "no co_test_set_host_cuda_memory");
  run_two_filters (__i__, "cpu");
  co_test_set_host_cuda_memory (FALSE);
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
cudamemory_audio_suite (void)
{
  Suite *s = suite_create ("cudamemory-audio");
  TCase *tc;

  tc = co_test_new_tcase (s, "templates", teardown);
  tcase_add_test (tc, test_templates);
  if (g_str_equal (co_test_backend, "cpu")) {
    tc = co_test_new_tcase (s, "no-gpu", teardown);
    tcase_add_loop_test (tc, test_caps_queries_no_cuda, 0, 2);
    tcase_add_loop_test (tc, test_pad_combinations, 0, 16);
    tcase_add_loop_test (tc, test_forced_at_link, 0, 4);
    co_test_add_loop_if (tc, test_fake_gpu, 0, G_N_ELEMENTS (fake_cases),
        co_test_hook_missing ("co_test_set_fake_cuda_memory"));
    tc = co_test_new_tcase (s, "host-memory", teardown);
    co_test_add_loop_if (tc, test_host_paths, 0, G_N_ELEMENTS (gpu_ops) *
        G_N_ELEMENTS (formats) * G_N_ELEMENTS (gpu_runs),
        co_test_hook_missing ("co_test_set_host_cuda_memory"));
    co_test_add_loop_if (tc, test_host_two_filters, 0,
        G_N_ELEMENTS (formats),
        co_test_hook_missing ("co_test_set_host_cuda_memory"));
  } else {
    tc = co_test_new_tcase (s, "gpu", teardown);
    tcase_add_loop_test (tc, test_cuda_paths, 0, G_N_ELEMENTS (gpu_ops) *
        G_N_ELEMENTS (formats) * G_N_ELEMENTS (gpu_runs));
    tcase_add_test (tc, test_context_shared);
    tcase_add_loop_test (tc, test_two_filters, 0, G_N_ELEMENTS (formats));
  }
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
  s = cudamemory_audio_suite ();
  sr = srunner_create (s);
  srunner_run_all (sr, CK_NORMAL);
  n_failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  co_test_leaks_free ();
  return co_test_exit_status (n_failed);
}
