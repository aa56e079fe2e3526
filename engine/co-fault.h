/* cudaoverlap: fault injection at the device call points, for tests only.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Built in only with `meson setup -Dfault-injection=true` (make check does),
 * which defines CO_FAULT_INJECTION.  In a release build co_fault_hit() is the
 * constant FALSE and nothing of this exists: production code reads no
 * environment variable and has no test branch.
 *
 * Every call point that can fail on a real device (each cudart call, each
 * kernel launch, each host allocation; the CPU backend's worker allocations)
 * asks co_fault_hit ("name") first, with the name of the call it makes (e.g.
 * "cudaMemcpyAsync"), and when it says TRUE it fails as that call would,
 * with a message that says the failure was injected.
 *
 * Tests arm it through the plugin's exported symbols (g_module_symbol on
 * the loaded plugin): co_fault_arm ("cudaMemcpyAsync", 3) makes the fourth
 * call of that name from now on fail, and every later one too until
 * co_fault_arm (NULL, -1) disarms.  co_fault_count() counts the calls of a
 * name since the last arm, so a test can list the points a pipeline passes
 * and then fail each in turn.  Until the first co_fault_arm() of the
 * process nothing is counted and a call point costs one atomic read.
 *
 * co_test_set_submit_delay_us() (exported likewise) makes the engine's
 * submit thread sleep that long before it queues each frame it was handed,
 * so that the hand-over's races show on the fast CPU backend; the engine
 * reads it through co_fault_submit_delay_us(), the constant 0 in release
 * builds.
 *
 * co_test_set_worker_jitter_us() (exported likewise) makes each worker of
 * the CPU backend sleep a random 0..us before each chunk it runs, and the
 * elements' push threads before each frame they push, so that chunks and
 * frames finish late and out of step across streams as device work does
 * (co_fault_worker_jitter_us(): one such sleep, the constant 0 in release
 * builds).
 *
 * co_test_set_update_delay_us() (exported likewise) makes the video element
 * sleep that long before it reads the gamma of a frame that goes through
 * the running operation (co_fault_update_delay_us(), 0 in release builds),
 * so that a test can change the settings in between.
 *
 * co_test_set_force_staging() (exported likewise) makes the elements
 * stage every input frame they would copy from pageable memory, on the CPU
 * backend too (co_fault_force_staging(), FALSE in release builds), so that
 * the staged path's asynchronous copies (co-parcopy.h jobs, finished by
 * the thread that submits the frame) meet flushes, rebuilds and teardowns
 * in `make check`.
 *
 * co_test_set_cuda_sim() (exported likewise) makes the CUDA backend's
 * device check see another machine (co_fault_cuda_sim(), "the real one"
 * in release builds): the driver's CUDA version (0: no driver; below this
 * build's runtime: a driver too old, whose cudaGetDeviceCount fails as a
 * real one does), the number of devices, and the compute capability of
 * every device, which this build then has no code for.  Each -1 leaves
 * the real value, so that a machine without a GPU can meet each reason
 * why backend=auto runs on the CPU.
 *
 * co_test_set_flush_delay_us() (exported likewise) makes an element sleep
 * that long in FLUSH_START, after it has started flushing and before it
 * sends the event downstream (co_fault_flush_delay_us(), 0 in release
 * builds): what a streaming thread does in that window shows.
 */
#ifndef __CO_FAULT_H__
#define __CO_FAULT_H__

#include <glib.h>

G_BEGIN_DECLS
/* A simulated CUDA installation (co_test_set_cuda_sim()); -1: real. */
    typedef struct
{
  gint driver_version;
  gint device_count;
  gint cc;
} CoFaultCudaSim;

#ifdef CO_FAULT_INJECTION
/* Whether this call of @point fails.  Thread-safe; counts the call. */
gboolean co_fault_hit (const gchar * point);
/* co_fault_hit() of the function that @call calls: @call is the text of a
 * call, "cudaEventRecord (ev, s)", whose point is the name before the
 * first space or parenthesis (co-cuda-check.h). */
gboolean co_fault_hit_call (const gchar * call);
/* From the @nth (0-based) call of @point on ("*": any point), every call
 * fails; @nth < 0 (or @point NULL) disarms.  Resets the counts. */
void co_fault_arm (const gchar * point, gint64 nth);
/* Calls of @point ("*": all) since the last co_fault_arm(). */
guint64 co_fault_count (const gchar * point);
/* The names of the points called since the last co_fault_arm(), sorted
 * (free with g_strfreev). */
gchar **co_fault_points (void);
/* How many calls failed because of an injection since the last arm. */
guint64 co_fault_injected (void);
/* The submit thread's sleep before each frame, in us (0: none). */
void co_test_set_submit_delay_us (gulong us);
gulong co_fault_submit_delay_us (void);
/* The sleep inside an update of constants (0: none). */
void co_test_set_update_delay_us (gulong us);
gulong co_fault_update_delay_us (void);
/* The sleep in FLUSH_START before it goes downstream (0: none). */
void co_test_set_flush_delay_us (gulong us);
gulong co_fault_flush_delay_us (void);
/* The CPU workers' random sleep before each chunk, at most @us (0: none). */
void co_test_set_worker_jitter_us (gulong us);
gulong co_fault_worker_jitter_us (void);
/* Stage every frame that would be copied from pageable memory. */
void co_test_set_force_staging (gboolean force);
gboolean co_fault_force_staging (void);
/* The simulated CUDA installation, each -1 for the real value: the
 * driver's CUDA version (e.g. 12040), the device count, and the devices'
 * compute capability as major * 10 + minor. */
void co_test_set_cuda_sim (gint driver_version, gint device_count, gint cc);
void co_fault_cuda_sim (CoFaultCudaSim * sim);
#else
#define co_fault_hit(point) FALSE
#define co_fault_hit_call(call) FALSE
#define co_fault_submit_delay_us() 0
#define co_fault_worker_jitter_us() 0
#define co_fault_update_delay_us() 0
#define co_fault_flush_delay_us() 0
#define co_fault_force_staging() FALSE
#define co_fault_cuda_sim(sim) \
  ((void) ((sim)->driver_version = (sim)->device_count = (sim)->cc = -1))
#endif
G_END_DECLS
#endif /* __CO_FAULT_H__ */
