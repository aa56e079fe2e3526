/* cudaoverlap: cudaaudiofilter.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
/**
 * SECTION:element-cudaaudiofilter
 * @title: cudaaudiofilter
 *
 * Filters interleaved raw audio (or any sampled signal: SDR IQ pairs,
 * sensor channels) on a CUDA GPU, with its copies overlapped against
 * compute on the same engine as cudavideofilter: every buffer is cut along
 * time into #GstCudaOverlapFilter:chunks chunks; each chunk is copied
 * host→device, computed and copied device→host on its own CUDA stream.
 * The CPU backend computes the same thing on worker threads.
 *
 * Operations:
 *
 * * `gain`: y = x · 10^(gain-db / 20) (the gain as a float; S16 rounds half
 *   to even and saturates to [−32768, 32767]).
 * * `fir`: y[n] = Σₖ h[k] · x[n − k] per channel, k = 0 … taps − 1, with the
 *   #GstCudaOverlapAudioFilter:taps h[k], accumulated in float (S16: rounded half
 *   to even and saturated).  The filter is causal and continuous across
 *   buffers: each output buffer has its input's length, and the output
 *   stream is the first samples of the convolution of the whole input
 *   stream, as if it were one buffer, with zeros before its first sample.
 *   Nothing is added at EOS (no tail).
 *
 * * `custom`: a kernel of the user's (#GstCudaOverlapAudioFilter:kernel-module,
 *   #GstCudaOverlapAudioFilter:kernel-name) on every chunk, with
 *   #GstCudaOverlapAudioFilter:kernel-halo frames of history before it,
 *   carried across chunks and buffers as the FIR's; on the CPU backend a C
 *   function of the same ABI.  gst/cudaoverlap/cudaoverlap-kernel.h and
 *   docs/custom-kernels.md.  From C,
 *   #GstCudaOverlapAudioFilter:kernel-launcher takes functions of the
 *   application's own instead (called per chunk with the same struct).
 *
 * History: the last taps − 1 input frames of a buffer are the halo of the
 * next one.  The history is reset to zeros on a flush, on a buffer with the
 * DISCONT flag, on a caps change, on a change of #GstCudaOverlapAudioFilter:taps
 * or #GstCudaOverlapAudioFilter:operation, and when the element goes to READY.
 *
 * Passthrough: with identity settings (operation=gain at `gain-db=0`, or
 * operation=fir with the one tap `<1.0>`, which are also the defaults:
 * gain at 0 dB) every input buffer goes on as it is, with no copy and no
 * kernel; the statistics say `passthrough=true` and count the buffers in
 * `frames-passthrough`.  A switch into or out of it while playing first
 * lets the buffers in flight out.  No history is lost: a one-tap filter
 * has none, and a change of taps restarts it anyway.
 *
 * QoS (#GstCudaOverlapAudioFilter:qos) is off by default: a dropped buffer
 * is a gap in the signal, after which the FIR history restarts from zeros.
 *
 * Halos (system memory in): chunk 0 of a buffer uploads the previous
 * buffer's tail from page-locked host memory (one buffer per engine slot)
 * together with its own samples; a later chunk uploads the taps − 1 frames
 * before it from the input buffer (and from the tail where it starts less
 * than that far into the buffer).  So no chunk waits for another chunk or
 * buffer.
 * docs/audio.md has the details and the ownership of the history memory.
 *
 * CUDA memory: each pad carries system memory or
 * `audio/x-raw(memory:CUDAMemory)`, whichever its neighbour takes (the
 * output keeps the input's memory unless downstream takes only the other
 * one), so that signal pipelines keep their samples on the GPU between
 * cudaaudiofilters.  CUDA memory out: the kernels write the output
 * buffers, each one GstCudaMemory (one row of linear device memory, cut to
 * the buffer's size; 1.22's GstCudaBufferPool takes video only).  CUDA
 * memory in: the kernels read it in place; the FIR history stays on the
 * device (each buffer's first taps - 1 frames are a chunk of their own
 * whose device-to-device copies take the previous buffers' tail and keep
 * the new one; the other chunks read their halo from the buffer itself),
 * so a CUDA-to-CUDA buffer crosses no PCIe at all (`bytes-h2d` and
 * `bytes-d2h` 0).  The elements of a pipeline share one GstCudaContext
 * (GstContext "gst.cuda.context").  Without gst-plugins-bad's CUDA
 * library, a GPU, or with backend=cpu, only system memory is offered.
 *
 * Buffers may have any number of frames.  The engine's slots are sized for
 * a maximum (1 MiB of samples at first); a larger buffer makes the element
 * wait for the buffers in flight and rebuild the engine with slots for the
 * next power of two of frames (the history is kept).
 *
 * Metadata: each output buffer gets its input's timestamps, offsets and
 * flags, and every meta of its input that still holds for it.  The
 * operations change sample values, never the layout, the channels or the
 * rate, so a meta without tags (#GstReferenceTimestampMeta, an
 * application's custom metas) and a meta tagged only "audio", "channels"
 * and/or "rate" (#GstAudioClippingMeta, #GstAudioDownmixMeta) is copied
 * with its own transform function.  Not copied: the input's #GstAudioMeta
 * (it describes the input's memory; output buffers are interleaved and
 * need none), metas bound to the input's memory (tagged "memory" or
 * "memory-reference", #GstParentBufferMeta), #GstProtectionMeta, metas with
 * any other tag, and metas without a transform function.  (#GstAudioFilter
 * copies only metas without tags.)
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 audiotestsrc ! audioconvert ! audio/x-raw,format=F32LE ! cudaaudiofilter operation=fir taps="<0.25, 0.5, 0.25>" ! audioconvert ! autoaudiosink
 * ]| A 3-tap low-pass filter on a test tone.
 * |[
 * gst-launch-1.0 audiotestsrc wave=white-noise ! audio/x-raw,format=S16LE,channels=2 ! cudaaudiofilter operation=gain gain-db=-12 ! audioconvert ! autoaudiosink
 * ]| Attenuates stereo noise by 12 dB.
 * |[
 * gst-launch-1.0 filesrc location=iq.raw blocksize=16777216 ! queue ! rawaudioparse use-sink-caps=false format=pcm pcm-format=f32le sample-rate=2400000 num-channels=2 ! cudaaudiofilter operation=fir taps="<0.1, 0.2, 0.4, 0.2, 0.1>" streams=4 chunks=4 ! filesink location=out.raw
 * ]| Filters a 2.4 MHz two-channel (IQ) float recording, 2 M frames a buffer.
 * |[
 * gst-launch-1.0 audiotestsrc wave=white-noise ! audio/x-raw,format=F32LE,channels=2 ! cudaaudiofilter operation=fir taps="<0.1, 0.2, 0.4, 0.2, 0.1>" ! "audio/x-raw(memory:CUDAMemory)" ! cudaaudiofilter operation=gain gain-db=-6 ! audio/x-raw ! autoaudiosink
 * ]| Two filters with the samples in CUDA memory between them: one upload,
 * one download.
 * |[
 * gst-launch-1.0 audiotestsrc wave=white-noise ! audio/x-raw,format=F32LE ! cudaaudiofilter operation=custom kernel-module=biquad.ptx kernel-name=co_biquad kernel-halo=256 kernel-params="<0.0039, 0.0078, 0.0039, -1.8153, 0.8310>" ! audioconvert ! autoaudiosink
 * ]| A (windowed) biquad low-pass of the user's (examples/kernels/biquad.cu).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <string.h>
#include <gst/audio/audio.h>

#include "gstcudaaudiofilter.h"
#include "gstcudaoverlap-cudamem.h"
#include "gstcudaoverlap-custom.h"
#include "co-audio.h"

GST_DEBUG_CATEGORY_STATIC (gst_cuda_overlap_audio_filter_debug);
#define GST_CAT_DEFAULT gst_cuda_overlap_audio_filter_debug

#define CAPS_FIELDS "format = (string) { F32LE, S16LE }, " \
  "rate = (int) [ 1, MAX ], channels = (int) [ 1, 64 ], " \
  "layout = (string) interleaved"
/* CUDA memory first, system memory second (gstcudaoverlapfilter.c
 * leaves CUDA memory out where it cannot be used) */
