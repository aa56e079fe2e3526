/* cudaoverlap: what stands in for CUDA in a build without it.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A build configured with -Dcuda=disabled has no CUDA toolkit file: meson
 * leaves out the CUDA backend (co-engine-cuda.c), the check of CUDA calls
 * (co-cuda-check.c) and the kernels' CUDA code; the host registry
 * (co-hostreg.c) and operation=custom (co-custom-load.c) compile their
 * CUDA side out.  This file takes the place of the rest:
 *  - a CUDA backend table that is never usable and says why: backend=cuda
 *    fails with that reason, backend=auto runs on the CPU and its fallback
 *    note gives the same reason;
 *  - page-locked allocation that fails with the reason (only the CUDA
 *    backend asks for it).
 * The registry of host ranges (co-hostreg.c) page-locks nothing then:
 * every range is pageable to it.
 */
#include "co-engine-cuda.h"
#include "co-hostreg.h"

#define CO_NO_CUDA "this build of cudaoverlap has no CUDA backend " \
  "(built with -Dcuda=disabled)"

static gboolean
co_nocuda_fail (GError ** error)
{
  g_set_error_literal (error, CO_ENGINE_ERROR, CO_ENGINE_ERROR_NO_DEVICE,
      CO_NO_CUDA);
  return FALSE;
}

/* ---- the CUDA backend's table -------------------------------------------- */

static gboolean
co_nocuda_usable (gint device_id, GError ** error)
{
  return co_nocuda_fail (error);
}

static gboolean
co_nocuda_open (CoEngine * e, GError ** error)
{
  return co_nocuda_fail (error);
}

static void
co_nocuda_close (CoEngine * e)
{
  e->backend_state = NULL;
}

static void
co_nocuda_probe (gint device_id, CoDeviceInfo * info)
{
}

static gboolean
co_nocuda_device_context (gint device_id, gpointer * context, gint * device,
    GError ** error)
{
  return co_nocuda_fail (error);
}

/* open always fails, so the engine calls none of the frame operations */
const CoBackendOps co_cuda_backend = {
  .name = "cuda",
  .kind = CO_BACKEND_CUDA,
  .usable = co_nocuda_usable,
  .open = co_nocuda_open,
  .close = co_nocuda_close,
  .probe = co_nocuda_probe,
  .device_context = co_nocuda_device_context,
};

/* ---- page-locked allocation ---------------------------------------------- */

gpointer
co_host_alloc (gsize size, gint device_id, GError ** error)
{
  g_set_error (error, CO_ENGINE_ERROR, CO_ENGINE_ERROR_CUDA,
      "no page-locked memory: %s", CO_NO_CUDA);
  return NULL;
}

gpointer
co_host_alloc_ahead (gsize size, gint device_id, GError ** error)
{
  return co_host_alloc (size, device_id, error);
}

void
co_host_free (gpointer data)
{
  /* co_host_alloc() never gave any */
}
