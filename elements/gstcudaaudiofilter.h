/* cudaoverlap: cudaaudiofilter.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_CUDA_AUDIO_FILTER_H__
#define __GST_CUDA_AUDIO_FILTER_H__

#include "gstcudabasefilter.h"

G_BEGIN_DECLS
#define GST_TYPE_CUDA_AUDIO_FILTER (gst_cuda_audio_filter_get_type ())
G_DECLARE_FINAL_TYPE (GstCudaAudioFilter, gst_cuda_audio_filter, GST,
    CUDA_AUDIO_FILTER, GstCudaBaseFilter);

GST_ELEMENT_REGISTER_DECLARE (cudaaudiofilter);

G_END_DECLS
#endif
