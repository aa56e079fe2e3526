/* cudaoverlap: cudavideofilter's gamma tables, which travel with the frames.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_CUDA_VIDEO_GAMMA_H__
#define __GST_CUDA_VIDEO_GAMMA_H__

#include <glib.h>
#include "co-engine.h"
#include "co-video.h"

G_BEGIN_DECLS
/* One table per image of each engine slot: on the CUDA backend at the end
 * of the slot's input area, uploaded with the frame (CoFrame.pre) from a
 * page-locked host copy only when the slot's table holds another gamma;
 * on the CPU backend the host copy is read directly.  A gamma set while
 * frames are in flight (a GstController ramp sets one per buffer) needs
 * no drain and no rebuild: each frame carries the gamma read for it.
 *
 * What a device table holds is known only once the frame that wrote it
 * completed: gst_cuda_video_gamma_done() records it then, and forgets it
 * for a frame dropped before its copies ran.  Streaming thread (reserve,
 * ready, plan) and the push thread (done, for a slot only after its frame
 * completed and before the slot is acquired again). */
    typedef struct
{
  guint32 max;                  /* 255 or 65535 */
  guint batch;                  /* images per slot */
  gsize bytes;                  /* one table in a slot (aligned) */
  gsize dev_off;                /* the tables' place in a slot's input area */
  guint n;                      /* slots x batch */
  guint16 *host;                /* n tables (page-locked on CUDA) */
  gboolean pinned;
  gdouble *host_gamma;          /* what each host table holds; NAN: none */
  gdouble *dev_gamma;           /* what each device table holds; NAN: none */
  guint16 *cache;               /* the last table computed */
  gdouble cache_gamma;
} GstCudaVideoGamma;

#define GST_CUDA_VIDEO_GAMMA_NONE G_MAXUINT

void gst_cuda_video_gamma_init (GstCudaVideoGamma * g);
void gst_cuda_video_gamma_clear (GstCudaVideoGamma * g);
/* configure: tables of @max + 1 entries for @batch images at the end of
 * each slot's input area (cfg->dev_in_size grows). */
void gst_cuda_video_gamma_reserve (GstCudaVideoGamma * g, guint32 max,
    guint batch, CoEngineConfig * cfg);
/* engine_ready, no frame in flight: the host tables for @engine's slots. */
gboolean gst_cuda_video_gamma_ready (GstCudaVideoGamma * g, CoEngine * engine,
    gint device_id, GError ** error);
/* prepare, before co_video_plan(): image @image of @cf uses the table of
 * @gamma; sets @d's table pointers and queues the upload if needed.
 * Returns the table's index for gst_cuda_video_gamma_done(). */
guint gst_cuda_video_gamma_plan (GstCudaVideoGamma * g, CoEngine * engine,
    CoFrame * cf, guint image, gdouble gamma, CoVideoDesc * d);
/* finish of the image that used table @idx for @gamma. */
void gst_cuda_video_gamma_done (GstCudaVideoGamma * g, guint idx,
    gdouble gamma, gboolean completed);

G_END_DECLS
#endif
