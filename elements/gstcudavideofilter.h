/* cudaoverlap: cudavideofilter.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_CUDA_VIDEO_FILTER_H__
#define __GST_CUDA_VIDEO_FILTER_H__

#include "gstcudabasefilter.h"

G_BEGIN_DECLS
#define GST_TYPE_CUDA_VIDEO_FILTER (gst_cuda_video_filter_get_type ())
G_DECLARE_FINAL_TYPE (GstCudaVideoFilter, gst_cuda_video_filter, GST,
    CUDA_VIDEO_FILTER, GstCudaBaseFilter);

GST_ELEMENT_REGISTER_DECLARE (cudavideofilter);

G_END_DECLS
#endif
