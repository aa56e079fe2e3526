/* cudaoverlap-check: --memory: the element with CUDA memory on one side, an
 * independent profile of its copies from CUPTI's records.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "check.h"

/* ---- CUDA memory in or out: an independent profile of the copies --------- */

typedef struct
{
  guint kind, src, dst;
  guint count;
  guint64 bytes;
  GArray *iv;                   /* CoInterval */
  GHashTable *streams;
} CopyGroup;

static void
copy_group_free (gpointer p)
{
  CopyGroup *g = p;

  g_array_unref (g->iv);
  g_hash_table_unref (g->streams);
  g_free (g);
}

/* Of @g's streams, how many also ran kernels. */
static guint
streams_with_kernels (GHashTable * streams, GHashTable * kstreams)
{
  GHashTableIter it;
  gpointer k;
  guint n = 0;

  g_hash_table_iter_init (&it, streams);
  while (g_hash_table_iter_next (&it, &k, NULL))
    n += g_hash_table_contains (kstreams, k);
  return n;
}

/* Union of the copies of one kind (all memory kinds) and its intersection
 * with the union of the kernels (@kiv: normalized). */
static void
kind_overlap (const BenchCuptiDetail * d, guint kind, const CoInterval * kiv,
    guint nk, guint64 * busy, guint64 * ovl, guint * count)
{
  GArray *iv = g_array_new (FALSE, FALSE, sizeof (CoInterval));
  guint i;

  *count = 0;
  for (i = 0; i < d->copies->len; i++) {
    const BenchCuptiCopy *c = &g_array_index (d->copies, BenchCuptiCopy, i);
    CoInterval x = { c->start, c->end };

    if (c->copy_kind != kind)
      continue;
    g_array_append_val (iv, x);
    (*count)++;
  }
  *busy = co_intervals_union_measure ((CoInterval *) iv->data, iv->len);
  *ovl = co_intervals_intersection_measure_sorted ((CoInterval *) iv->data,
      iv->len, kiv, nk);
  g_array_unref (iv);
}

/* The table of CUPTI's copies by kind and source / destination memory,
 * each with its busy time and the part of it that overlaps kernels; then
 * who made which copy (by the pipeline) and the element's copies against
 * kernel time.  @mode: "cuda-in" or "cuda-out".  Returns a one-line
 * summary (free it) or NULL when CUPTI did not record. */
