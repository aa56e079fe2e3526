/* cudaoverlap: the one check of a CUDA runtime call (see co-cuda-check.h).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A failed call is said twice, for two readers: the log line carries the
 * whole call and its place in the source for the developer; the GError
 * carries the function's name and the runtime's words for the caller, who
 * reports it to the user (an element error).
 */
#include <string.h>

#include "co-cuda-check.h"

#define CO_CUDA_LOG_DOMAIN "cudaoverlap"

/* The length of the function's name at the start of @call's text. */
static gint
co_cuda_name_len (const gchar * call)
{
  return (gint) strcspn (call, " (");
}

gboolean
co_cuda_result (cudaError_t result, const gchar * call, const gchar * file,
    const gchar * line, const gchar * func, GLogLevelFlags level,
    GError ** error)
{
  if (result == cudaSuccess)
    return TRUE;
  /* the error is reported here: a later launch's check must not see it */
  cudaGetLastError ();
  g_log_structured_standard (CO_CUDA_LOG_DOMAIN, level, file, line, func,
      "%s:%s: %s failed: %s (%s)", file, line, call, cudaGetErrorName (result),
      cudaGetErrorString (result));
  g_set_error (error, CO_ENGINE_ERROR, CO_ENGINE_ERROR_CUDA,
      "%.*s failed: %s (%s)", co_cuda_name_len (call), call,
      cudaGetErrorString (result), cudaGetErrorName (result));
  return FALSE;
}

gboolean
co_cuda_injected (const gchar * call, const gchar * file, const gchar * line,
    const gchar * func, GLogLevelFlags level, GError ** error)
{
  g_log_structured_standard (CO_CUDA_LOG_DOMAIN, level, file, line, func,
      "%s:%s: injected failure of %s", file, line, call);
  g_set_error (error, CO_ENGINE_ERROR, CO_ENGINE_ERROR_CUDA,
      "injected failure of %.*s", co_cuda_name_len (call), call);
  return FALSE;
}
