/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * co-test-cudamem: what the memory:CUDAMemory suites share
 * (test-cudamemory: cudavideofilter, test-cudamemory-audio:
 * cudaaudiofilter): pipelines run to EOS with what they produced, the
 * element's own negotiation errors, a downstream pad of chosen caps, the
 * CUDA context an element uses, and what a run's passport and statistics
 * must say of its memory.
 */
#ifndef __CO_TEST_CUDAMEM_H__
#define __CO_TEST_CUDAMEM_H__

#include <gst/check/gstcheck.h>

G_BEGIN_DECLS
#define CUDA_FEATURE "memory:CUDAMemory"
    GstCaps * co_test_caps_printf (const gchar * format, ...)
G_GNUC_PRINTF (1, 2);
/* Whether a structure of @caps has memory:CUDAMemory. */
     gboolean co_test_caps_have_cuda (GstCaps * caps);
/* Whether this machine has a CUDA device at all (backend=auto then may
 * negotiate CUDA memory). */
     gboolean co_test_machine_has_gpu (void);
/* The backends under test without a GPU for CUDA memory, case @i: cpu
 * always (0), auto (1) where the machine has no device; FALSE: skip. */
     gboolean co_test_no_gpu_backend (gint i, const gchar ** backend);
/* "@src ! @element name=f backend=@backend ! fakesink" at READY: caps
 * queries on both of f's pads show no CUDA memory, and a filter of
 * @media in CUDA memory only finds nothing. */
     void co_test_check_caps_no_cuda (const gchar * src,
    const gchar * element, const gchar * backend, const gchar * media);

     typedef struct
     {
       GstMessage *error;       /* the first ERROR, or NULL after EOS */
       GList *out;              /* the appsink's samples' buffers, in order */
       GstStructure *passport;  /* the element's, at the end of the run */
       GstStructure *stats;     /* its last statistics (the whole run) */
     } RunResult;

     void co_test_run_result_clear (RunResult * r);
/* Runs @desc (an appsrc named "src", an appsink named "sink" unless
 * @no_sink) with @bufs pushed into the appsrc (taken), to EOS or an error
 * (then stopped); the passport and statistics of the element named "f".
 * @late_caps: set on the capsfilter named "cf" once the pipeline is linked
 * (a link checks caps, so CUDA memory forced in the description itself
 * fails to link without a GPU). */
     void co_test_run_pipeline (const gchar * desc, const gchar * late_caps,
    GList * bufs, gboolean no_sink, RunResult * res);
/* The error came from the element named "f", a negotiation error whose
 * message holds @needle. */
     void co_test_assert_our_error (RunResult * r, const gchar * desc,
    const gchar * needle);
/* A run of test_pad_combinations (no GPU for CUDA memory): system memory
 * on both sides gives @n buffers and a passport of system memory; CUDA
 * memory on either side fails with our error, naming that side. */
     void co_test_check_pad_combination (RunResult * r, const gchar * desc,
    gboolean in_cuda, gboolean out_cuda, guint n);
/* "@src ! @element name=f backend=@backend" with @media in CUDA memory
 * forced before it (or, @after, after it) in the launch line: the link
 * itself is refused, naming the caps. */
     void co_test_check_forced_at_link (const gchar * src, const gchar * media,
    const gchar * element, const gchar * backend, gboolean after);

/* With a fake GPU (-Dfault-injection builds; FALSE without one, and the
 * caller skips): a new @element (co_test_make_element) between a source
 * pad and a sink pad that takes @takes, PLAYING; *@offered: what the
 * element offers upstream (its sink pad's answer to a CAPS query), *@got:
 * the caps it pushed downstream after the CAPS event @in (NULL: none). */
     gboolean co_test_fake_negotiate (const gchar * element, const gchar * in,
    const gchar * takes, GstCaps ** offered, GstCaps ** got);

/* Test builds (-Dfault-injection; FALSE without, and the caller skips):
 * with @host, CUDA memory is negotiable on the CPU backend and its pads
 * carry system memory (gst_cuda_overlap_cuda_fake_host), so that the
 * device-memory paths run without a GPU. */
     gboolean co_test_set_host_cuda_memory (gboolean host);

/* The GstCudaContext an element uses: what it answers to a CONTEXT query
 * on its sink pad (a new reference, or NULL). */
     GObject *co_test_element_cuda_context (GstElement * e);

/* A run's passport says which memory each pad had; a CUDA side moved no
 * bytes over PCIe; every frame of a CUDA input was read on the device. */
     void co_test_check_memory_facts (RunResult * r, gboolean in_cuda,
    gboolean out_cuda, const gchar * what);

G_END_DECLS
#endif