static gchar *
print_copy_profile (const RunResult * r, const gchar * mode)
{
  const BenchCuptiDetail *d = &r->detail;
  const guint main_kinds[3] = { bench_cupti_copy_kind_htod (),
    bench_cupti_copy_kind_dtoh (), bench_cupti_copy_kind_dtod ()
  };
  gboolean in = !strcmp (mode, "cuda-in");
  GPtrArray *groups = g_ptr_array_new_with_free_func (copy_group_free);
  GHashTable *kstreams = g_hash_table_new (g_direct_hash, g_direct_equal);
  GString *sum = g_string_new (NULL);
  CoInterval *kiv;
  guint nk, i, pass;
  guint64 kbusy, busy, ovl;
  guint count;

  if (!r->cupti_ok || !d->copies || !d->kernels) {
    printf ("\nCUPTI: %s\n", r->cupti_why ? r->cupti_why : "no records");
    g_ptr_array_unref (groups);
    g_hash_table_unref (kstreams);
    g_string_free (sum, TRUE);
    return NULL;
  }
  kiv = g_new (CoInterval, MAX (d->kernels->len, 1));
  for (i = 0; i < d->kernels->len; i++) {
    const BenchCuptiKernel *k = &g_array_index (d->kernels,
        BenchCuptiKernel, i);

    kiv[i].start = k->start;
    kiv[i].end = k->end;
    g_hash_table_add (kstreams, GUINT_TO_POINTER (k->stream + 1));
  }
  nk = co_intervals_normalize (kiv, d->kernels->len);
  kbusy = co_intervals_union_measure_sorted (kiv, nk);

  for (i = 0; i < d->copies->len; i++) {
    const BenchCuptiCopy *c = &g_array_index (d->copies, BenchCuptiCopy, i);
    CoInterval x = { c->start, c->end };
    CopyGroup *g = NULL;
    guint j;

    for (j = 0; j < groups->len && !g; j++) {
      CopyGroup *h = g_ptr_array_index (groups, j);

      if (h->kind == c->copy_kind && h->src == c->src_kind &&
          h->dst == c->dst_kind)
        g = h;
    }
    if (!g) {
      g = g_new0 (CopyGroup, 1);
      g->kind = c->copy_kind;
      g->src = c->src_kind;
      g->dst = c->dst_kind;
      g->iv = g_array_new (FALSE, FALSE, sizeof (CoInterval));
      g->streams = g_hash_table_new (g_direct_hash, g_direct_equal);
      g_ptr_array_add (groups, g);
    }
    g->count++;
    g->bytes += c->bytes;
    g_array_append_val (g->iv, x);
    g_hash_table_add (g->streams, GUINT_TO_POINTER (c->stream + 1));
  }

  printf ("\n| copy | source -> destination (CUPTI) | count | MB | MB per "
      "copy | busy ms (union) | of it during kernels, ms | share | streams "
      "(of them running kernels) |\n"
      "|---|---|--:|--:|--:|--:|--:|--:|--:|\n");
  /* HtoD, DtoH, DtoD always (a 0 row says there was none), then others */
  for (pass = 0; pass < 4; pass++) {
    gboolean any = FALSE;

    for (i = 0; i < groups->len; i++) {
      CopyGroup *g = g_ptr_array_index (groups, i);
      gboolean main_kind = g->kind == main_kinds[0] ||
          g->kind == main_kinds[1] || g->kind == main_kinds[2];

      if (pass < 3 ? g->kind != main_kinds[pass] : main_kind)
        continue;
      any = TRUE;
      busy = co_intervals_union_measure ((CoInterval *) g->iv->data,
          g->iv->len);
      ovl = co_intervals_intersection_measure_sorted ((CoInterval *)
          g->iv->data, g->iv->len, kiv, nk);
      printf ("| %s | %s -> %s | %u | %.1f | %.3f | %.3f | %.3f | %.3f | %u "
          "(%u) |\n", bench_cupti_copy_kind_name (g->kind),
          bench_cupti_memory_kind_name (g->src),
          bench_cupti_memory_kind_name (g->dst), g->count, g->bytes / 1e6,
          g->bytes / 1e6 / g->count, busy / 1e6, ovl / 1e6,
          busy ? (gdouble) ovl / busy : 0, g_hash_table_size (g->streams),
          streams_with_kernels (g->streams, kstreams));
      g_string_append_printf (sum, "%s%s %s>%s x%u", sum->len ? ", " : "",
          bench_cupti_copy_kind_name (g->kind),
          bench_cupti_memory_kind_name (g->src),
          bench_cupti_memory_kind_name (g->dst), g->count);
    }
    if (!any && pass < 3)
      printf ("| %s | none | 0 | 0 | - | 0 | 0 | - | 0 |\n",
          bench_cupti_copy_kind_name (main_kinds[pass]));
  }
  printf ("| kernels | - | %u | - | - | %.3f | - | - | %u |\n",
      d->kernels->len, kbusy / 1e6, g_hash_table_size (kstreams));

  {
    guint m;
    gchar *names = kernel_names (d, NULL, &m);

    printf ("\nCUPTI: every memcpy and kernel record of the process from "
        "just before the first push to EOS (%s's copies as well as the "
        "element's); busy = union of the intervals, \"during kernels\" = its "
        "intersection with the union of all kernel intervals; streams: "
        "distinct CUDA streams of the row's copies, in brackets those that "
        "also ran kernels (the element's streams). Kernels by name: %s\n",
        in ? "cudaupload" : "cudadownload", names);
    g_free (names);
  }
  /* by the pipeline: cudaupload makes only HtoD copies, cudadownload only
   * DtoH; the element the others */
  for (pass = 0; pass < 2; pass++) {
    guint kind = main_kinds[pass];
    gboolean element = in ? pass == 1 : pass == 0;

    kind_overlap (d, kind, kiv, nk, &busy, &ovl, &count);
    printf ("- %s (%s %s, by the pipeline): %u copies, %.3f ms busy, %.3f ms "
        "of it during kernels = %.1f%%\n", bench_cupti_copy_kind_name (kind),
        element ? "the element's" : in ? "cudaupload's" : "cudadownload's",
        pass == 0 ? "uploads" : "downloads", count, busy / 1e6, ovl / 1e6,
        busy ? 100.0 * ovl / busy : 0);
    if (element)
      g_string_append_printf (sum, "; element %s during kernels %.1f%% of "
          "%.1f ms", pass == 0 ? "H2D" : "D2H", busy ? 100.0 * ovl / busy : 0,
          busy / 1e6);
  }
  printf ("- the element's own statistics (events): h2d %.3f ms, kernel "
      "%.3f ms, d2h %.3f ms, overlap-efficiency %.4f\n",
      bench_stat_u64 (r->whole, "h2d-ns") / 1e6,
      bench_stat_u64 (r->whole, "kernel-ns") / 1e6,
      bench_stat_u64 (r->whole, "d2h-ns") / 1e6,
      stat_dbl (r->whole, "overlap-efficiency"));
  g_free (kiv);
  g_ptr_array_unref (groups);
  g_hash_table_unref (kstreams);
  return g_string_free (sum, FALSE);
}