#define CAPS_STR "audio/x-raw(" GST_CUDA_OVERLAP_CAPS_FEATURE_CUDA "), " \
  CAPS_FIELDS "; audio/x-raw, " CAPS_FIELDS

#define MAX_TAPS 4096
/* The engine's slots hold this many bytes of samples at first. */
#define INITIAL_SLOT_BYTES (1 << 20)

/* Metas tagged only with these (or with nothing) hold for the output: our
 * operations change sample values, never the layout, channels or rate. */
static const gchar *const meta_tags[] = { GST_META_TAG_AUDIO_STR,
  GST_META_TAG_AUDIO_CHANNELS_STR, GST_META_TAG_AUDIO_RATE_STR, NULL
};

#define DEFAULT_OPERATION CO_AUDIO_OP_GAIN
#define DEFAULT_GAIN_DB 0.0
#define DEFAULT_QOS FALSE

enum
{
  PROP_0,
  PROP_OPERATION,
  PROP_GAIN_DB,
  PROP_TAPS,
  PROP_QOS,
  PROP_KERNEL_FIRST,            /* operation=custom's (gstcudaoverlap-custom.h) */
};

struct _GstCudaOverlapAudioFilter
{
  GstCudaOverlapFilter parent;

  /* Streaming state: touched by the streaming thread (chain, caps) and by
   * configure/engine_ready, which run there or with no frame in flight. */
  GstAudioInfo info;
  GstCaps *cfg_caps;            /* caps of the last configure */
  gsize bpf;                    /* bytes per frame; 0 before caps */
  gint64 capacity;              /* frames per buffer the slots hold */
  CoAudioDesc desc;             /* running operation (gain set per buffer) */
  gfloat *cur_taps;             /* running taps (host copy) */
  guint cur_gen;                /* running custom kernel (custom.spec_gen) */
  gboolean have_cur;
  /* History (see docs/audio.md): @tail is the running history, the last
   * halo frames of the stream so far (host memory, only the streaming
   * thread touches it).  @ring holds one history buffer per engine slot
   * (page-locked on CUDA): the buffer of slot s is written when a frame is
   * planned into slot s — a copy of @tail at that moment — and is read only
   * by that frame's first chunk(s), asynchronously.  It is not written
   * again until slot s is acquired again, which happens only after that
   * frame has completed and been released. */
  guint8 *tail;
  gsize halo_bytes;
  guint8 **ring;
  guint n_ring;
  gboolean ring_pinned;
  gint reset;                   /* atomic: zero the history before the next buffer */
  /* An input in CUDA memory (since configure): the running history is
   * device memory of the pipeline's CUDA context instead, @dev_tail
   * (halo_bytes, mapped GST_MAP_CUDA at @dev_tail_map), which the frames'
   * device-side copies read and rewrite in submission order
   * (co_audio_plan_io); the host @tail and @ring are not used then.  Like
   * @tail it outlives engine rebuilds; freed at READY or when the halo
   * changes, with no frame in flight. */
  gboolean in_cuda, out_cuda;
  GstMemory *dev_tail;
  GstMapInfo dev_tail_map;

  /* properties and the latency hint (object lock) */
  CoAudioOp operation;
  gdouble gain_db;
  GArray *taps;                 /* gdouble */
  GstClockTime last_duration;
  GstCudaOverlapCustom custom;  /* operation=custom's properties */
};

typedef struct
{
  GstMapInfo in, out;
  gboolean in_mapped, out_mapped;
} FramePriv;

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS (CAPS_STR));
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS (CAPS_STR));

#define GST_TYPE_CUDA_AUDIO_OPERATION (gst_cuda_audio_operation_get_type ())
static GType
gst_cuda_audio_operation_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {CO_AUDIO_OP_GAIN, "Gain: y = x * 10^(gain-db / 20)", "gain"},
    {CO_AUDIO_OP_FIR, "FIR filter: y[n] = sum_k taps[k] * x[n - k] per "
          "channel, continuous across buffers", "fir"},
    {CO_AUDIO_OP_CUSTOM, "Custom: the user's kernel (kernel-module, "
          "kernel-name, kernel-halo frames of history; "
          "docs/custom-kernels.md)", "custom"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type))
    g_once_init_leave (&type,
        g_enum_register_static ("GstCudaOverlapAudioOperation", values));
  return type;
}

G_DEFINE_TYPE (GstCudaOverlapAudioFilter, gst_cuda_overlap_audio_filter,
    GST_TYPE_CUDA_OVERLAP_FILTER);
GST_ELEMENT_REGISTER_DEFINE (cudaaudiofilter, "cudaaudiofilter",
    GST_RANK_NONE, GST_TYPE_CUDA_OVERLAP_AUDIO_FILTER);

