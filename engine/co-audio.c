/* cudaoverlap: planning a buffer of interleaved samples into chunks.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Audio is cut into runs of frames instead of bands of rows, and a FIR
 * filter reads taps - 1 frames before each output frame, from this buffer
 * or from the ones before it.  This module plans a buffer's chunks with
 * those halos and carries the tail of each buffer on to the next, so that
 * a stream filters as if it were one buffer.
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
 *
 * An input in device memory (co_audio_plan_io, in_device) is read in
 * place: dev_in holds only chunk 0's [history][first min(H, frames)
 * frames] (all the frames when there is one chunk), put together by
 * device-side copies that also carry the tail on to the next buffer
 * (plan_device_head); every later chunk starts at s >= H and reads its
 * halo from the buffer itself.
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

void
co_audio_plan_sizes_io (const CoAudioDesc * d, guint chunks, gint64 max_frames,
    gboolean in_device, gboolean out_direct, gsize * in_size, gsize * out_size)
{
  const gint64 h = co_audio_halo (d);

  co_audio_plan_sizes (d, chunks, max_frames, in_size, out_size);
  /* chunk 0's history and frames: a halo of them, or all with one chunk */
  if (in_device)
    *in_size = (gsize) (h + (chunks > 1 ? h : max_frames)) *
        co_audio_frame_bytes (d);
  if (out_direct)
    *out_size = 0;
}

/* The kernel's parameters of a chunk of frames [@s, @s + @len). */
static void
describe_chunk (const CoAudioDesc * d, CoChunk * ch, gint64 s, gint64 len)
{
  CoAudioParams *ap = &ch->params.audio;

  ch->kind = d->op == CO_AUDIO_OP_CUSTOM ? CO_KERNEL_CUSTOM_AUDIO :
      CO_KERNEL_AUDIO;
  ch->n_h2d = ch->n_d2h = ch->n_d2d = 0;
  ap->op = d->op;
  ap->format = d->format;
  ap->channels = d->channels;
  ap->n_taps = d->op == CO_AUDIO_OP_FIR ? d->n_taps : 0;
  ap->frames = len;
  ap->history = co_audio_halo (d);
  ap->gain = d->gain;
  ap->taps = d->taps;
  ap->offset = s;
  ap->custom = d->custom;
}

/* Where a chunk of frames [@s, @s + @len) writes: in place, or the slot's
 * output area and a download. */
static void
plan_output (CoFrame * f, CoChunk * ch, const CoAudioIo * io, gint64 s,
    gint64 len, gsize bpf)
{
  CoAudioParams *ap = &ch->params.audio;

  if (io->out_direct) {
    ap->dst = io->out + (gsize) s *bpf;
  } else {
    ap->dst = f->dev_out + (gsize) s *bpf;
    add_copy (&ch->n_d2h, ch->d2h, ap->dst, io->out + (gsize) s * bpf,
        (gsize) len * bpf);
  }
}

/* A host input's chunk (see co_audio_plan); its input area at @area. */
static void
plan_host_input (const CoAudioDesc * d, CoChunk * ch, const CoAudioIo * io,
    guint8 * area, gint64 s, gint64 len)
{
  CoAudioParams *ap = &ch->params.audio;
  const gsize bpf = co_audio_frame_bytes (d);
  const gint64 h = co_audio_halo (d);

  if (len == 0) {
    /* an empty buffer: a chunk with nothing to do */
    ap->src = area;
  } else if (s >= h) {
    if (io->in_direct) {
      /* the halo is in the input itself: no copy on the host */
      ap->src = io->in + (gsize) (s - h) * bpf;
    } else {
      ap->src = area;
      add_copy (&ch->n_h2d, ch->h2d, io->in + (gsize) (s - h) * bpf, area,
          (gsize) (h + len) * bpf);
    }
  } else {
    /* the halo reaches into the previous buffer's tail */
    ap->src = area;
    add_copy (&ch->n_h2d, ch->h2d, io->history + (gsize) s * bpf, area,
        (gsize) (h - s) * bpf);
    add_copy (&ch->n_h2d, ch->h2d, io->in, area + (gsize) (h - s) * bpf,
        (gsize) (s + len) * bpf);
  }
}

static guint
plan_host (const CoAudioDesc * d, guint chunks, CoFrame * f,
    const CoAudioIo * io, gint64 frames)
{
  gint64 starts[CO_MAX_CHUNKS + 1];
  guint n = co_audio_chunks (frames, chunks, starts), c;
  const gsize bpf = co_audio_frame_bytes (d);
  const gint64 h = co_audio_halo (d);
  gsize in_off = 0;

  for (c = 0; c < n; c++) {
    CoChunk *ch = &f->chunks[c];
    const gint64 s = starts[c], len = starts[c + 1] - starts[c];

    describe_chunk (d, ch, s, len);
    plan_host_input (d, ch, io, f->dev_in + in_off, s, len);
    /* every chunk keeps its own input area, used or not, so the layout
     * does not depend on the backend */
    in_off += (gsize) (h + len) * bpf;
    plan_output (f, ch, io, s, len, bpf);
  }
  g_assert (in_off <= f->dev_in_size);
  g_assert (io->out_direct || (gsize) frames * bpf <= f->dev_out_size);
  f->n_chunks = n;
  return n;
}

