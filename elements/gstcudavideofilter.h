/* cudaoverlap: cudavideofilter.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_CUDA_OVERLAP_VIDEO_FILTER_H__
#define __GST_CUDA_OVERLAP_VIDEO_FILTER_H__

#include "gstcudaoverlapfilter.h"

G_BEGIN_DECLS
#define GST_TYPE_CUDA_OVERLAP_VIDEO_FILTER (gst_cuda_overlap_video_filter_get_type ())
G_DECLARE_FINAL_TYPE (GstCudaOverlapVideoFilter, gst_cuda_overlap_video_filter,
    GST, CUDA_OVERLAP_VIDEO_FILTER, GstCudaOverlapFilter);

GST_ELEMENT_REGISTER_DECLARE (cudavideofilter);

G_END_DECLS
#endif
