/* cudaoverlap: abstract base of the elements that run on the overlap engine.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_CUDA_OVERLAP_FILTER_H__
#define __GST_CUDA_OVERLAP_FILTER_H__

#include <gst/gst.h>
#include "co-engine.h"
#include "gstcudaoverlap-hostmem.h"
#include "gstcudaoverlap-meta.h"
#include "co-stats.h"
#include "co-trace.h"
#include "co-tune.h"

G_BEGIN_DECLS
#define GST_TYPE_CUDA_OVERLAP_FILTER (gst_cuda_overlap_filter_get_type ())
G_DECLARE_DERIVABLE_TYPE (GstCudaOverlapFilter, gst_cuda_overlap_filter, GST,
    CUDA_OVERLAP_FILTER, GstElement);

#define GST_TYPE_CUDA_OVERLAP_MODE (gst_cuda_overlap_mode_get_type ())
GType gst_cuda_overlap_mode_get_type (void);
#define GST_TYPE_CUDA_OVERLAP_WAIT_MODE (gst_cuda_overlap_wait_mode_get_type ())
GType gst_cuda_overlap_wait_mode_get_type (void);
#define GST_TYPE_CUDA_OVERLAP_BACKEND (gst_cuda_overlap_backend_get_type ())
GType gst_cuda_overlap_backend_get_type (void);

/* The nick of @value in the enum @type ("unknown" if it has none): for the
 * statistics, the passport and the subclasses' operation_nick. */
const gchar *gst_cuda_overlap_enum_nick (GType type, gint value);

/* Per in-flight buffer bookkeeping: one per engine slot, or with batches
 * (@batch_size) one per image of each slot. */
typedef struct
{
  GstBuffer *inbuf;
  GstBuffer *outbuf;
  guint64 chain_ns;
  CoMemPath path;
  CoHostRef *host_ref;          /* on @inbuf's host ranges while in flight */
  guint image;                  /* its place in the slot's batch (0: first) */
  /* TRUE while klass->finish runs for a frame whose device work completed
   * (FALSE: the frame is dropped, its work may not have run) */
  gboolean completed;
  gpointer priv;                /* subclass: klass->frame_priv_size bytes */
} GstCudaOverlapFilterFrame;

/**
 * GstCudaOverlapFilterClass:
 * @configure: new caps: fill the engine's sizes (dev_in_size, dev_out_size,
 *   const_size) in @config and return the output buffer size (0 on error,
 *   with @error set).  Called with no frame in flight.
 * @engine_ready: the engine exists: upload constants.
 * @prepare: map @frame's buffers and plan @cf's chunks.  Return a flow;
 *   GST_FLOW_ERROR after posting an element error.  A staged input (a copy
 *   in page-locked memory) may still be being written by co-parcopy's
 *   threads: its bytes are there only once the engine queues the frame,
 *   unless @prepare_reads_input is set.
 * @prepare_reads_input: @prepare reads the input's bytes on the host (the
 *   audio FIR history): a staged input is complete before @prepare.
 * @finish: unmap what @prepare mapped (also for dropped frames).
 * @finish_input: optional: unmap what @prepare mapped of the input only:
 *   the device has finished reading it while the frame's kernels and
 *   copies out may still run, and the base drops the input buffer next
 *   (the application's buffer comes back before the frame is pushed);
 *   @finish follows later for the rest.  Without it the input is kept
 *   until the frame is pushed.
 * @make_pool: a configured pool (caps, buffer size — from @caps when @size
 *   is 0 —, @min/@max buffers, @allocator when not NULL) for the output
 *   buffers and for the pool proposed upstream.
 * @propose_allocation: add metas to an ALLOCATION query (optional).
 * @frame_duration: duration of one buffer for the latency query.
 * @operation_nick: the operation, for statistics and the passport.
 * @sink_buffer: optional: sees every input buffer in chain before the
 *   engine is checked (or rebuilt) and a slot taken.  It may call
 *   gst_cuda_overlap_filter_mark_dirty() so that this very buffer is
 *   processed by a rebuilt engine (built after the frames in flight were
 *   pushed), e.g. with larger slots.  Anything but GST_FLOW_OK drops the
 *   buffer and is returned (post an element error for GST_FLOW_ERROR).
 * @flush: optional: called at FLUSH_STOP once the frames in flight were
 *   dropped, before the next buffer (e.g. to forget stream state).
 * @update: optional: parameters that need no new allocation changed (see
 *   gst_cuda_overlap_filter_mark_params_dirty()): every frame in flight has
 *   been pushed; upload the new constants to @engine and return TRUE, or
 *   FALSE when the change needs a rebuild after all (@error unset) or
 *   failed (@error set: an element error is posted).
 * @is_identity: optional: TRUE when the current settings leave every
 *   buffer as it is (e.g. gamma 1): buffers then go through untouched
 *   (passthrough).  Asked for every buffer, after any rebuild or update;
 *   a switch drains the frames in flight first.
 * @batch_size: optional: buffers per engine frame (a batch), asked after
 *   @configure; 1 when not set.  @prepare is then called for each buffer of
 *   a batch with frame->image 0, 1, ... on the same @cf, which is submitted
 *   when it is full, once no buffer has come for a while, or before any
 *   serialized event or DRAIN (a partial batch:
 *   gstcudaoverlapfilter-batch.c).
 * @tune_input: optional: for the automatic settings (engine/co-tune.h),
 *   what @caps and the element's settings say: media, frame_bytes, rows,
 *   frame_interval_ns, cost, can_batch, user_batch; the base fills the
 *   rest.  Called before @configure.
 * @allowed_caps: optional: caps (of system memory) that narrow what both
 *   pads take beyond the pad templates, or NULL for no restriction
 *   (operation=custom's kernel-formats); asked for every CAPS and
 *   ACCEPT_CAPS query.
 * @check_input: optional: called for every buffer that goes to the engine,
 *   before anything maps it: FALSE (after posting a STREAM/FORMAT element
 *   error) when it cannot be read as the caps say (e.g. a video meta of
 *   another format, or planes outside the buffer).
 * @offer_pool_params: on the CPU backend, the ALLOCATION answer still
 *   states the buffers the element holds (a pool entry without a pool, of
 *   the output pool's buffer size): for subclasses whose input buffers
 *   have the output's size.
 * @meta_rule: which metas of an input buffer are copied onto its output
 *   buffer (gstcudaoverlap-meta.h): set with
 *   gst_cuda_overlap_meta_rule_init() in class_init; by default only metas
 *   without tags (less #GstParentBufferMeta and #GstProtectionMeta).
 */