static void
add_d2d (CoChunk * ch, const void *src, void *dst, gsize bytes)
{
  g_assert (ch->n_d2d < CO_CHUNK_MAX_D2D);
  add_copy (&ch->n_d2d, ch->d2d, src, dst, bytes);
}

/* A device input's chunk 0: the first @hh frames with the history from
 * the device tail (see co_audio_plan_io), in dev_in as [history][frames]:
 *   dev_in[0, H)        <- the tail, or zeros after a reset
 *   dev_in[H, H + hh)   <- the buffer's first hh frames
 *   tail                <- the last H frames of "history, then buffer":
 *                          the buffer's own when it has H frames, else
 *                          dev_in[frames, frames + H)
 * in that order on one stream; the kernel then reads dev_in. */
static void
plan_device_head (const CoAudioDesc * d, CoChunk * ch, CoFrame * f,
    const CoAudioIo * io, gint64 hh, gint64 frames)
{
  const gsize bpf = co_audio_frame_bytes (d);
  const gint64 h = co_audio_halo (d);
  guint8 *x = f->dev_in;

  g_assert ((gsize) (h + hh) * bpf <= f->dev_in_size);
  if (io->reset)
    add_d2d (ch, NULL, x, (gsize) h * bpf);
  else
    add_d2d (ch, io->dev_tail, x, (gsize) h * bpf);
  add_d2d (ch, io->in, x + (gsize) h * bpf, (gsize) hh * bpf);
  if (frames >= h)
    add_d2d (ch, io->in + (gsize) (frames - h) * bpf, io->dev_tail,
        (gsize) h * bpf);
  else
    add_d2d (ch, x + (gsize) frames * bpf, io->dev_tail, (gsize) h * bpf);
  ch->params.audio.src = x;
}

static guint
plan_device (const CoAudioDesc * d, guint chunks, CoFrame * f,
    const CoAudioIo * io, gint64 frames)
{
  gint64 starts[CO_MAX_CHUNKS + 1];
  const gsize bpf = co_audio_frame_bytes (d);
  const gint64 h = co_audio_halo (d);
  gint64 hh = 0, s, len;
  guint n = 0, n_rest = 0, c;

  if (h > 0) {
    /* one chunk: the whole buffer goes after its history */
    hh = chunks > 1 ? MIN (h, frames) : frames;
    describe_chunk (d, &f->chunks[0], 0, hh);
    plan_device_head (d, &f->chunks[0], f, io, hh, frames);
    plan_output (f, &f->chunks[0], io, 0, hh, bpf);
    n = 1;
    f->ordered = TRUE;
  }
  if (h == 0 || frames > hh)
    n_rest = co_audio_chunks (frames - hh, h > 0 ? chunks - 1 : chunks, starts);
  for (c = 0; c < n_rest; c++, n++) {
    CoChunk *ch = &f->chunks[n];

    s = hh + starts[c];
    len = starts[c + 1] - starts[c];
    describe_chunk (d, ch, s, len);
    /* s >= H: the halo is in the buffer itself */
    ch->params.audio.src = io->in + (gsize) (s - h) * bpf;
    plan_output (f, ch, io, s, len, bpf);
  }
  g_assert (io->out_direct || (gsize) frames * bpf <= f->dev_out_size);
  f->n_chunks = n;
  return n;
}

guint
co_audio_plan_io (const CoAudioDesc * d, guint chunks, CoFrame * f,
    const CoAudioIo * io, gint64 frames)
{
  f->ordered = FALSE;
  if (io->in_device)
    return plan_device (d, chunks, f, io, frames);
  return plan_host (d, chunks, f, io, frames);
}

guint
co_audio_plan (const CoAudioDesc * d, guint chunks, gboolean direct,
    CoFrame * f, const guint8 * in, guint8 * out, gint64 frames,
    const guint8 * history)
{
  CoAudioIo io = { 0, };

  io.in = in;
  io.out = out;
  io.in_direct = io.out_direct = direct;
  io.history = history;
  return co_audio_plan_io (d, chunks, f, &io, frames);
}

void
co_audio_history_update (const CoAudioDesc * d, guint8 * history,
    const guint8 * in, gint64 frames)
{
  const gsize bpf = co_audio_frame_bytes (d);
  const gint64 h = co_audio_halo (d);

  /* an empty buffer changes nothing (and its mapping may be NULL) */
  if (h == 0 || frames == 0)
    return;
  if (frames >= h) {
    memcpy (history, in + (gsize) (frames - h) * bpf, (gsize) h * bpf);
  } else {
    memmove (history, history + (gsize) frames * bpf,
        (gsize) (h - frames) * bpf);
    memcpy (history + (gsize) (h - frames) * bpf, in, (gsize) frames * bpf);
  }
}
