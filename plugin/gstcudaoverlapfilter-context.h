/* cudaoverlap: the GstCudaContext GstCudaOverlapFilter shares with the
 * pipeline's other CUDA elements, and whether CUDA memory can be
 * negotiated at all (gstcudaoverlapfilter-context.c explains both).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_CUDA_OVERLAP_FILTER_CONTEXT_H__
#define __GST_CUDA_OVERLAP_FILTER_CONTEXT_H__

#include "gstcudaoverlapfilter.h"

G_BEGIN_DECLS
/* Every field is guarded by the element's object lock ([O]). */
    typedef struct
{
  GstObject *ctx;               /* [O] the pipeline's GstCudaContext (found
                                 * or made at NULL->READY, or set), NULL
                                 * without one */
  gint usable;                  /* [O] CUDA memory: 0 not asked yet, 1 yes,
                                 * -1 no */
  guint gen;                    /* [O] bumped when backend or device change */
  gchar *why;                   /* [O] why not */
  gboolean warned;              /* [O] a refusal was logged (at WARNING) */
} GstCudaOverlapContext;

/* With the object lock: the backend or the device changed; CUDA memory is
 * asked about anew. */
void gst_cuda_overlap_context_changed (GstCudaOverlapContext * context);
/* Finalize. */
void gst_cuda_overlap_context_clear (GstCudaOverlapContext * context);

/* Whether memory:CUDAMemory can be negotiated now; if not, *@why (free it)
 * says why.  Cached until backend or cuda-device-id change.  Any thread. */
gboolean gst_cuda_overlap_context_memory_usable (GstCudaOverlapFilter * self,
    gchar ** why);
/* CUDA memory is offered (by a peer's caps, a CAPS event, or a link being
 * checked) and refused for @why (NULL: the reason memory_usable gives): logged at
 * WARNING level once per element until backend or cuda-device-id change
 * (at DEBUG level meanwhile).  Any thread. */
void gst_cuda_overlap_context_refused (GstCudaOverlapFilter * self,
    const gchar * why);
/* GstElement::set_context. */
void gst_cuda_overlap_context_set (GstElement * element, GstContext * context);
/* A CONTEXT query answered with our context: TRUE. */
gboolean gst_cuda_overlap_context_query (GstCudaOverlapFilter * self,
    GstQuery * query);
/* NULL->READY: found, or the primary context wrapped and announced. */
void gst_cuda_overlap_context_ensure (GstCudaOverlapFilter * self);
/* READY->NULL. */
void gst_cuda_overlap_context_release (GstCudaOverlapFilter * self);
/* A reference to the context, or NULL; @handle its CUcontext, @device its
 * device (either may be NULL). */
GstObject *gst_cuda_overlap_context_get (GstCudaOverlapFilter * self,
    gpointer * handle, gint * device);

G_END_DECLS
#endif