/* ---- properties ---------------------------------------------------------- */

static gboolean
taps_equal (GArray * a, GArray * b)
{
  return a->len == b->len && memcmp (a->data, b->data,
      a->len * sizeof (gdouble)) == 0;
}

static void
gst_cuda_overlap_audio_filter_set_property (GObject * object, guint id,
    const GValue * value, GParamSpec * pspec)
{
  GstCudaOverlapAudioFilter *self = GST_CUDA_OVERLAP_AUDIO_FILTER (object);
  gboolean dirty = FALSE, params_only = FALSE;

  if (gst_cuda_overlap_custom_owns (pspec)) {
    GST_OBJECT_LOCK (self);
    dirty = self->operation == CO_AUDIO_OP_CUSTOM;
    GST_OBJECT_UNLOCK (self);
    gst_cuda_overlap_custom_set_property (&self->custom,
        GST_CUDA_OVERLAP_FILTER (self), dirty, pspec, value);
    return;
  }
  switch (id) {
    case PROP_OPERATION:
      GST_OBJECT_LOCK (self);
      dirty = self->operation != (CoAudioOp) g_value_get_enum (value);
      self->operation = g_value_get_enum (value);
      GST_OBJECT_UNLOCK (self);
      break;
    case PROP_GAIN_DB:
      /* read for every buffer: no rebuild */
      GST_OBJECT_LOCK (self);
      self->gain_db = g_value_get_double (value);
      GST_OBJECT_UNLOCK (self);
      break;
    case PROP_TAPS:{
      gchar *why = NULL;
      GArray *taps = gst_cuda_overlap_doubles_from_value (value, 1, MAX_TAPS,
          G_MAXFLOAT, &why);

      if (!taps) {
        GST_WARNING_OBJECT (self, "taps not changed: %s", why);
        g_warning ("cudaaudiofilter: taps not changed: %s", why);
        g_free (why);
        break;
      }
      GST_OBJECT_LOCK (self);
      dirty = !taps_equal (taps, self->taps);
      /* as many taps: new constants, same halo and sizes */
      params_only = taps->len == self->taps->len;
      g_array_unref (self->taps);
      self->taps = taps;
      GST_OBJECT_UNLOCK (self);
      break;
    }
    case PROP_QOS:
      gst_cuda_overlap_filter_set_qos_enabled (GST_CUDA_OVERLAP_FILTER (self),
          g_value_get_boolean (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, id, pspec);
      break;
  }
  /* taps and operation take effect with the next buffer, after the ones in
   * flight: the engine is rebuilt (constants, halo sizes) */
  if (dirty && params_only)
    gst_cuda_overlap_filter_mark_params_dirty (GST_CUDA_OVERLAP_FILTER (self));
  else if (dirty)
    gst_cuda_overlap_filter_mark_dirty (GST_CUDA_OVERLAP_FILTER (self));
}

static void
gst_cuda_overlap_audio_filter_get_property (GObject * object, guint id,
    GValue * value, GParamSpec * pspec)
{
  GstCudaOverlapAudioFilter *self = GST_CUDA_OVERLAP_AUDIO_FILTER (object);

  if (gst_cuda_overlap_custom_owns (pspec)) {
    gst_cuda_overlap_custom_get_property (&self->custom,
        GST_CUDA_OVERLAP_FILTER (self), pspec, value);
    return;
  }
  if (id == PROP_QOS) {
    /* the base class keeps it, under the object lock */
    g_value_set_boolean (value,
        gst_cuda_overlap_filter_is_qos_enabled (GST_CUDA_OVERLAP_FILTER
            (self)));
    return;
  }
  GST_OBJECT_LOCK (self);
  switch (id) {
    case PROP_OPERATION:
      g_value_set_enum (value, self->operation);
      break;
    case PROP_GAIN_DB:
      g_value_set_double (value, self->gain_db);
      break;
    case PROP_TAPS:
      gst_cuda_overlap_doubles_to_value (self->taps, value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

/* ---- history ------------------------------------------------------------- */

static void
ring_free (GstCudaOverlapAudioFilter * self)
{
  guint i;

  for (i = 0; i < self->n_ring; i++) {
    if (self->ring_pinned)
      co_host_free (self->ring[i]);
    else
      g_free (self->ring[i]);
  }
  g_clear_pointer (&self->ring, g_free);
  self->n_ring = 0;
}

static void
dev_tail_free (GstCudaOverlapAudioFilter * self)
{
  if (!self->dev_tail)
    return;
  gst_memory_unmap (self->dev_tail, &self->dev_tail_map);
  g_clear_pointer (&self->dev_tail, gst_memory_unref);
}

/* The device history of @halo_bytes (kept when it has that size already);
 * FALSE with @error when no device memory could be had. */
static gboolean
dev_tail_ensure (GstCudaOverlapAudioFilter * self, gsize halo_bytes,
    GError ** error)
{
  if (self->dev_tail && self->dev_tail->size == halo_bytes)
    return TRUE;
  dev_tail_free (self);
  g_atomic_int_set (&self->reset, TRUE);
  if (halo_bytes == 0)
    return TRUE;
  self->dev_tail = gst_cuda_overlap_filter_cuda_memory_new
      (GST_CUDA_OVERLAP_FILTER (self), halo_bytes);
  if (self->dev_tail && gst_memory_map (self->dev_tail, &self->dev_tail_map,
          GST_MAP_READWRITE | GST_CUDA_OVERLAP_MAP_CUDA))
    return TRUE;
  g_clear_pointer (&self->dev_tail, gst_memory_unref);
  g_set_error (error, CO_ENGINE_ERROR, CO_ENGINE_ERROR_NO_MEMORY,
      "could not allocate the FIR history of %" G_GSIZE_FORMAT " bytes in "
      "CUDA memory", halo_bytes);
  return FALSE;
}

static void
history_free (GstCudaOverlapAudioFilter * self)
{
  ring_free (self);
  dev_tail_free (self);
  g_clear_pointer (&self->tail, g_free);
  self->halo_bytes = 0;
}

/* ---- engine life cycle --------------------------------------------------- */

static gint64
initial_capacity (gsize bpf)
{
  return MAX (INITIAL_SLOT_BYTES / (gint64) bpf, 1);
}

/* gst_audio_info_from_caps(), but also for caps of more than two channels
 * with no channel-mask (signal sources often have none): the channel
 * positions do not matter here. */
static gboolean
audio_info_from_caps (GstAudioInfo * info, GstCaps * caps)
{
  GstStructure *st;
  const gchar *fmt, *layout;
  gint rate = 0, channels = 0;

  if (gst_audio_info_from_caps (info, caps))
    return TRUE;
  if (!gst_caps_is_fixed (caps))
    return FALSE;
  st = gst_caps_get_structure (caps, 0);
  fmt = gst_structure_get_string (st, "format");
  layout = gst_structure_get_string (st, "layout");
  if (!fmt || !gst_structure_get_int (st, "rate", &rate) ||
      !gst_structure_get_int (st, "channels", &channels) || rate < 1 ||
      channels < 1 || gst_structure_has_field (st, "channel-mask") ||
      g_strcmp0 (layout, "interleaved") != 0)
    return FALSE;
  gst_audio_info_init (info);
  gst_audio_info_set_format (info, gst_audio_format_from_string (fmt), rate,
      channels, NULL);
  return GST_AUDIO_INFO_FORMAT (info) != GST_AUDIO_FORMAT_UNKNOWN;
}

/* The formats the kernels take. */
static gboolean
check_format (const GstAudioInfo * info, GError ** error)
{
  if (GST_AUDIO_INFO_LAYOUT (info) != GST_AUDIO_LAYOUT_INTERLEAVED ||
      (GST_AUDIO_INFO_FORMAT (info) != GST_AUDIO_FORMAT_F32LE &&
          GST_AUDIO_INFO_FORMAT (info) != GST_AUDIO_FORMAT_S16LE) ||
      GST_AUDIO_INFO_CHANNELS (info) < 1 ||
      GST_AUDIO_INFO_CHANNELS (info) > 64) {
    g_set_error (error, CO_ENGINE_ERROR, CO_ENGINE_ERROR_CONFIG,
        "unsupported audio format %s, %d channels (F32LE or S16LE, "
        "interleaved, 1 to 64 channels)",
        GST_AUDIO_INFO_NAME (info), GST_AUDIO_INFO_CHANNELS (info));
    return FALSE;
  }
#if G_BYTE_ORDER != G_LITTLE_ENDIAN
  g_set_error (error, CO_ENGINE_ERROR, CO_ENGINE_ERROR_CONFIG,
      "only little-endian hosts are supported");
  return FALSE;
#endif
  return TRUE;
}

/* New caps start a new stream, a new filter a new history; @taps (of
 * @n_taps) becomes the current filter. */
static void
note_changes (GstCudaOverlapAudioFilter * self, GstCaps * caps,
    const GstAudioInfo * info, CoAudioOp op, gfloat * taps, gint n_taps)
{
  CoAudioDesc *d = &self->desc;

  /* a new stream: new format, or first caps after READY */
  if (!self->cfg_caps || !gst_caps_is_equal (caps, self->cfg_caps)) {
    GST_DEBUG_OBJECT (self, "new caps %" GST_PTR_FORMAT ": history reset",
        caps);
    gst_caps_replace (&self->cfg_caps, caps);
    self->info = *info;
    self->bpf = GST_AUDIO_INFO_BPF (info);
    self->capacity = initial_capacity (self->bpf);
    g_atomic_int_set (&self->reset, TRUE);
  }
  /* a new filter */
  if (!self->have_cur || op != d->op || (op == CO_AUDIO_OP_FIR &&
          (n_taps != d->n_taps || memcmp (taps, self->cur_taps,
                  n_taps * sizeof (gfloat)) != 0)) ||
      (op == CO_AUDIO_OP_CUSTOM && self->custom.spec_gen != self->cur_gen)) {
    GST_DEBUG_OBJECT (self, "operation %d, %d taps: history reset", op, n_taps);
    g_atomic_int_set (&self->reset, TRUE);
  }
  g_free (self->cur_taps);
  self->cur_taps = taps;
  self->cur_gen = self->custom.spec_gen;
  self->have_cur = TRUE;
}

/* The ABI's sample format (gst/cudaoverlap/cudaoverlap-kernel.h). */
static guint32
abi_format (const GstAudioInfo * info)
{
  return GST_AUDIO_INFO_FORMAT (info) == GST_AUDIO_FORMAT_S16LE ?
      GST_CUDA_OVERLAP_KERNEL_AUDIO_S16LE : GST_CUDA_OVERLAP_KERNEL_AUDIO_F32LE;
}

static gsize
gst_cuda_overlap_audio_filter_configure (GstCudaOverlapFilter * base,
    GstCaps * caps, CoEngineConfig * cfg, GError ** error)
{
  GstCudaOverlapAudioFilter *self = GST_CUDA_OVERLAP_AUDIO_FILTER (base);
  CoAudioDesc *d = &self->desc;
  GstAudioInfo info;
  CoAudioOp op;
  gfloat *taps;
  gint n_taps;
  guint i;
  gsize halo_bytes;
  gboolean ok;

  if (!audio_info_from_caps (&info, caps)) {
    g_set_error (error, CO_ENGINE_ERROR, CO_ENGINE_ERROR_CONFIG,
        "invalid audio caps");
    return 0;
  }
  if (!check_format (&info, error))
    return 0;

  GST_OBJECT_LOCK (self);
  op = self->operation;
  n_taps = self->taps->len;
  taps = g_new (gfloat, n_taps);
  for (i = 0; i < (guint) n_taps; i++)
    taps[i] = (gfloat) g_array_index (self->taps, gdouble, i);
  ok = op != CO_AUDIO_OP_CUSTOM ||
      gst_cuda_overlap_custom_configure (&self->custom,
      GST_AUDIO_INFO_NAME (&info), abi_format (&info), TRUE, cfg, error);
  GST_OBJECT_UNLOCK (self);
  if (!ok) {
    g_free (taps);
    return 0;
  }
  note_changes (self, caps, &info, op, taps, n_taps);

  d->op = op;
  d->format = GST_AUDIO_INFO_FORMAT (&info) == GST_AUDIO_FORMAT_S16LE ?
      CO_AUDIO_S16 : CO_AUDIO_F32;
  d->channels = GST_AUDIO_INFO_CHANNELS (&info);
  d->n_taps = n_taps;
  d->gain = 1.0f;
  d->taps = NULL;
  d->halo = self->custom.run.halo;
  d->custom = &self->custom.run;
  self->custom.run.rate = GST_AUDIO_INFO_RATE (&info);

  /* the running history survives a rebuild with the same halo */
  halo_bytes = (gsize) co_audio_halo (d) * self->bpf;
  if (halo_bytes != self->halo_bytes || !self->tail) {
    g_free (self->tail);
    self->tail = g_try_malloc0 (MAX (halo_bytes, 1));
    self->halo_bytes = self->tail ? halo_bytes : 0;
    g_atomic_int_set (&self->reset, TRUE);
    if (!self->tail) {
      g_set_error (error, CO_ENGINE_ERROR, CO_ENGINE_ERROR_NO_MEMORY,
          "could not allocate the FIR history of %" G_GSIZE_FORMAT " bytes",
          halo_bytes);
      return 0;
    }
  }

  self->in_cuda = gst_cuda_overlap_filter_pad_is_cuda (base, GST_PAD_SINK);
  self->out_cuda = gst_cuda_overlap_filter_pad_is_cuda (base, GST_PAD_SRC);
  if (self->in_cuda && !dev_tail_ensure (self, halo_bytes, error))
    return 0;
  if (!self->in_cuda)
    dev_tail_free (self);
  co_audio_plan_sizes_io (d, cfg->chunks, self->capacity, self->in_cuda,
      self->out_cuda, &cfg->dev_in_size, &cfg->dev_out_size);
  cfg->const_size = MAX_TAPS * sizeof (gfloat);
  GST_DEBUG_OBJECT (self, "slots for %" G_GINT64_FORMAT " frames: %"
      G_GSIZE_FORMAT " + %" G_GSIZE_FORMAT " bytes", self->capacity,
      cfg->dev_in_size, cfg->dev_out_size);
  return (gsize) self->capacity * self->bpf;
}

static gboolean
gst_cuda_overlap_audio_filter_engine_ready (GstCudaOverlapFilter * base,
    CoEngine * e, GError ** error)
{
  GstCudaOverlapAudioFilter *self = GST_CUDA_OVERLAP_AUDIO_FILTER (base);
  CoAudioDesc *d = &self->desc;
  guint i, n = co_engine_max_in_flight (e);

  d->taps = co_engine_const_ptr (e);
  if (d->op == CO_AUDIO_OP_FIR && !co_engine_set_const (e, self->cur_taps,
          d->n_taps * sizeof (gfloat), error))
    return FALSE;

  /* No frame is in flight: the old ring can go.  None for an input in
   * CUDA memory (its history stays on the device). */
  ring_free (self);
  if (self->halo_bytes == 0 || self->in_cuda)
    return TRUE;
  self->ring = g_new0 (guint8 *, n);
  self->n_ring = n;
  self->ring_pinned = co_engine_backend (e) == CO_BACKEND_CUDA;
  for (i = 0; i < n; i++) {
    GError *err = NULL;

    if (self->ring_pinned)
      self->ring[i] = co_host_alloc (self->halo_bytes,
          gst_cuda_overlap_filter_device_id (base), &err);
    else
      self->ring[i] = g_try_malloc (self->halo_bytes);
    if (!self->ring[i]) {
      g_set_error (error, CO_ENGINE_ERROR, CO_ENGINE_ERROR_CONFIG,
          "could not allocate the history ring (%u x %" G_GSIZE_FORMAT
          " bytes): %s", n, self->halo_bytes, err ? err->message :
          "out of memory");
      g_clear_error (&err);
      ring_free (self);
      return FALSE;
    }
  }
  return TRUE;
}

/* New taps of the same length: uploaded into the same engine (no frame in
 * flight); the history restarts, as for any new filter.  Anything else
 * rebuilds. */
static gboolean
gst_cuda_overlap_audio_filter_update (GstCudaOverlapFilter * base,
    CoEngine * e, GError ** error)
{
  GstCudaOverlapAudioFilter *self = GST_CUDA_OVERLAP_AUDIO_FILTER (base);
  CoAudioDesc *d = &self->desc;
  gboolean same;
  guint i;

  GST_OBJECT_LOCK (self);
  if (self->operation == CO_AUDIO_OP_CUSTOM && d->op == CO_AUDIO_OP_CUSTOM) {
    /* new kernel-params: the same kernel, the history goes on */
    same = gst_cuda_overlap_custom_update (&self->custom);
    GST_OBJECT_UNLOCK (self);
    return same;
  }
  same = self->operation == d->op && d->op == CO_AUDIO_OP_FIR &&
      self->taps->len == (guint) d->n_taps;
  for (i = 0; same && i < self->taps->len; i++)
    self->cur_taps[i] = (gfloat) g_array_index (self->taps, gdouble, i);
  GST_OBJECT_UNLOCK (self);
  if (!same)
    return FALSE;
  g_atomic_int_set (&self->reset, TRUE);
  return co_engine_set_const (e, self->cur_taps, d->n_taps * sizeof (gfloat),
      error);
}

/* gain 0 dB (a factor of exactly 1) and a one-tap FIR of 1 leave every
 * sample as it is.  No history is lost by passing through: a one-tap
 * filter has none, and gain never had one.  Asked after the engine was
 * made to fit the settings: the running operation and taps are those in
 * effect (a property set since applies from the next buffer); the gain
 * travels with each buffer (prepare reads it) and is read here the same
 * way. */
static gboolean
gst_cuda_overlap_audio_filter_is_identity (GstCudaOverlapFilter * base)
{
  GstCudaOverlapAudioFilter *self = GST_CUDA_OVERLAP_AUDIO_FILTER (base);
  gboolean identity;

  if (self->desc.op == CO_AUDIO_OP_FIR)
    return self->have_cur && self->desc.n_taps == 1 && self->cur_taps &&
        self->cur_taps[0] == 1.0f;
  if (self->desc.op != CO_AUDIO_OP_GAIN)
    return FALSE;
  GST_OBJECT_LOCK (self);
  identity = self->gain_db == 0.0;
  GST_OBJECT_UNLOCK (self);
  return identity;
}

/* operation=custom: the caps narrowed to kernel-formats. */
static GstCaps *
gst_cuda_overlap_audio_filter_allowed_caps (GstCudaOverlapFilter * base)
{
  GstCudaOverlapAudioFilter *self = GST_CUDA_OVERLAP_AUDIO_FILTER (base);
  GstCaps *caps = NULL;

  GST_OBJECT_LOCK (self);
  if (self->operation == CO_AUDIO_OP_CUSTOM)
    caps = gst_cuda_overlap_custom_allowed_caps (&self->custom, "audio/x-raw");
  GST_OBJECT_UNLOCK (self);
  return caps;
}

/* ---- streaming ----------------------------------------------------------- */

/* For the automatic settings: the slots' capacity (the buffers' size is
 * measured once they come) and a long FIR as heavy.  No frame interval:
 * audio never spins, and the buffers' durations vary. */
static void
gst_cuda_overlap_audio_filter_tune_input (GstCudaOverlapFilter * base,
    GstCaps * caps, CoTuneInput * in)
{
  GstCudaOverlapAudioFilter *self = GST_CUDA_OVERLAP_AUDIO_FILTER (base);
  GstAudioInfo info;
  gsize bpf;

  in->media = CO_TUNE_AUDIO;
  GST_OBJECT_LOCK (self);
  in->cost = self->operation == CO_AUDIO_OP_FIR &&
      self->taps->len >= CO_TUNE_HEAVY_TAPS ? CO_TUNE_COST_HEAVY :
      CO_TUNE_COST_LIGHT;
  GST_OBJECT_UNLOCK (self);
  if (!audio_info_from_caps (&info, caps))
    return;
  bpf = GST_AUDIO_INFO_BPF (&info);
  if (self->cfg_caps && gst_caps_is_equal (caps, self->cfg_caps))
    in->frame_bytes = (guint64) self->capacity * self->bpf;
  else if (bpf > 0)
    in->frame_bytes = (guint64) initial_capacity (bpf) * bpf;
}

static GstFlowReturn
gst_cuda_overlap_audio_filter_sink_buffer (GstCudaOverlapFilter * base,
    GstBuffer * buf)
{
  GstCudaOverlapAudioFilter *self = GST_CUDA_OVERLAP_AUDIO_FILTER (base);
  gsize size = gst_buffer_get_size (buf);
  gint64 frames, cap;

  if (self->bpf == 0)
    return GST_FLOW_OK;         /* no caps: the base says so */
  if (size % self->bpf != 0) {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT,
        ("Input buffer of %" G_GSIZE_FORMAT " bytes is not a whole number "
            "of sample frames of %" G_GSIZE_FORMAT " bytes", size,
            self->bpf), ("%d channels of %s: %" G_GSIZE_FORMAT " frames and "
            "%" G_GSIZE_FORMAT " bytes left over",
            GST_AUDIO_INFO_CHANNELS (&self->info),
            GST_AUDIO_INFO_NAME (&self->info), size / self->bpf,
            size % self->bpf));
    return GST_FLOW_ERROR;
  }
  frames = size / self->bpf;
  if (frames > self->capacity) {
    /* The slots are too small for this buffer: once the frames in flight
     * are pushed, the base rebuilds the engine (configure reads the new
     * capacity).  The running history is kept. */
    for (cap = 1; cap < frames; cap <<= 1);
    GST_INFO_OBJECT (self, "buffer of %" G_GINT64_FORMAT " frames: slots "
        "grow from %" G_GINT64_FORMAT " to %" G_GINT64_FORMAT " frames",
        frames, self->capacity, cap);
    self->capacity = cap;
    gst_cuda_overlap_filter_mark_dirty (base);
  }
  return GST_FLOW_OK;
}

/* Maps @fr's input for reading and its output, cut to the input's @size,
 * for writing; a CUDA-memory side with GST_MAP_CUDA (the map's data is
 * then the device address of its one GstCudaMemory, whose bytes are
 * linear: gstcudaoverlap-cudapool.c).  FALSE after an element error. */
static gboolean
map_buffers (GstCudaOverlapAudioFilter * self, GstCudaOverlapFilterFrame * fr,
    FramePriv * fp, gsize size)
{
  if (self->in_cuda && gst_buffer_n_memory (fr->inbuf) != 1) {
    /* mapping several would merge them: a synchronous copy */
    GST_ELEMENT_ERROR (self, STREAM, FORMAT, (NULL),
        ("an input buffer in CUDA memory of %u memories: one is taken",
            gst_buffer_n_memory (fr->inbuf)));
    return FALSE;
  }
  fp->in_mapped = gst_buffer_map (fr->inbuf, &fp->in, GST_MAP_READ |
      (self->in_cuda ? GST_CUDA_OVERLAP_MAP_CUDA : 0));
  if (!fp->in_mapped) {
    GST_ELEMENT_ERROR (self, RESOURCE, READ, (NULL),
        ("could not map an input buffer of %" G_GSIZE_FORMAT " bytes", size));
    return FALSE;
  }
  if (!self->in_cuda)
    gst_cuda_overlap_filter_frame_check_input (fr, fp->in.data, size);
  gst_buffer_set_size (fr->outbuf, size);
  fp->out_mapped = gst_buffer_map (fr->outbuf, &fp->out, GST_MAP_WRITE |
      (self->out_cuda ? GST_CUDA_OVERLAP_MAP_CUDA : 0));
  if (!fp->out_mapped) {
    GST_ELEMENT_ERROR (self, RESOURCE, WRITE, (NULL),
        ("could not map an output buffer"));
    return FALSE;
  }
  return TRUE;
}

/* The history side of @io for @fr's slot: a host input gets this slot's
 * history buffer, a copy of the running tail (written here, read by this
 * frame's chunks only, rewritten only once the slot is acquired again,
 * i.e. after this frame has completed); a CUDA-memory input the device
 * tail, zeroed by the plan on a reset. */
static void
history_for (GstCudaOverlapAudioFilter * self, GstCudaOverlapFilterFrame * fr,
    CoFrame * cf, CoAudioIo * io)
{
  gboolean reset;

  if (self->halo_bytes == 0) {
    g_atomic_int_set (&self->reset, FALSE);
    return;
  }
  reset = g_atomic_int_compare_and_exchange (&self->reset, TRUE, FALSE) ||
      GST_BUFFER_FLAG_IS_SET (fr->inbuf, GST_BUFFER_FLAG_DISCONT);
  if (reset)
    GST_DEBUG_OBJECT (self, "history reset");
  if (self->in_cuda) {
    io->dev_tail = self->dev_tail_map.data;
    io->reset = reset;
    return;
  }
  if (reset)
    memset (self->tail, 0, self->halo_bytes);
  g_assert (cf->slot < self->n_ring);
  memcpy (self->ring[cf->slot], self->tail, self->halo_bytes);
  io->history = self->ring[cf->slot];
}

static GstFlowReturn
gst_cuda_overlap_audio_filter_prepare (GstCudaOverlapFilter * base,
    CoEngine * e, GstCudaOverlapFilterFrame * fr, CoFrame * cf)
{
  GstCudaOverlapAudioFilter *self = GST_CUDA_OVERLAP_AUDIO_FILTER (base);
  FramePriv *fp = fr->priv;
  gsize size = gst_buffer_get_size (fr->inbuf);
  gint64 frames = size / self->bpf;
  gboolean cpu = co_engine_backend (e) == CO_BACKEND_CPU;
  CoAudioIo io = { 0, };
  GstClockTime dur;
  gdouble gain_db;

  if (size % self->bpf != 0 || frames > self->capacity) {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT,
        ("Input buffer of %" G_GSIZE_FORMAT " bytes does not fit: %"
            G_GSIZE_FORMAT " bytes per frame, %" G_GINT64_FORMAT
            " frames at most", size, self->bpf, self->capacity), (NULL));
    return GST_FLOW_ERROR;
  }
  if (!map_buffers (self, fr, fp, size))
    return GST_FLOW_ERROR;

  GST_OBJECT_LOCK (self);
  gain_db = self->gain_db;
  GST_OBJECT_UNLOCK (self);
  self->desc.gain = (gfloat) pow (10.0, gain_db / 20.0);

  /* the CPU backend reads and writes host buffers in place, the CUDA
   * backend device memory (CUDA memory: no copy) */
  io.in = fp->in.data;
  io.out = fp->out.data;
  io.in_direct = cpu || self->in_cuda;
  io.out_direct = cpu || self->out_cuda;
  io.in_device = self->in_cuda;
  history_for (self, fr, cf, &io);
  co_audio_plan_io (&self->desc, co_engine_chunks (e), cf, &io, frames);
  /* the next buffer's halo: the copies above read the slot's history, not
   * @tail (a CUDA-memory input's tail is carried on by the device) */
  if (self->halo_bytes > 0 && !self->in_cuda)
    co_audio_history_update (&self->desc, self->tail, fp->in.data, frames);

  dur = GST_BUFFER_DURATION (fr->inbuf);
  if (!GST_CLOCK_TIME_IS_VALID (dur) && GST_AUDIO_INFO_RATE (&self->info) > 0)
    dur = gst_util_uint64_scale_int (frames, GST_SECOND,
        GST_AUDIO_INFO_RATE (&self->info));
  GST_OBJECT_LOCK (self);
  self->last_duration = dur;
  GST_OBJECT_UNLOCK (self);
  return GST_FLOW_OK;
}

/* The device has read the input: unmap it (finish unmaps the rest). */
static void
gst_cuda_overlap_audio_filter_finish_input (GstCudaOverlapFilter * base,
    GstCudaOverlapFilterFrame * fr)
{
  FramePriv *fp = fr->priv;

  if (fp->in_mapped)
    gst_buffer_unmap (fr->inbuf, &fp->in);
  fp->in_mapped = FALSE;
}

static void
gst_cuda_overlap_audio_filter_finish (GstCudaOverlapFilter * base,
    GstCudaOverlapFilterFrame * fr)
{
  FramePriv *fp = fr->priv;

  if (fp->in_mapped)
    gst_buffer_unmap (fr->inbuf, &fp->in);
  if (fp->out_mapped)
    gst_buffer_unmap (fr->outbuf, &fp->out);
  fp->in_mapped = fp->out_mapped = FALSE;
}

static void
gst_cuda_overlap_audio_filter_flush (GstCudaOverlapFilter * base)
{
  GstCudaOverlapAudioFilter *self = GST_CUDA_OVERLAP_AUDIO_FILTER (base);

  GST_DEBUG_OBJECT (self, "flushed: history reset");
  g_atomic_int_set (&self->reset, TRUE);
}

static GstBufferPool *
gst_cuda_overlap_audio_filter_make_pool (GstCudaOverlapFilter * base,
    GstCaps * caps, gsize size, GstAllocator * allocator, guint min, guint max)
{
  GstBufferPool *pool;
  GstStructure *config;

  /* Audio buffers have no size of their own: propose no pool upstream
   * (only the page-locked allocator). */
  if (size == 0)
    return NULL;
  pool = gst_buffer_pool_new ();
  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_set_params (config, caps, size, min, max);
  if (allocator)
    gst_buffer_pool_config_set_allocator (config, allocator, NULL);
  if (!gst_buffer_pool_set_config (pool, config)) {
    gst_object_unref (pool);
    return NULL;
  }
  return pool;
}

static GstClockTime
gst_cuda_overlap_audio_filter_frame_duration (GstCudaOverlapFilter * base)
{
  GstCudaOverlapAudioFilter *self = GST_CUDA_OVERLAP_AUDIO_FILTER (base);
  GstClockTime dur;

  GST_OBJECT_LOCK (self);
  dur = self->last_duration;
  GST_OBJECT_UNLOCK (self);
  return dur;
}

static const gchar *
gst_cuda_overlap_audio_filter_operation_nick (GstCudaOverlapFilter * base)
{
  GstCudaOverlapAudioFilter *self = GST_CUDA_OVERLAP_AUDIO_FILTER (base);

  return gst_cuda_overlap_enum_nick (GST_TYPE_CUDA_AUDIO_OPERATION,
      self->desc.op);
}

static GstStateChangeReturn
gst_cuda_overlap_audio_filter_change_state (GstElement * element,
    GstStateChange transition)
{
  GstCudaOverlapAudioFilter *self = GST_CUDA_OVERLAP_AUDIO_FILTER (element);
  GstStateChangeReturn ret;

  ret =
      GST_ELEMENT_CLASS
      (gst_cuda_overlap_audio_filter_parent_class)->change_state (element,
      transition);

  if (transition == GST_STATE_CHANGE_PAUSED_TO_READY) {
    /* the engine is gone: nothing reads the history any more */
    history_free (self);
    gst_caps_replace (&self->cfg_caps, NULL);
    self->bpf = 0;
    self->have_cur = FALSE;
    g_atomic_int_set (&self->reset, TRUE);
    GST_OBJECT_LOCK (self);
    self->last_duration = GST_CLOCK_TIME_NONE;
    GST_OBJECT_UNLOCK (self);
  }
  return ret;
}

static void
gst_cuda_overlap_audio_filter_finalize (GObject * object)
{
  GstCudaOverlapAudioFilter *self = GST_CUDA_OVERLAP_AUDIO_FILTER (object);

  history_free (self);
  gst_caps_replace (&self->cfg_caps, NULL);
  g_free (self->cur_taps);
  g_array_unref (self->taps);
  gst_cuda_overlap_custom_clear (&self->custom);
  G_OBJECT_CLASS (gst_cuda_overlap_audio_filter_parent_class)->finalize
      (object);
}

static void
install_properties (GObjectClass * gobject_class)
{
  GParamFlags rw = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_MUTABLE_PLAYING;

  /**
   * GstCudaOverlapAudioFilter:operation:
   *
   * What to compute on every buffer: `gain`, `fir` or `custom` (a kernel
   * of the user's).  A change takes effect after the buffers in flight and
   * resets the history.
   */
  g_object_class_install_property (gobject_class, PROP_OPERATION,
      g_param_spec_enum ("operation", "Operation",
          "What to compute on every buffer", GST_TYPE_CUDA_AUDIO_OPERATION,
          DEFAULT_OPERATION, rw));
  /**
   * GstCudaOverlapAudioFilter:gain-db:
   *
   * Gain of operation=gain in decibels: `y = x · 10^(gain-db / 20)`, the
   * gain as a float (S16: rounded half to even and saturated to
   * [−32768, 32767]).  0 is the identity: the buffers pass through.
   * Controllable (GstController): each buffer takes the value for its
   * stream time.
   */
  g_object_class_install_property (gobject_class, PROP_GAIN_DB,
      g_param_spec_double ("gain-db", "Gain (dB)",
          "Gain of operation=gain in decibels", -120.0, 60.0, DEFAULT_GAIN_DB,
          rw | GST_PARAM_CONTROLLABLE));
  /**
   * GstCudaOverlapAudioFilter:taps:
   *
   * The FIR coefficients h[0] … h[n−1] of operation=fir, 1 to 4096 of
   * them, used as floats: `y[n] = Σₖ h[k] · x[n − k]`.  From gst-launch:
   * `taps="<0.25, 0.5, 0.25>"`.  A change takes effect after the buffers in
   * flight and resets the history.  The one tap `<1.0>` is the identity:
   * the buffers pass through.
   */
  g_object_class_install_property (gobject_class, PROP_TAPS,
      gst_param_spec_array ("taps", "Taps",
          "FIR coefficients of operation=fir, e.g. \"<0.25, 0.5, 0.25>\"",
          g_param_spec_double ("tap", "Tap", "One FIR coefficient",
              -G_MAXFLOAT, G_MAXFLOAT, 0.0,
              G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS), rw));
  /**
   * GstCudaOverlapAudioFilter:qos:
   *
   * Handle Quality-of-Service events from downstream: drop input buffers
   * that are already late.  Off by default, as in #GstBaseTransform: a
   * dropped buffer is a gap in the signal.  When on, the buffer after a
   * dropped one is a discontinuity: the FIR history restarts from zeros
   * (as at the start of the stream, not from the dropped samples) and the
   * output buffer carries DISCONT; gain is not affected beyond the missing
   * buffer.
   */
  g_object_class_install_property (gobject_class, PROP_QOS,
      g_param_spec_boolean ("qos", "QoS",
          "Handle Quality-of-Service events from downstream", DEFAULT_QOS, rw));
  /* operation=custom: kernel-module, kernel-name, kernel-halo, ... */
  gst_cuda_overlap_custom_install (gobject_class, PROP_KERNEL_FIRST, TRUE);
}

static void
gst_cuda_overlap_audio_filter_class_init (GstCudaOverlapAudioFilterClass *
    klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstCudaOverlapFilterClass *base_class = GST_CUDA_OVERLAP_FILTER_CLASS (klass);

  gobject_class->set_property = gst_cuda_overlap_audio_filter_set_property;
  gobject_class->get_property = gst_cuda_overlap_audio_filter_get_property;
  gobject_class->finalize = gst_cuda_overlap_audio_filter_finalize;
  element_class->change_state = gst_cuda_overlap_audio_filter_change_state;

  install_properties (gobject_class);

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class,
      "CUDA overlapped audio filter", "Filter/Effect/Audio/Hardware",
      "Applies a gain, a FIR filter or a custom kernel to raw audio on a "
      "CUDA GPU", "cudaoverlap developers");

  base_class->frame_priv_size = sizeof (FramePriv);
  base_class->configure = gst_cuda_overlap_audio_filter_configure;
  base_class->engine_ready = gst_cuda_overlap_audio_filter_engine_ready;
  base_class->prepare = gst_cuda_overlap_audio_filter_prepare;
  /* the FIR history of the next buffer is read from this one's input */
  base_class->prepare_reads_input = TRUE;
  base_class->finish = gst_cuda_overlap_audio_filter_finish;
  base_class->finish_input = gst_cuda_overlap_audio_filter_finish_input;
  base_class->make_pool = gst_cuda_overlap_audio_filter_make_pool;
  base_class->frame_duration = gst_cuda_overlap_audio_filter_frame_duration;
  base_class->operation_nick = gst_cuda_overlap_audio_filter_operation_nick;
  base_class->sink_buffer = gst_cuda_overlap_audio_filter_sink_buffer;
  base_class->flush = gst_cuda_overlap_audio_filter_flush;
  base_class->update = gst_cuda_overlap_audio_filter_update;
  base_class->is_identity = gst_cuda_overlap_audio_filter_is_identity;
  base_class->tune_input = gst_cuda_overlap_audio_filter_tune_input;
  base_class->allowed_caps = gst_cuda_overlap_audio_filter_allowed_caps;
  gst_cuda_overlap_meta_rule_init (&base_class->meta_rule,
      GST_AUDIO_META_API_TYPE, meta_tags);

  gst_type_mark_as_plugin_api (GST_TYPE_CUDA_AUDIO_OPERATION, 0);
  GST_DEBUG_CATEGORY_INIT (gst_cuda_overlap_audio_filter_debug,
      "cudaoverlap-audio", 0, "cudaoverlap audio filter");
}

static void
gst_cuda_overlap_audio_filter_init (GstCudaOverlapAudioFilter * self)
{
  gdouble one = 1.0;

  self->operation = DEFAULT_OPERATION;
  self->gain_db = DEFAULT_GAIN_DB;
  gst_cuda_overlap_filter_set_qos_enabled (GST_CUDA_OVERLAP_FILTER (self),
      DEFAULT_QOS);
  self->taps = g_array_new (FALSE, FALSE, sizeof (gdouble));
  g_array_append_val (self->taps, one);
  self->last_duration = GST_CLOCK_TIME_NONE;
  gst_cuda_overlap_custom_init (&self->custom);
  self->desc.op = DEFAULT_OPERATION;
  self->desc.n_taps = 1;
  gst_audio_info_init (&self->info);
}
