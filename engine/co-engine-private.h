/* cudaoverlap: engine internals shared by the generic part and the backends.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The generic part (co-engine.c: slots, submission order, the submit
 * thread, flushing, draining) drives a backend through CoBackendOps and
 * never asks which backend it holds.  A backend (co-engine-cuda.c,
 * co-engine-cpu.c) keeps its state behind CoEngine.backend_state and reads
 * the engine's configuration and slots from the struct below.
 * co-backend.c picks the backend; it is the only file that names them.
 */
#ifndef __CO_ENGINE_PRIVATE_H__
#define __CO_ENGINE_PRIVATE_H__

#include "co-engine.h"

G_BEGIN_DECLS typedef struct _CoBackendOps CoBackendOps;

/* One implementation of the engine's device work.  Threads: open and close
 * run on the thread that makes or frees the engine; submit on the one
 * submitting thread (the producer, or the engine's submit thread); wait on
 * the consumer; set_const when no frame is in flight.  None of them is
 * called with CoEngine.lock held. */
struct _CoBackendOps
{
  const gchar *name;            /* "cuda", "cpu" */
  CoBackendKind kind;

  /* Whether the backend can run on @device_id (-1: the first device); if
   * not, @error says why in words a user can act on (no driver, a driver
   * too old, no such device, a device the build has no code for): the
   * reason backend=auto gives for running on the CPU. */
    gboolean (*usable) (gint device_id, GError ** error);

  /* Makes the backend state (CoEngine.backend_state), the constant area and
   * every slot's work memory (CoFrame.dev_in/dev_out).  On failure the
   * engine calls close, which frees whatever open made. */
    gboolean (*open) (CoEngine * e, GError ** error);
  /* Waits for everything queued, frees the state (which may be partial or
   * NULL) and sets CoEngine.backend_state to NULL. */
  void (*close) (CoEngine * e);

  /* Queues the frame's chunks (each chunk's stream is already set) and
   * returns without waiting.  On FALSE, nothing of the frame is left
   * running once wait returns; the engine stores the error in frame->error. */
    gboolean (*submit) (CoEngine * e, CoFrame * f, GError ** error);
  /* Blocks until the frame's work has finished, then fills its chunks'
   * timestamps.  Called for failed frames too (frame->error set): the slot's
   * memory must then be idle when it returns.  A failure of the work or of
   * the wait goes into frame->error. */
  void (*wait) (CoEngine * e, CoFrame * f);
  /* Optional, both or neither: wait in two steps.  wait_done blocks until
   * the frame's work has finished (as wait, without the timestamps);
   * read_times fills them later, once per frame that did not fail, in the
   * order of the waits and before the frame's slot is released (the
   * engine sees to both).  A failure of read_times goes into
   * frame->error. */
  void (*wait_done) (CoEngine * e, CoFrame * f);
  void (*read_times) (CoEngine * e, CoFrame * f);
  /* Optional: whether the device has finished reading the host memory of
   * submitted frame @f (co_engine_next_read()), which did not fail to
   * submit; with @poll, poll until it has.  FALSE also when asking fails
   * (the frame's wait then reports it). */
    gboolean (*host_read) (CoEngine * e, CoFrame * f, gboolean poll);

  /* Uploads @size bytes to the constant area and waits. */
    gboolean (*set_const) (CoEngine * e, gconstpointer data, gsize size,
      GError ** error);
    gpointer (*const_ptr) (CoEngine * e);
  /* Fills @info, which the engine has zeroed. */
  void (*device_info) (CoEngine * e, CoDeviceInfo * info);
  /* The same for @device_id (-1: the first device) without an engine. */
  void (*probe) (gint device_id, CoDeviceInfo * info);
  /* Optional: co_engine_device_context(). */
    gboolean (*device_context) (gint device_id, gpointer * context,
      gint * device, GError ** error);
};

/* The backend co_engine_new() opens for @kind (co-backend.c): CO_BACKEND_AUTO
 * gives the CUDA one when a device is usable, else the CPU one. */
const CoBackendOps *co_backend_select (CoBackendKind kind, gint device_id);

/* Lock order: lock is the only engine lock; backends take their own locks
 * (if any) without it, and every backend call runs outside it. */
struct _CoEngine
{
  CoEngineConfig cfg;           /* effective values */
  const CoBackendOps *ops;
  gpointer backend_state;       /* the backend's own, behind ops */
  guint n_slots;
  CoFrame *frames;              /* n_slots */

  GMutex lock;
  GCond cond;                   /* slot freed, frame submitted, flushing */
  guint cond_waiters;           /* threads in co_engine_wait_locked () */
  guint *free_slots;            /* stack of free slot indices */
  guint n_free;
  GQueue submitted;             /* CoFrame*, submission order */
  /* submit_thread: frames handed over, not yet queued on the device */
  GThread *submitter;
  GQueue to_submit;             /* CoFrame*, hand-over order */
  guint handing;                /* handed over, not yet in `submitted` (in
                                 * to_submit or being queued on the device) */
  GCond submit_cond;            /* to_submit not empty, quit */
  gboolean submitter_idle;      /* waiting on submit_cond */
  gboolean submitter_quit;
  gboolean flushing;
  guint64 next_seqnum;
  guint next_stream;            /* of the next chunk; the submitting thread's */
};

/* g_try_malloc0 of @n_elems * @elem_size bytes (fault point
 * "g_try_malloc"); on failure, NULL and an error that names @what and the
 * size. */
gpointer co_engine_try_alloc0 (gsize n_elems, gsize elem_size,
    const gchar * what, GError ** error);

G_END_DECLS
#endif
