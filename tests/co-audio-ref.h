/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * co-audio-ref: the audio suites' independent reference (test-audio-*,
 * test-cudamemory-audio): a naive double-precision convolution of the whole
 * concatenated input stream (causal, zero history at the start and after
 * every reset), written from the specification, sharing no code
 * with the plugin, and the comparison of an output against it:
 *
 * for every output sample (T = taps, 1 for gain, S = sum over k of
 * |h[k] x[n - k]|, the reference y in double):
 *   F32: |out - y| <= (T + 8) * 2.4e-7 * S (float accumulation and float
 *        taps), and over each stream ||out - y|| / ||y|| <= 1e-5;
 *   S16: |out - sat (rint (y))| <= 1, and exactly equal wherever the
 *        rounding is unambiguous (y further than the bound above from a
 *        half-integer) and wherever y saturates beyond the bound.
 */
#ifndef __CO_AUDIO_REF_H__
#define __CO_AUDIO_REF_H__

#include <gst/check/gstcheck.h>

G_BEGIN_DECLS
/* What the element is asked to do. */
    typedef struct
{
  gboolean s16;
  guint channels;
  gboolean fir;
  guint n_taps;
  gdouble *taps;                /* as set on the element */
  gdouble gain_db;
} Sig;

typedef struct
{
  const Sig *sig;
  guint hist_frames;            /* taps - 1 (fir), 0 (gain) */
  gdouble *hist;                /* the last hist_frames input frames */
} Ref;

typedef struct
{
  gdouble err2, ref2;
  guint64 samples;
  guint64 inexact_s16;          /* S16 samples 1 LSB off (ambiguous rounding) */
} StreamErr;

gchar *co_sig_desc (const Sig * s);
gsize co_sig_bpf (const Sig * s);
/* Random taps: F32 in [-1, 1]; S16 scaled so that sum |h| = 1.25 (a little
 * saturation now and then). */
gdouble *co_sig_random_taps (GRand * rand, guint n, gboolean s16);

void co_aref_init (Ref * r, const Sig * sig);
void co_aref_reset (Ref * r);
void co_aref_clear (Ref * r);
/* y and the per-sample sum of |terms| for @frames frames at @in; the
 * history moves on. */
void co_aref_process (Ref * r, const guint8 * in, gsize frames, gdouble * y,
    gdouble * ab);

/* Fails (gst-check) at the first sample out of bounds. */
void co_aref_check_samples (const Sig * s, const guint8 * out,
    const gdouble * y, const gdouble * ab, gsize frames, guint64 first_frame,
    StreamErr * se, const gchar * ctx);
void co_aref_check_stream_error (const Sig * s, const StreamErr * se,
    const gchar * ctx);

G_END_DECLS
#endif
