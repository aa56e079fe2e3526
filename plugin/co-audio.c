/* cudaoverlap: planning a buffer of interleaved samples into chunks.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Layout of one slot (see docs/audio.md):
 *   dev_in:  chunk after chunk, each chunk's halo (H = n_taps - 1 frames
 *            for FIR, none for gain) followed by its frames, so chunk c
 *            takes (H + len_c) frames.  At most chunks * H + max_frames
 *            frames in all.
 *   dev_out: the buffer's frames; chunk c writes frames [start_c,
 *            start_c + len_c).
 *
 * A chunk starting at frame s of the buffer needs stream frames
 * [s - H, s + len): those below 0 are history frames H + (s - H) .. H - 1,
 * i.e. the history from frame s on.  So its upload is one copy from the
 * input when s >= H, else two: history [s, H) and input [0, s + len).
 */
#include <string.h>

#include "co-audio.h"

gsize
co_audio_frame_bytes (const CoAudioDesc * d)
{
  return (gsize) d->channels * (d->format == CO_AUDIO_S16 ? 2 : 4);
}

gint64
co_audio_halo (const CoAudioDesc * d)
{
  if (d->op == CO_AUDIO_OP_CUSTOM)
    return MAX (d->halo, 0);
  return d->op == CO_AUDIO_OP_FIR ? MAX (d->n_taps, 1) - 1 : 0;
}

guint
co_audio_chunks (gint64 frames, guint chunks, gint64 starts[CO_MAX_CHUNKS + 1])
{
  gint64 n = MIN ((gint64) MAX (chunks, 1), CO_MAX_CHUNKS), c;

  n = MIN (n, MAX (frames / CO_AUDIO_MIN_CHUNK_FRAMES, 1));
  for (c = 0; c <= n; c++)
    starts[c] = frames * c / n;
  return (guint) n;
}

void
co_audio_plan_sizes (const CoAudioDesc * d, guint chunks, gint64 max_frames,
    gsize * in_size, gsize * out_size)
{
  gsize bpf = co_audio_frame_bytes (d);
  gint64 n = MIN ((gint64) MAX (chunks, 1), CO_MAX_CHUNKS);

  *in_size = (gsize) (n * co_audio_halo (d) + max_frames) * bpf;
  *out_size = (gsize) max_frames *bpf;
}

static void
add_copy (guint * n, CoCopy * copies, const void *src, void *dst, gsize bytes)
{
  CoCopy *c;

  if (bytes == 0)
    return;
  c = &copies[(*n)++];
  c->src = src;
  c->dst = dst;
  c->spitch = c->dpitch = c->width = bytes;
  c->rows = 1;
}

guint
co_audio_plan (const CoAudioDesc * d, guint chunks, gboolean direct,
    CoFrame * f, const guint8 * in, guint8 * out, gint64 frames,
    const guint8 * history)
{
  gint64 starts[CO_MAX_CHUNKS + 1];
  guint n = co_audio_chunks (frames, chunks, starts), c;
  const gsize bpf = co_audio_frame_bytes (d);
  const gint64 h = co_audio_halo (d);
  gsize in_off = 0;

  for (c = 0; c < n; c++) {
    CoChunk *ch = &f->chunks[c];
    CoAudioParams *ap = &ch->params.audio;
    const gint64 s = starts[c], len = starts[c + 1] - starts[c];
    guint8 *area = f->dev_in + in_off;

    ch->kind = d->op == CO_AUDIO_OP_CUSTOM ? CO_KERNEL_CUSTOM_AUDIO :
        CO_KERNEL_AUDIO;
    ch->n_h2d = ch->n_d2h = 0;
    ap->op = d->op;
    ap->format = d->format;
    ap->channels = d->channels;
    ap->n_taps = d->op == CO_AUDIO_OP_FIR ? d->n_taps : 0;
    ap->frames = len;
    ap->history = h;
    ap->gain = d->gain;
    ap->taps = d->taps;
    ap->offset = s;
    ap->custom = d->custom;

    if (len == 0) {
      /* an empty buffer: a chunk with nothing to do */
      ap->src = area;
    } else if (s >= h) {
      if (direct) {
        /* the halo is in the input itself: no copy on the host */
        ap->src = in + (gsize) (s - h) * bpf;
      } else {
        ap->src = area;
        add_copy (&ch->n_h2d, ch->h2d, in + (gsize) (s - h) * bpf, area,
            (gsize) (h + len) * bpf);
      }
    } else {
      /* the halo reaches into the previous buffer's tail */
      ap->src = area;
      add_copy (&ch->n_h2d, ch->h2d, history + (gsize) s * bpf, area,
          (gsize) (h - s) * bpf);
      add_copy (&ch->n_h2d, ch->h2d, in, area + (gsize) (h - s) * bpf,
          (gsize) (s + len) * bpf);
    }
    /* every chunk keeps its own input area, used or not, so the layout
     * does not depend on the backend */
    in_off += (gsize) (h + len) * bpf;

    if (direct) {
      ap->dst = out + (gsize) s *bpf;
    } else {
      ap->dst = f->dev_out + (gsize) s *bpf;
      add_copy (&ch->n_d2h, ch->d2h, ap->dst, out + (gsize) s * bpf,
          (gsize) len * bpf);
    }
  }
  g_assert (in_off <= f->dev_in_size);
  g_assert (direct || (gsize) frames * bpf <= f->dev_out_size);
  f->n_chunks = n;
  return n;
}

void
co_audio_history_update (const CoAudioDesc * d, guint8 * history,
    const guint8 * in, gint64 frames)
{
  const gsize bpf = co_audio_frame_bytes (d);
  const gint64 h = co_audio_halo (d);

  if (h == 0)
    return;
  if (frames >= h) {
    memcpy (history, in + (gsize) (frames - h) * bpf, (gsize) h * bpf);
  } else {
    memmove (history, history + (gsize) frames * bpf,
        (gsize) (h - frames) * bpf);
    memcpy (history + (gsize) (h - frames) * bpf, in, (gsize) frames * bpf);
  }
}
