/* cudaoverlap: the one check of a CUDA runtime call.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Every CUDA runtime call of the engine is made through one of two macros,
 * in the manner of NCCL's CUDACHECKGOTO and GStreamer's gst_cuda_result():
 *
 *   CO_CUDA_CHECK_GOTO (cudaEventRecord (ev, s), error, fail);
 *
 * makes the call and, when it fails, logs the call's text, the file and
 * line, cudaGetErrorName and cudaGetErrorString (log domain "cudaoverlap",
 * debug level: the caller reports the error), sets @error (a GError **, or
 * NULL) to CO_ENGINE_ERROR_CUDA with "FUNCTION failed: STRING (NAME)", and
 * jumps to @label.  The label and the error are named at each call: the
 * macro declares nothing and uses no variable of the caller.
 *
 *   if (!CO_CUDA_CHECK_LOG (cudaEventDestroy (ev)))
 *
 * is for a call whose failure no caller can act on (a release): it logs
 * the failure as a message and evaluates to FALSE, or TRUE on success.
 *
 * After a failure both clear the runtime's last error (cudaGetLastError),
 * so that the check of a later kernel launch, which reads the last error,
 * does not report it a second time.
 *
 * Fault injection (co-fault.h): in a -Dfault-injection build each check
 * first asks co_fault_hit() with the name of the function called (the
 * call's text up to its first space or parenthesis); when a test makes
 * that point fail, the call is not made and the check fails with
 * "injected failure of FUNCTION".  In other builds the question is the
 * constant FALSE and costs nothing.
 *
 * Two places report their calls themselves, the same way: the context
 * calls of the driver API (co-engine-cuda.c) return a CUresult, not a
 * cudaError_t, and go through co_cu_check(); the loading and launching of
 * a user's kernel (co-custom-load.c) picks its advice by the error code
 * (the architecture to build for, the extern "C" a kernel needs) and words
 * those errors as docs/custom-kernels.md lists them.
 */
#ifndef __CO_CUDA_CHECK_H__
#define __CO_CUDA_CHECK_H__

#include <cuda_runtime.h>

#include "co-engine.h"
#include "co-fault.h"

G_BEGIN_DECLS
/* The result of @call (its text), made at @file:@line in @func: TRUE on
 * cudaSuccess; otherwise logs at @level, sets @error and returns FALSE. */
    gboolean co_cuda_result (cudaError_t result, const gchar * call,
    const gchar * file, const gchar * line, const gchar * func,
    GLogLevelFlags level, GError ** error);
/* An injected failure of @call, reported as co_cuda_result() reports a
 * real one; returns FALSE. */
gboolean co_cuda_injected (const gchar * call, const gchar * file,
    const gchar * line, const gchar * func, GLogLevelFlags level,
    GError ** error);

/* The common part of the two macros: TRUE when @call succeeded. */
#define CO_CUDA_CHECK_AT_LEVEL(call, level, error)                      \
  (co_fault_hit_call (#call) ?                                          \
      co_cuda_injected (#call, __FILE__, G_STRINGIFY (__LINE__),        \
          G_STRFUNC, (level), (error)) :                                \
      co_cuda_result ((cudaError_t) (call), #call, __FILE__,            \
          G_STRINGIFY (__LINE__), G_STRFUNC, (level), (error)))

/* Makes @call; on failure logs it, sets @error and jumps to @label. */
#define CO_CUDA_CHECK_GOTO(call, error, label)                          \
  G_STMT_START {                                                        \
    if (!CO_CUDA_CHECK_AT_LEVEL (call, G_LOG_LEVEL_DEBUG, (error)))     \
      goto label;                                                       \
  } G_STMT_END

/* Makes @call, checked as CO_CUDA_CHECK_AT_LEVEL but never a fault point:
 * TRUE when it succeeded.  For work that no test's count of calls may see
 * (co-hostreg.c: a page-locked block made ahead of need). */
#define CO_CUDA_CHECK_PLAIN(call, error)                                \
  co_cuda_result ((cudaError_t) (call), #call, __FILE__,                \
      G_STRINGIFY (__LINE__), G_STRFUNC, G_LOG_LEVEL_DEBUG, (error))

/* Makes @call; on failure logs it as a message.  FALSE when it failed. */
#define CO_CUDA_CHECK_LOG(call)                                         \
  CO_CUDA_CHECK_AT_LEVEL (call, G_LOG_LEVEL_MESSAGE, NULL)

G_END_DECLS
#endif /* __CO_CUDA_CHECK_H__ */
