/* cudaoverlap: engine internals shared by the generic part and the backends.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __CO_ENGINE_PRIVATE_H__
#define __CO_ENGINE_PRIVATE_H__

#include "co-engine.h"

G_BEGIN_DECLS typedef struct _CoCudaState CoCudaState;

typedef struct
{
  CoFrame *frame;
  guint chunk;
} CoCpuJob;

typedef struct
{
  CoEngine *engine;
  GThread *thread;
  GCond cond;
  CoCpuJob *jobs;               /* ring of n_slots * CO_MAX_CHUNKS */
  guint head, count, cap;
  gboolean waiting;             /* on cond, under the engine's lock */
} CoCpuWorker;

/* Lock order: engine->lock is the only engine lock; the CUDA calls of
 * submit and wait run outside it. */
struct _CoEngine
{
  CoEngineConfig cfg;           /* effective values */
  CoBackendKind backend;
  guint n_slots;
  guint n_evsets;
  CoFrame *frames;              /* n_slots */

  GMutex lock;
  GCond cond;                   /* slot freed, frame submitted, frame done, flushing */
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
  guint next_stream;
  gint64 fail_after;            /* test hook: CO_ENGINE_FAIL_AFTER, -1: off */
  gulong submit_delay_us;       /* test hook: CO_ENGINE_SUBMIT_DELAY_US */

  /* CPU backend */
  CoCpuWorker workers[CO_MAX_STREAMS];
  gboolean quit;
  guint8 *host_mem;
  guint8 *host_const;

  /* CUDA backend */
  CoCudaState *cuda;
};

/* co-engine-cuda.c */
gboolean co_cuda_open (CoEngine * engine, GError ** error);
void co_cuda_close (CoEngine * engine);
gboolean co_cuda_submit (CoEngine * engine, CoFrame * frame, GError ** error);
void co_cuda_wait (CoEngine * engine, CoFrame * frame);
gboolean co_cuda_set_const (CoEngine * engine, gconstpointer data, gsize size,
    GError ** error);
gpointer co_cuda_const_ptr (CoEngine * engine);
void co_cuda_device_info (CoEngine * engine, CoDeviceInfo * info);


G_END_DECLS
#endif