struct _GstCudaOverlapFilterClass
{
  GstElementClass parent_class;

  gsize frame_priv_size;

    gsize (*configure) (GstCudaOverlapFilter * self, GstCaps * caps,
      CoEngineConfig * config, GError ** error);
    gboolean (*engine_ready) (GstCudaOverlapFilter * self, CoEngine * engine,
      GError ** error);
    GstFlowReturn (*prepare) (GstCudaOverlapFilter * self, CoEngine * engine,
      GstCudaOverlapFilterFrame * frame, CoFrame * cf);
  void (*finish) (GstCudaOverlapFilter * self,
      GstCudaOverlapFilterFrame * frame);
  void (*finish_input) (GstCudaOverlapFilter * self,
      GstCudaOverlapFilterFrame * frame);
  GstBufferPool *(*make_pool) (GstCudaOverlapFilter * self, GstCaps * caps,
      gsize size, GstAllocator * allocator, guint min, guint max);
    GstClockTime (*frame_duration) (GstCudaOverlapFilter * self);
  void (*propose_allocation) (GstCudaOverlapFilter * self, GstQuery * query);
  const gchar *(*operation_nick) (GstCudaOverlapFilter * self);
    GstFlowReturn (*sink_buffer) (GstCudaOverlapFilter * self, GstBuffer * buf);
  void (*flush) (GstCudaOverlapFilter * self);
    guint (*batch_size) (GstCudaOverlapFilter * self);
    gboolean (*update) (GstCudaOverlapFilter * self, CoEngine * engine,
      GError ** error);
    gboolean (*is_identity) (GstCudaOverlapFilter * self);
  void (*tune_input) (GstCudaOverlapFilter * self, GstCaps * caps,
      CoTuneInput * in);
  GstCaps *(*allowed_caps) (GstCudaOverlapFilter * self);
    gboolean (*check_input) (GstCudaOverlapFilter * self, GstBuffer * buf);

  gboolean prepare_reads_input;
  gboolean offer_pool_params;
  GstCudaOverlapMetaRule meta_rule;
};

/* For subclasses: ask for an engine rebuild before the next buffer (a
 * property that changes the plan or the constants was set). */
void gst_cuda_overlap_filter_mark_dirty (GstCudaOverlapFilter * self);
/* For subclasses: a property that changes only constants (no sizes, no
 * plan) was set: before the next buffer the frames in flight are pushed and
 * @update is called; no rebuild, unless @update says one is needed. */
void gst_cuda_overlap_filter_mark_params_dirty (GstCudaOverlapFilter * self);
/* For subclasses, which install a `qos` property each (with their own
 * default): drop buffers that QOS events from downstream say are late. */
void gst_cuda_overlap_filter_set_qos_enabled (GstCudaOverlapFilter * self,
    gboolean enabled);
gboolean gst_cuda_overlap_filter_is_qos_enabled (GstCudaOverlapFilter * self);
CoBackendKind gst_cuda_overlap_filter_backend (GstCudaOverlapFilter * self);
/* For @configure of a subclass with a batch: the batch the automatic
 * settings chose (1 when nothing was chosen), for a `batch` of 0. */
guint gst_cuda_overlap_filter_auto_batch (GstCudaOverlapFilter * self);
/* For subclasses (streaming thread, from @configure on): whether the pad
 * of @direction negotiated memory:CUDAMemory (device memory) rather than
 * system memory. */
gboolean gst_cuda_overlap_filter_pad_is_cuda (GstCudaOverlapFilter * self,
    GstPadDirection direction);
gint gst_cuda_overlap_filter_device_id (GstCudaOverlapFilter * self);
/* For subclasses (from @configure on, with a pad in CUDA memory): @size
 * bytes of linear device memory in the element's CUDA context, a
 * GstCudaMemory that outlives engine rebuilds (a running state such as
 * the audio history); NULL without a context or device memory.  Free it
 * (gst_memory_unref) only with no frame in flight. */
GstMemory *gst_cuda_overlap_filter_cuda_memory_new (GstCudaOverlapFilter *
    self, gsize size);
/* For @prepare: the @size input bytes at @data (mapped from frame->inbuf)
 * will be copied; if they are not in page-locked memory (e.g. mapping
 * merged several memories into a temporary copy), the frame's memory path
 * becomes pageable. */
void gst_cuda_overlap_filter_frame_check_input (GstCudaOverlapFilterFrame *
    frame, gconstpointer data, gsize size);

G_END_DECLS
#endif