/* --memory cuda-in[,cuda-out]: the element with CUDA memory on one side,
 * nvcodec's cudaupload / cudadownload on the other, each timed run under
 * CUPTI; what CUPTI saw of the copies, and the first outputs against the
 * CPU backend. */
void
run_memory (void)
{
  gchar **modes = g_strsplit (opt_memory, ",", -1), *why = NULL, *op;
  guint m;

  op = video_op_desc ();
  printf ("\n## CUDA memory (--memory %s): cudavideofilter %s, %dx%d RGBA, "
      "%d frames per timed run, mode overlap %d x %d, backend %s\n\n",
      opt_memory, op, opt_width, opt_height, opt_frames, opt_streams,
      opt_chunks, opt_backend);
  g_free (op);
  if (!strcmp (opt_backend, "cpu"))
    why = g_strdup ("--backend cpu: CUDA memory needs the CUDA backend");
  else if (!have_cuda)
    why = g_strdup_printf ("no CUDA device (%s)", cuda_why);
  else if (!bench_have_feature ("cudaupload") || !bench_have_feature
      ("cudadownload"))
    why = g_strdup ("nvcodec's cudaupload / cudadownload are not in the "
        "registry (gst-plugins-bad's nvcodec plugin)");
  if (why) {
    printf ("skipped: %s\n", why);
    sum_add (V_NA, "CUDA memory: CUPTI profile of the copies", "-",
        "skipped: %s", why);
    g_free (why);
    g_strfreev (modes);
    return;
  }
  video_setup ();
  printf ("Per run: a warm-up pipeline of %d frames, then the timed one "
      "under CUPTI. cuda-in: `appsrc ! cudaupload ! "
      "video/x-raw(memory:CUDAMemory) ! cudavideofilter ! video/x-raw ! "
      "appsink`, fed from malloc()ed (pageable) frames, then from "
      "cudaHostAlloc()ed (page-locked) ones; cuda-out: `appsrc ! "
      "cudavideofilter ! video/x-raw(memory:CUDAMemory) ! cudadownload ! "
      "video/x-raw ! appsink`, fed from the element's pool as the video "
      "runs. Both: the element's properties as for --video (mode overlap), "
      "the first %d outputs against the CPU backend.\n",
      VIDEO_WARMUP, VIDEO_KEEP);

  for (m = 0; modes[m]; m++) {
    gboolean in = !strcmp (modes[m], "cuda-in");
    guint k;

    for (k = 0; k < (in ? 2u : 1u); k++) {
      RunSpec w = { NULL, FALSE, FALSE, opt_backend, opt_streams, opt_chunks,
        VIDEO_WARMUP, 0, FALSE, 0, NULL, in ? "cuda-in" : "cuda-out", k == 1
      };
      RunSpec t = w;
      RunResult warm, res;
      gchar label[80], wn[96], tn[96], *sum;

      if (in)
        g_snprintf (label, sizeof (label), "memory cuda-in (%s input)",
            k ? "pinned" : "pageable");
      else
        g_snprintf (label, sizeof (label), "memory cuda-out");
      printf ("\n### %s\n\n", label);
      if (k == 1 && !pinned_ring_init (&why)) {
        printf ("skipped: %s\n", why);
        sum_add (V_NA, label, "-", "skipped: %s", why);
        g_clear_pointer (&why, g_free);
        continue;
      }
      g_snprintf (wn, sizeof (wn), "%s warm-up", label);
      g_snprintf (tn, sizeof (tn), "%s timed", label);
      w.name = wn;
      t.name = tn;
      t.n = opt_frames;
      t.keep = VIDEO_KEEP;
      t.cupti = TRUE;
      if (!run_pipeline (&w, &warm))
        failed_check = TRUE;
      run_result_clear (&warm);
      run_pipeline (&t, &res);
      if (!res.ok) {
        printf ("RUN FAILED: %s\n", res.error);
        failed_check = TRUE;
        sum_add (V_FAIL, label, "-", "run failed: %s", res.error);
        run_result_clear (&res);
        continue;
      }
      print_run_line (&res);
      printf ("- wall: %u frames (2..%u) in %.3f s = %.1f frames/s; all %u "
          "from the first push: %.1f frames/s\n", opt_frames - 1, opt_frames,
          res.wall_s, res.rate, opt_frames, res.rate_all);
      sum = print_copy_profile (&res, t.memory);
      if (sum)
        sum_add (V_INFO, label, "-", "%.1f fps; %s", res.rate, sum);
      else
        sum_add (V_NA, label, "-", "%s", res.cupti_why ? res.cupti_why :
            "CUPTI: no records");
      g_free (sum);
      video_check_outputs (&res, label);
      run_result_clear (&res);
    }
  }
  g_strfreev (modes);
}
