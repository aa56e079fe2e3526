/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Unit tests of the audio planner (engine/co-audio.c) without GStreamer
 * and without a GPU: plans are executed on host memory the way the engine
 * would (each chunk's H2D copies, its kernel on the CPU, its D2H copies),
 * chunks in reverse order to show that none needs another, over input
 * areas poisoned with NaN.  The CUDA plan (direct = FALSE: every halo and
 * frame uploaded, every output downloaded) runs here too, which the
 * element tests can only reach on a GPU.
 *
 * The result must be bit-identical to one kernel call over the contiguous
 * stream "history, then input" (the per-sample sum order does not depend
 * on the chunking), and the history update must equal the naive tail.
 */
#include <math.h>
#include <string.h>
#include <glib.h>

#include "co-audio.h"

static void
exec_copy (const CoCopy * c)
{
  gsize r;

  for (r = 0; r < c->rows; r++)
    memcpy ((guint8 *) c->dst + r * c->dpitch,
        (const guint8 *) c->src + r * c->spitch, c->width);
}

static gboolean
inside (const void *p, gsize n, const void *base, gsize size)
{
  const guint8 *a = p, *b = base;

  return a >= b && a + n <= b + size;
}

typedef struct
{
  CoAudioFormat format;
  gint channels;
  gint n_taps;
  CoAudioOp op;
  gint64 frames;
  guint chunks;
} Case;

static void
run_case (const Case * tc, gboolean direct, GRand * rand)
{
  CoAudioDesc d = { 0, };
  gsize bpf, in_size, out_size, hb;
  gint64 h, max_frames = tc->frames + g_rand_int_range (rand, 0, 3);
  CoFrame *f = g_new0 (CoFrame, 1);
  guint8 *in, *out, *hist, *ref_src, *ref_out, *tail;
  gfloat *taps;
  guint n, c, k;
  gint64 i;
  CoAudioParams p;
  gint64 starts[CO_MAX_CHUNKS + 1];
  gchar *ctx;

  d.op = tc->op;
  d.format = tc->format;
  d.channels = tc->channels;
  d.n_taps = tc->n_taps;
  d.gain = 0.7f;
  taps = g_new (gfloat, tc->n_taps);
  for (k = 0; k < (guint) tc->n_taps; k++)
    taps[k] = (gfloat) g_rand_double_range (rand, -1, 1) / tc->n_taps;
  d.taps = taps;
  bpf = co_audio_frame_bytes (&d);
  h = co_audio_halo (&d);
  hb = (gsize) h *bpf;
  ctx = g_strdup_printf ("[%s %dch op=%d taps=%d frames=%" G_GINT64_FORMAT
      " chunks=%u %s]", tc->format == CO_AUDIO_S16 ? "S16" : "F32",
      tc->channels, tc->op, tc->n_taps, tc->frames, tc->chunks,
      direct ? "direct" : "copies");

  co_audio_plan_sizes (&d, tc->chunks, max_frames, &in_size, &out_size);
  f->dev_in_size = in_size;
  f->dev_out_size = out_size;
  f->dev_in = g_malloc (MAX (in_size, 1));
  f->dev_out = g_malloc (MAX (out_size, 1));
  /* poison: 0xff bytes are NaN floats and -1 shorts */
  memset (f->dev_in, 0xff, in_size);
  memset (f->dev_out, 0xff, out_size);

  in = g_malloc (tc->frames * bpf + 1);
  out = g_malloc (tc->frames * bpf + 1);
  hist = g_malloc (hb + 1);
  for (i = 0; i < tc->frames * tc->channels; i++) {
    if (tc->format == CO_AUDIO_S16)
      ((gint16 *) in)[i] = (gint16) g_rand_int (rand);
    else
      ((gfloat *) in)[i] = (gfloat) g_rand_double_range (rand, -1, 1);
  }
  for (i = 0; i < h * tc->channels; i++) {
    if (tc->format == CO_AUDIO_S16)
      ((gint16 *) hist)[i] = (gint16) g_rand_int (rand);
    else
      ((gfloat *) hist)[i] = (gfloat) g_rand_double_range (rand, -1, 1);
  }
  memset (out, 0xff, tc->frames * bpf);

  n = co_audio_plan (&d, tc->chunks, direct, f, in, out, tc->frames, hist);
  g_assert_cmpuint (n, ==, f->n_chunks);
  g_assert_cmpuint (n, ==, co_audio_chunks (tc->frames, tc->chunks, starts));
  g_assert_cmpuint (n, >=, 1);
  g_assert_cmpuint (n, <=, MAX (tc->chunks, 1));
  g_assert_cmpint (starts[0], ==, 0);
  g_assert_cmpint (starts[n], ==, tc->frames);

  for (c = 0; c < n; c++) {
    CoChunk *ch = &f->chunks[c];
    gint64 len = starts[c + 1] - starts[c];

    g_assert_cmpint (ch->params.audio.frames, ==, len);
    g_assert_cmpint (ch->params.audio.history, ==, h);
    if (n > 1)
      g_assert_cmpint (len, >=, CO_AUDIO_MIN_CHUNK_FRAMES);
    if (c + 1 < n)              /* as equal as possible */
      g_assert_cmpint (ABS (len - (starts[c + 2] - starts[c + 1])), <=, 1);
    g_assert_cmpuint (ch->n_h2d, <=, 2);
    g_assert_cmpuint (ch->n_d2h, <=, 1);
    for (k = 0; k < ch->n_h2d; k++) {
      const CoCopy *cp = &ch->h2d[k];
      gsize bytes = cp->width * cp->rows;

      g_assert_true (inside (cp->dst, bytes, f->dev_in, in_size));
      g_assert_true (inside (cp->src, bytes, in, tc->frames * bpf) ||
          inside (cp->src, bytes, hist, hb));
    }
    if (direct) {
      g_assert_cmpuint (ch->n_d2h, ==, 0);
      g_assert_true (ch->params.audio.dst == out + starts[c] * bpf);
    } else if (len > 0) {
      g_assert_cmpuint (ch->n_d2h, ==, 1);
      g_assert_true (inside (ch->params.audio.src, (h + len) * bpf,
              f->dev_in, in_size));
      g_assert_true (ch->d2h[0].dst == out + starts[c] * bpf);
      g_assert_cmpuint (ch->d2h[0].width, ==, len * bpf);
    }
    /* chunks at least a halo into the buffer read it in place on the CPU */
    if (direct && starts[c] >= h && len > 0)
      g_assert_cmpuint (ch->n_h2d, ==, 0);
  }

  /* run as the engine would, last chunk first */
  for (c = n; c-- > 0;) {
    CoChunk *ch = &f->chunks[c];

    for (k = 0; k < ch->n_h2d; k++)
      exec_copy (&ch->h2d[k]);
    g_assert_cmpint (co_audio_run_cpu (&ch->params.audio), ==, 0);
    for (k = 0; k < ch->n_d2h; k++)
      exec_copy (&ch->d2h[k]);
  }

  /* one kernel call over history + input */
  ref_src = g_malloc (hb + tc->frames * bpf + 1);
  ref_out = g_malloc (tc->frames * bpf + 1);
  memcpy (ref_src, hist, hb);
  memcpy (ref_src + hb, in, tc->frames * bpf);
  p = f->chunks[0].params.audio;
  p.frames = tc->frames;
  p.src = ref_src;
  p.dst = ref_out;
  g_assert_cmpint (co_audio_run_cpu (&p), ==, 0);
  if (memcmp (out, ref_out, tc->frames * bpf) != 0) {
    for (i = 0; i < (gint64) (tc->frames * bpf); i++)
      if (out[i] != ref_out[i])
        break;
    g_error ("%s: output differs from one unchunked kernel call at byte %"
        G_GINT64_FORMAT " (frame %" G_GINT64_FORMAT ")", ctx, i,
        i / (gint64) bpf);
  }

  /* history update: the last h frames of history + input */
  tail = g_malloc (hb + 1);
  memcpy (tail, hist, hb);
  co_audio_history_update (&d, tail, in, tc->frames);
  if (hb > 0)
    g_assert_true (memcmp (tail, ref_src + tc->frames * bpf, hb) == 0);

  g_free (tail);
  g_free (ref_src);
  g_free (ref_out);
  g_free (in);
  g_free (out);
  g_free (hist);
  g_free (taps);
  g_free (f->dev_in);
  g_free (f->dev_out);
  g_free (f);
  g_free (ctx);
}

static void
test_plans (void)
{
  static const gint64 frames[] = { 0, 1, 2, 5, 62, 63, 64, 255, 256, 511,
    512, 700, 1000, 1022, 1023, 1024, 1300, 2047, 4096, 5000, 33333
  };
  static const gint channels[] = { 1, 2, 3, 7, 64 };
  static const gint taps[] = { 1, 2, 3, 64, 1023 };
  static const guint chunks[] = { 1, 2, 3, 5, 8, 64 };
  GRand *rand = g_rand_new_with_seed (0xc0a0d10);
  guint a, b, c, e, g, direct;

  for (a = 0; a < G_N_ELEMENTS (frames); a++)
    for (b = 0; b < G_N_ELEMENTS (channels); b++)
      for (c = 0; c < G_N_ELEMENTS (taps); c++)
        for (e = 0; e < G_N_ELEMENTS (chunks); e++)
          for (g = 0; g < 3; g++)
            for (direct = 0; direct < 2; direct++) {
              Case tc;

              /* keep it quick: big cases on a sparse grid */
              if ((guint64) frames[a] * channels[b] * taps[c] > 3000000 ||
                  (frames[a] > 2047 && (b + c + e + g) % 3 != 0))
                continue;
              tc.format = g == 1 ? CO_AUDIO_S16 : CO_AUDIO_F32;
              tc.op = g == 2 ? CO_AUDIO_OP_GAIN : CO_AUDIO_OP_FIR;
              tc.channels = channels[b];
              tc.n_taps = taps[c];
              tc.frames = frames[a];
              tc.chunks = chunks[e];
              run_case (&tc, direct, rand);
            }
  g_rand_free (rand);
}

static void
test_chunks (void)
{
  gint64 starts[CO_MAX_CHUNKS + 1];

  g_assert_cmpuint (co_audio_chunks (0, 4, starts), ==, 1);
  g_assert_cmpuint (co_audio_chunks (1, 4, starts), ==, 1);
  g_assert_cmpuint (co_audio_chunks (CO_AUDIO_MIN_CHUNK_FRAMES * 2 - 1, 4,
          starts), ==, 1);
  g_assert_cmpuint (co_audio_chunks (CO_AUDIO_MIN_CHUNK_FRAMES * 2, 4,
          starts), ==, 2);
  g_assert_cmpuint (co_audio_chunks (1 << 20, 4, starts), ==, 4);
  g_assert_cmpint (starts[1], ==, 1 << 18);
  g_assert_cmpuint (co_audio_chunks (1 << 24, 1000, starts), ==, CO_MAX_CHUNKS);
}

static void
test_history_short (void)
{
  /* buffers shorter than the halo shift the history */
  gfloat t[4] = { 1, 0, 0, 0 };
  CoAudioDesc d = { CO_AUDIO_OP_FIR, CO_AUDIO_F32, 1, 4, 1.0f, t };
  gfloat hist[3] = { 1, 2, 3 }, in1[1] = { 4 }, in2[2] = { 5, 6 };
  gfloat in5[5] = { 7, 8, 9, 10, 11 };

  co_audio_history_update (&d, (guint8 *) hist, (guint8 *) in1, 1);
  g_assert_cmpfloat (hist[0], ==, 2);
  g_assert_cmpfloat (hist[2], ==, 4);
  co_audio_history_update (&d, (guint8 *) hist, (guint8 *) in2, 2);
  g_assert_cmpfloat (hist[0], ==, 4);
  g_assert_cmpfloat (hist[1], ==, 5);
  g_assert_cmpfloat (hist[2], ==, 6);
  co_audio_history_update (&d, (guint8 *) hist, (guint8 *) in5, 0);
  g_assert_cmpfloat (hist[0], ==, 4);
  co_audio_history_update (&d, (guint8 *) hist, (guint8 *) in5, 5);
  g_assert_cmpfloat (hist[0], ==, 9);
  g_assert_cmpfloat (hist[2], ==, 11);
}

/* ---- input in device memory (co_audio_plan_io, in_device) ------------ */

typedef struct
{
  CoAudioDesc d;
  gsize bpf;
  gint64 h;
  guint chunks;
  gboolean out_direct;
  CoFrame *f;
  gsize in_size, out_size;
  guint8 *tail;                 /* the "device" tail: survives frames */
} DevRun;

static void
exec_d2d (const CoCopy * c)
{
  if (c->src)
    memmove (c->dst, c->src, c->width * c->rows);
  else
    memset (c->dst, 0, c->width * c->rows);
}

/* The plan of one buffer, checked and run as the engine would: the
 * ordered chunk 0 first (its copies follow the previous buffer's), then
 * the other chunks last first, over poisoned slot areas. */
static void
dev_run_buffer (DevRun * r, const guint8 * in, guint8 * out, gint64 frames,
    gboolean reset)
{
  CoAudioIo io = { 0, };
  CoFrame *f = r->f;
  guint n, c, k;
  gint64 covered = 0;

  io.in = in;
  io.out = out;
  io.in_direct = TRUE;
  io.out_direct = r->out_direct;
  io.in_device = TRUE;
  io.dev_tail = r->tail;
  io.reset = reset;
  memset (f->dev_in, 0xff, r->in_size);
  memset (f->dev_out, 0xff, r->out_size);
  n = co_audio_plan_io (&r->d, r->chunks, f, &io, frames);
  g_assert_cmpuint (n, ==, f->n_chunks);
  g_assert_cmpuint (n, <=, MAX (r->chunks, 1));
  g_assert_true (f->ordered == (r->h > 0));
  for (c = 0; c < n; c++) {
    CoChunk *ch = &f->chunks[c];
    const CoAudioParams *ap = &ch->params.audio;

    /* no host copy in: chunk 0 puts its halo together on the device,
     * every other chunk reads the buffer in place, halo included */
    g_assert_cmpuint (ch->n_h2d, ==, 0);
    g_assert_cmpint (ap->offset, ==, covered);
    covered += ap->frames;
    if (c > 0 || r->h == 0) {
      g_assert_cmpuint (ch->n_d2d, ==, 0);
      g_assert_true (ap->src == in + (ap->offset - r->h) * r->bpf);
      g_assert_cmpint (ap->offset, >=, r->h);
    } else {
      g_assert_cmpint (ap->frames, ==, r->chunks > 1 ? MIN (r->h, frames) :
          frames);
      g_assert_cmpuint (ch->n_d2d, <=, CO_CHUNK_MAX_D2D);
      g_assert_true (ap->src == f->dev_in);
    }
    g_assert_cmpuint (ch->n_d2h, ==, r->out_direct || ap->frames == 0 ? 0 : 1);
  }
  g_assert_cmpint (covered, ==, frames);
  for (k = 0; r->h > 0 && k < f->chunks[0].n_d2d; k++)
    exec_d2d (&f->chunks[0].d2d[k]);
  for (c = n; c-- > 0;) {
    CoChunk *ch = &f->chunks[c];

    for (k = 0; c > 0 && k < ch->n_d2d; k++)
      exec_d2d (&ch->d2d[k]);
    g_assert_cmpint (co_audio_run_cpu (&ch->params.audio), ==, 0);
    for (k = 0; k < ch->n_d2h; k++)
      exec_copy (&ch->d2h[k]);
  }
}

/* A stream of buffers of odd and short lengths through the device plan
 * equals one kernel call over zeros and the whole stream; a reset in the
 * middle starts again from zeros. */
static void
run_device_stream (CoAudioFormat format, gint channels, gint n_taps,
    CoAudioOp op, guint chunks, gboolean out_direct, GRand * rand)
{
  static const gint64 lens[] = { 1000, 1, 0, 3, 777, 2, 4097, 300, 513, 5 };
  DevRun r = { {0,}, };
  gint64 total = 0, max = 0, i, pos, start;
  guint b, k, first;
  guint8 *in, *out, *ref_src, *ref_out;
  gfloat *taps = g_new (gfloat, n_taps);
  CoAudioParams p = { 0, };

  for (b = 0; b < G_N_ELEMENTS (lens); b++) {
    total += lens[b];
    max = MAX (max, lens[b]);
  }
  r.d.op = op;
  r.d.format = format;
  r.d.channels = channels;
  r.d.n_taps = n_taps;
  r.d.gain = 0.7f;
  for (k = 0; k < (guint) n_taps; k++)
    taps[k] = (gfloat) g_rand_double_range (rand, -1, 1) / n_taps;
  r.d.taps = taps;
  r.bpf = co_audio_frame_bytes (&r.d);
  r.h = co_audio_halo (&r.d);
  r.chunks = chunks;
  r.out_direct = out_direct;
  co_audio_plan_sizes_io (&r.d, r.chunks, max, TRUE, out_direct, &r.in_size,
      &r.out_size);
  g_assert_cmpuint (r.in_size, ==, (r.h + (chunks > 1 ? r.h : max)) * r.bpf);
  r.f = g_new0 (CoFrame, 1);
  r.f->dev_in = g_malloc (r.in_size + 1);
  r.f->dev_out = g_malloc (r.out_size + 1);
  r.f->dev_in_size = r.in_size;
  r.f->dev_out_size = r.out_size;
  r.tail = g_malloc (r.h * r.bpf + 1);
  memset (r.tail, 0x5a, r.h * r.bpf);   /* garbage until the first reset */

  in = g_malloc (total * r.bpf + 1);
  out = g_malloc (total * r.bpf + 1);
  for (i = 0; i < total * channels; i++) {
    if (format == CO_AUDIO_S16)
      ((gint16 *) in)[i] = (gint16) g_rand_int (rand);
    else
      ((gfloat *) in)[i] = (gfloat) g_rand_double_range (rand, -1, 1);
  }
  /* buffers 0 .. 5, then a reset (DISCONT) at buffer 6 */
  for (b = 0, pos = 0; b < G_N_ELEMENTS (lens); pos += lens[b], b++)
    dev_run_buffer (&r, in + pos * r.bpf, out + pos * r.bpf, lens[b],
        b == 0 || b == 6);

  /* the reference: one call per run of buffers between resets */
  ref_out = g_malloc (total * r.bpf + 1);
  ref_src = g_malloc0 ((r.h + total) * r.bpf + 1);
  for (first = 0, start = 0; first < 2; first++) {
    gint64 len = 0;

    for (b = first ? 6 : 0; b < (first ? G_N_ELEMENTS (lens) : 6); b++)
      len += lens[b];
    memset (ref_src, 0, r.h * r.bpf);
    memcpy (ref_src + r.h * r.bpf, in + start * r.bpf, len * r.bpf);
    p = r.f->chunks[0].params.audio;
    p.frames = len;
    p.history = r.h;
    p.offset = 0;
    p.src = ref_src;
    p.dst = ref_out + start * r.bpf;
    g_assert_cmpint (co_audio_run_cpu (&p), ==, 0);
    start += len;
  }
  for (i = 0; i < total * (gint64) r.bpf; i++)
    if (out[i] != ref_out[i])
      g_error ("device plan (%s %dch taps=%d op=%d chunks=%u out %s): "
          "byte %" G_GINT64_FORMAT " (frame %" G_GINT64_FORMAT ") differs "
          "from one unchunked call", format == CO_AUDIO_S16 ? "S16" : "F32",
          channels, n_taps, op, chunks, out_direct ? "direct" : "copied", i,
          i / (gint64) r.bpf);
  /* the tail the next buffer would get */
  if (r.h > 0)
    g_assert_true (memcmp (r.tail, in + (total - r.h) * r.bpf,
            r.h * r.bpf) == 0);

  g_free (ref_src);
  g_free (ref_out);
  g_free (in);
  g_free (out);
  g_free (r.tail);
  g_free (r.f->dev_in);
  g_free (r.f->dev_out);
  g_free (r.f);
  g_free (taps);
}

static void
test_device_plans (void)
{
  static const gint taps[] = { 1, 2, 3, 64, 1023 };
  static const guint chunks[] = { 1, 2, 3, 8 };
  GRand *rand = g_rand_new_with_seed (0xdef1ce);
  guint t, c, g, o;

  for (t = 0; t < G_N_ELEMENTS (taps); t++)
    for (c = 0; c < G_N_ELEMENTS (chunks); c++)
      for (g = 0; g < 3; g++)
        for (o = 0; o < 2; o++)
          run_device_stream (g == 1 ? CO_AUDIO_S16 : CO_AUDIO_F32,
              1 + (t + c) % 3, taps[t], g == 2 ? CO_AUDIO_OP_GAIN :
              CO_AUDIO_OP_FIR, chunks[c], o, rand);
  g_rand_free (rand);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/coaudio/chunks", test_chunks);
  g_test_add_func ("/coaudio/history-short", test_history_short);
  g_test_add_func ("/coaudio/plans", test_plans);
  g_test_add_func ("/coaudio/device-plans", test_device_plans);
  return g_test_run ();
}
