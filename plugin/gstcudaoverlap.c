/* cudaoverlap: plugin registration.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/gst.h>
#include "gstcudavideofilter.h"
#include "gstcudaaudiofilter.h"

static gboolean
plugin_init (GstPlugin * plugin)
{
  gboolean ret = FALSE;

  ret |= GST_ELEMENT_REGISTER (cudavideofilter, plugin);
  ret |= GST_ELEMENT_REGISTER (cudaaudiofilter, plugin);
  return ret;
}

GST_PLUGIN_DEFINE (GST_VERSION_MAJOR, GST_VERSION_MINOR, cudaoverlap,
    "Raw video and signal processing on CUDA with copies overlapped "
    "against compute", plugin_init, PACKAGE_VERSION, "LGPL",
    GST_PACKAGE_NAME, GST_PACKAGE_ORIGIN)
