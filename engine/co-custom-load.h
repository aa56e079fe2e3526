/* cudaoverlap: operation=custom, a user's kernel loaded by the backends.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The CUDA backend loads the user's module with the CUDA runtime's library
 * API (cudaLibraryLoadData, cudaLibraryGetKernel; no driver call, libcuda
 * stays unlinked) in the engine's context when the engine opens, and
 * launches the kernel per chunk on the chunk's stream (cudaLaunchKernel,
 * the launch struct of kernels/co-custom.h by value).  The CPU backend
 * opens the user's shared library with GModule and calls the function with
 * the same struct.  kernel-source is CUDA C compiled with NVRTC
 * (co-nvrtc.h) into the module the CUDA backend loads; the CPU backend
 * runs the CPU library for it.  Neither knows GStreamer; every error names
 * the file, the kernel and the underlying message (docs/custom-kernels.md,
 * Errors).
 */
#ifndef __CO_CUSTOM_LOAD_H__
#define __CO_CUSTOM_LOAD_H__

#include "co-engine.h"
#include "co-custom.h"

G_BEGIN_DECLS typedef struct _CoCustomCuda CoCustomCuda;

/* A copy of @l with one reference: NULL with @error (CO_ENGINE_ERROR_KERNEL)
 * when @l is not a launcher of a known ABI version. */
CoCustomLauncher *co_custom_launcher_new (const GstCudaOverlapKernelLauncher *
    l, GError ** error);
CoCustomLauncher *co_custom_launcher_ref (CoCustomLauncher * cl);
/* The last reference calls the launcher's destroy (user_data). */
void co_custom_launcher_unref (CoCustomLauncher * cl);
typedef struct _CoCustomCpu CoCustomCpu;

/* Loads @spec's kernel into the current CUDA context (the engine's) on
 * @device and makes it resident there (an architecture mismatch fails
 * here, not at the first launch).  NULL with CO_ENGINE_ERROR_KERNEL. */
CoCustomCuda *co_custom_cuda_load (const CoCustomSpec * spec, gint device,
    GError ** error);
/* In the context it was loaded in, with nothing of it running. */
void co_custom_cuda_unload (CoCustomCuda * k);
/* Queues the launches of chunk @chunk (of @n_chunks) on @stream (a
 * cudaStream_t). */
gboolean co_custom_cuda_launch (CoCustomCuda * k, const CoChunk * ch,
    guint chunk, guint n_chunks, gpointer stream, GError ** error);
/* For a frame's error: which custom kernel ran (free it). */
gchar *co_custom_cuda_describe (const CoCustomCuda * k);
/* kernel-source: NVRTC's compile time (0 from the cache) and where the
 * code came from (co_nvrtc_cache_nick ()); 0 and "" for a module. */
void co_custom_cuda_compile_info (const CoCustomCuda * k, gdouble * ms,
    const gchar ** cache);
/* NULL, or why @spec cannot be loaded on any backend (free it): more than
 * one of kernel-module, kernel-source and kernel-source-file set. */
gchar *co_custom_spec_conflict (const CoCustomSpec * spec);

/* Opens @spec's CPU library and finds its function.  NULL with
 * CO_ENGINE_ERROR_KERNEL, also when @spec names none. */
CoCustomCpu *co_custom_cpu_load (const CoCustomSpec * spec, GError ** error);
void co_custom_cpu_unload (CoCustomCpu * k);
/* Runs chunk @chunk (of @n_chunks) on the calling thread: NULL, or what
 * failed (free it): the text of the frame's error (CoFrame.error, the
 * per-frame channel of co-engine.h). */
gchar *co_custom_cpu_run (const CoCustomCpu * k, const CoChunk * ch,
    guint chunk, guint n_chunks);

G_END_DECLS
#endif
