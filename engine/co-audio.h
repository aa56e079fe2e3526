/* cudaoverlap: planning a buffer of interleaved samples into chunks.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Knows sample frames, not caps: the element describes the negotiated
 * format with a CoAudioDesc.  No GStreamer types.
 *
 * A chunk is a run of consecutive sample frames.  A FIR chunk needs the
 * halo = n_taps - 1 frames before its first frame.  For chunk 0 the halo
 * is the previous buffer's tail (the "history", host memory); for a later
 * chunk it is the end of the previous chunk's frames of the same input
 * buffer, and where a chunk starts less than a halo into the buffer, the
 * history's last frames and then the buffer's first ones.  Each chunk gets
 * its own part of the slot's input area, halo included, so no chunk waits
 * for another chunk or for another frame.
 */
#ifndef __CO_AUDIO_H__
#define __CO_AUDIO_H__

#include "co-engine.h"

G_BEGIN_DECLS
/* Chunks are not made shorter than this (unless the buffer is): a chunk
 * costs a few launches and, for FIR, a halo upload. */
#define CO_AUDIO_MIN_CHUNK_FRAMES 256
    typedef struct
{
  CoAudioOp op;
  CoAudioFormat format;
  gint channels;                /* 1..64 */
  gint n_taps;                  /* FIR taps (>= 1); ignored for gain */
  gfloat gain;                  /* linear gain of operation gain */
  const gfloat *taps;           /* n_taps floats in the engine's constant area */
  gint64 halo;                  /* custom: kernel-halo, frames of history */
  const CoCustomParams *custom; /* custom: the element's, unchanged while
                                 * frames are in flight */
} CoAudioDesc;

/* Bytes of one sample frame (all channels). */
gsize co_audio_frame_bytes (const CoAudioDesc * desc);

/* History frames a chunk needs before its first frame: n_taps - 1 for FIR,
 * 0 for gain, the halo for custom. */
gint64 co_audio_halo (const CoAudioDesc * desc);

/* The chunks of a buffer of @frames frames: n chunks, chunk c covering
 * frames [starts[c], starts[c + 1]).  As equal as possible, at most
 * @chunks (and CO_MAX_CHUNKS), none shorter than CO_AUDIO_MIN_CHUNK_FRAMES
 * unless there is only one; one (empty) chunk for an empty buffer. */
guint co_audio_chunks (gint64 frames, guint chunks,
    gint64 starts[CO_MAX_CHUNKS + 1]);

/* The slot sizes for buffers of up to @max_frames frames: every chunk's
 * halo and frames (input area), the output frames (output area). */
void co_audio_plan_sizes (const CoAudioDesc * desc, guint chunks,
    gint64 max_frames, gsize * in_size, gsize * out_size);

/* Fill frame->chunks for one buffer of @frames frames at @in (host), to be
 * written to @out (host).  @history (host, co_audio_halo() frames) holds
 * the frames before @in: the previous buffer's tail, or zeros after a
 * reset.  The chunks' copies read @history and @in asynchronously: both
 * must stay unchanged until the frame has completed.
 *
 * @direct = FALSE (CUDA): each chunk uploads its halo and frames into its
 * own part of frame->dev_in (1 or 2 copies: history part, input part),
 * the kernel writes frame->dev_out, one copy downloads into @out.
 * @direct = TRUE (CPU backend, dev_in is host memory): a chunk whose halo
 * lies inside @in reads @in in place; a chunk whose halo reaches into the
 * history gets the same host copies into its part of dev_in (the worker
 * does them); kernels write @out directly, no downloads.
 *
 * @frames must not exceed the max_frames that frame->dev_in_size was
 * computed for (co_audio_plan_sizes).  Returns the number of chunks. */
guint co_audio_plan (const CoAudioDesc * desc, guint chunks, gboolean direct,
    CoFrame * frame, const guint8 * in, guint8 * out, gint64 frames,
    const guint8 * history);

/* Where a buffer's samples are and go, for co_audio_plan_io().  A side
 * is host memory, copied through the slot (the CUDA backend's system
 * memory), or "direct": read or written in place by the kernels (the CPU
 * backend's host memory, the CUDA backend's device memory). */
typedef struct
{
  const guint8 *in;
  guint8 *out;
  gboolean in_direct, out_direct;
  /* host input (@in_device FALSE): the history as for co_audio_plan() */
  const guint8 *history;
  /* input in device memory (CUDA memory of the engine's context, read in
   * place; host memory on the CPU backend): the history is kept in device
   * memory too, in @dev_tail (co_audio_halo() frames that outlive every
   * frame: the previous buffers' tail).  @reset: the history is zeros
   * (the stream starts again) instead of @dev_tail. */
  gboolean in_device;
  guint8 *dev_tail;
  gboolean reset;
} CoAudioIo;

/* co_audio_plan_sizes() for the sides of @io: a device input takes
 * (halo + halo) frames of dev_in (its first chunk's history and frames;
 * halo + @max_frames with one chunk), a direct output no dev_out. */
void co_audio_plan_sizes_io (const CoAudioDesc * desc, guint chunks,
    gint64 max_frames, gboolean in_device, gboolean out_direct,
    gsize * in_size, gsize * out_size);

/* Fill frame->chunks for one buffer of @frames frames, the sides as @io
 * says.  With a host input, as co_audio_plan() (@io->in_direct for its
 * @direct), except that a direct output is written in place whatever the
 * input.  With a device input and a halo H > 0 the buffer's first
 * min(H, frames) frames are a chunk of their own (chunk 0), whose history
 * comes from @io->dev_tail: its device-side copies (CoChunk.d2d) put the
 * history (or zeros) and those frames together in dev_in and then write
 * the new tail, the last H frames of "history, then the buffer", into
 * @io->dev_tail; the frame is CoFrame.ordered, so the next buffer's
 * copies read that tail only after these have written it, whatever the
 * streams.  The other chunks (up to @chunks - 1 of them) read the buffer
 * in place, their halo included: no copy at all.  With @chunks 1 (mode=
 * serial) chunk 0 is the whole buffer, copied on the device after its
 * history.  Without a halo every chunk reads in place.  Returns the number
 * of chunks (at most @chunks). */
guint co_audio_plan_io (const CoAudioDesc * desc, guint chunks,
    CoFrame * frame, const CoAudioIo * io, gint64 frames);

/* @history (co_audio_halo() frames) becomes the last halo frames of the
 * stream "history, then the @frames frames at @in": the tail the next
 * buffer needs.  Host memory, synchronous. */
void co_audio_history_update (const CoAudioDesc * desc, guint8 * history,
    const guint8 * in, gint64 frames);

G_END_DECLS
#endif
