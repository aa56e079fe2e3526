/* cudaoverlap: the overlap engine's CUDA backend (co-engine-cuda.c).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __CO_ENGINE_CUDA_H__
#define __CO_ENGINE_CUDA_H__

#include "co-engine-private.h"

G_BEGIN_DECLS extern const CoBackendOps co_cuda_backend;

G_END_DECLS
#endif
