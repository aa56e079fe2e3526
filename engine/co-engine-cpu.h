/* cudaoverlap: the overlap engine's CPU backend (co-engine-cpu.c).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __CO_ENGINE_CPU_H__
#define __CO_ENGINE_CPU_H__

#include "co-engine-private.h"

G_BEGIN_DECLS extern const CoBackendOps co_cpu_backend;

G_END_DECLS
#endif
