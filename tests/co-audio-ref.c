/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * co-audio-ref: the audio suites' reference (co-audio-ref.h).
 */
#include <math.h>
#include <string.h>

#include "co-audio-ref.h"

gchar *
co_sig_desc (const Sig * s)
{
  if (s->fir)
    return g_strdup_printf ("%s %uch fir taps=%u", s->s16 ? "S16LE" : "F32LE",
        s->channels, s->n_taps);
  return g_strdup_printf ("%s %uch gain gain-db=%g", s->s16 ? "S16LE" :
      "F32LE", s->channels, s->gain_db);
}

gsize
co_sig_bpf (const Sig * s)
{
  return s->channels * (s->s16 ? 2 : 4);
}

/* Random taps: F32 in [-1, 1]; S16 scaled so that sum |h| = 1.25 (a little
 * saturation now and then). */
gdouble *
co_sig_random_taps (GRand * rand, guint n, gboolean s16)
{
  gdouble *t = g_new (gdouble, n), sum = 0.0;
  guint k;

  for (k = 0; k < n; k++) {
    t[k] = g_rand_double_range (rand, -1.0, 1.0);
    sum += fabs (t[k]);
  }
  if (s16 && sum > 0.0)
    for (k = 0; k < n; k++)
      t[k] *= 1.25 / sum;
  return t;
}

void
co_aref_init (Ref * r, const Sig * sig)
{
  r->sig = sig;
  r->hist_frames = sig->fir ? sig->n_taps - 1 : 0;
  r->hist = g_new0 (gdouble, (gsize) r->hist_frames * sig->channels + 1);
}

void
co_aref_reset (Ref * r)
{
  memset (r->hist, 0, sizeof (gdouble) * r->hist_frames * r->sig->channels);
}

void
co_aref_clear (Ref * r)
{
  g_free (r->hist);
  r->hist = NULL;
}

/* y and the per-sample sum of |terms| for @frames frames at @in; the
 * history moves on. */
void
co_aref_process (Ref * r, const guint8 * in, gsize frames, gdouble * y,
    gdouble * ab)
{
  const Sig *s = r->sig;
  const gsize c = s->channels, hc = (gsize) r->hist_frames * c;
  const gsize ns = frames * c;
  gdouble *ext = g_new (gdouble, hc + ns + 1);
  gsize i, s0;

  memcpy (ext, r->hist, hc * sizeof (gdouble));
  for (i = 0; i < ns; i++) {
    if (s->s16) {
      gint16 v;
      memcpy (&v, in + 2 * i, 2);
      ext[hc + i] = v;
    } else {
      gfloat v;
      memcpy (&v, in + 4 * i, 4);
      ext[hc + i] = v;
    }
  }

  if (!s->fir) {
    const gdouble g = pow (10.0, s->gain_db / 20.0);

    for (i = 0; i < ns; i++) {
      y[i] = ext[hc + i] * g;
      ab[i] = fabs (y[i]);
    }
  } else {
    /* blocks of samples, tap by tap: x[n - k] of channel ch is k * c
     * samples before sample n * c + ch */
    for (s0 = 0; s0 < ns; s0 += 4096) {
      const gsize len = MIN (4096, ns - s0);
      guint k;

      for (i = 0; i < len; i++)
        y[s0 + i] = ab[s0 + i] = 0.0;
      for (k = 0; k < s->n_taps; k++) {
        const gdouble h = s->taps[k];
        const gdouble *x = ext + hc + s0 - (gsize) k * c;

        for (i = 0; i < len; i++) {
          const gdouble t = h * x[i];
          y[s0 + i] += t;
          ab[s0 + i] += fabs (t);
        }
      }
    }
  }
  /* the new history: the last hist_frames frames of history + input */
  memcpy (r->hist, ext + ns, hc * sizeof (gdouble));
  g_free (ext);
}

static gdouble
sat_rint (gdouble v)
{
  v = rint (v);
  return CLAMP (v, -32768.0, 32767.0);
}

/* Fails at the first sample out of bounds. */
void
co_aref_check_samples (const Sig * s, const guint8 * out, const gdouble * y,
    const gdouble * ab, gsize frames, guint64 first_frame, StreamErr * se,
    const gchar * ctx)
{
  const gsize ns = frames * s->channels;
  const gdouble rel = ((s->fir ? s->n_taps : 1) + 8) * 2.4e-7;
  gsize i;

  for (i = 0; i < ns; i++) {
    const gdouble bound = rel * ab[i] + 1e-30;
    gdouble v, d;

    if (s->s16) {
      gint16 o;
      gdouble e, frac;
      gboolean must_be_exact;

      memcpy (&o, out + 2 * i, 2);
      v = o;
      e = sat_rint (y[i]);
      frac = y[i] - floor (y[i]);
      must_be_exact = y[i] >= 32767.5 + bound || y[i] <= -32768.5 - bound ||
          fabs (frac - 0.5) > bound + 1e-9;
      if (fabs (v - e) > 1.0 || (must_be_exact && v != e))
        fail ("%s: sample %" G_GSIZE_FORMAT " of the buffer (stream frame %"
            G_GUINT64_FORMAT ", channel %" G_GSIZE_FORMAT "): got %d, the "
            "reference is %.6f -> %g (%s)", ctx, i, first_frame +
            i / s->channels, i % s->channels, o, y[i], e, must_be_exact ?
            "must be exact" : "+-1 allowed");
      if (v != e)
        se->inexact_s16++;
      d = v - y[i];
    } else {
      gfloat o;

      memcpy (&o, out + 4 * i, 4);
      v = o;
      d = v - y[i];
      if (!(fabs (d) <= bound))
        fail ("%s: sample %" G_GSIZE_FORMAT " of the buffer (stream frame %"
            G_GUINT64_FORMAT ", channel %" G_GSIZE_FORMAT "): got %.9g, the "
            "reference is %.9g (error %.3g, bound %.3g)", ctx, i,
            first_frame + i / s->channels, i % s->channels, v, y[i], d, bound);
    }
    se->err2 += d * d;
    se->ref2 += y[i] * y[i];
  }
  se->samples += ns;
}

void
co_aref_check_stream_error (const Sig * s, const StreamErr * se,
    const gchar * ctx)
{
  gdouble r;

  if (s->s16 || se->samples == 0)
    return;
  if (se->ref2 == 0.0) {
    fail_unless (se->err2 == 0.0, "%s: the reference is all zeros, the "
        "output is not", ctx);
    return;
  }
  r = sqrt (se->err2 / se->ref2);
  fail_unless (r <= 1e-5, "%s: ||y - ref|| / ||ref|| = %.3g over %"
      G_GUINT64_FORMAT " samples (> 1e-5)", ctx, r, se->samples);
}
