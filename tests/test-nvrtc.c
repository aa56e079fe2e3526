/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * kernel-source's compiler (engine/co-nvrtc.c) without a GPU: NVRTC
 * compiles, nothing is loaded on a device.  Each example of
 * examples/kernels compiles from its file (a cubin for a GPU NVRTC knows,
 * PTX for one it does not), a one-line kernel without extern "C" compiles
 * against the in-memory ABI header and <stdint.h>, a compile error gives
 * NVRTC's log, a missing NVRTC is named with its package, and the disk
 * cache: stored, hit, a corrupt or truncated entry rebuilt, compilers of
 * one source at once, an unwritable folder skipped, and a hit that loads no NVRTC: a process whose NVRTC
 * file is replaced by an unloadable one of the same path, size and time
 * (the cache key's stat) still gets the code, and has no libnvrtc mapped.
 *
 * NVRTC is the toolkit's (CO_CUDA_LIB64/libnvrtc.so.13), reached through
 * a link to its folder in a temporary folder, so that the test can swap
 * the folder; without it every test is skipped, saying so.
 *
 * Environment: CO_TEST_EXAMPLES_SRC, the source folder of the examples
 * (meson sets it).
 */
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <glib.h>
#include <glib/gstdio.h>

#include "co-engine.h"
#include "co-nvrtc.h"

#define SONAME "libnvrtc.so.13"

static gchar *tmp_root;         /* a temporary folder of this run */
static gchar *nvrtc_link;       /* tmp_root/nvrtc -> the toolkit's lib64 */
static gchar *nvrtc_path;       /* nvrtc_link/libnvrtc.so.13 */
static const gchar *libs[2];

static const gchar one_line[] =
    "#include <gst/cudaoverlap/cudaoverlap-kernel.h>\n"
    "__global__ void invert (GstCudaOverlapVideoLaunch a) { "
    "const GstCudaOverlapKernelPlane *p = &a.planes[a.plane]; "
    "int x = blockIdx.x * blockDim.x + threadIdx.x, "
    "y = blockIdx.y * blockDim.y + threadIdx.y; "
    "if (x < p->width * p->pixel_bytes && y < p->rows) "
    "((uint8_t *) p->dst)[(int64_t) y * p->dst_pitch + x] = "
    "255 - ((const uint8_t *) p->src)[(int64_t) y * p->src_pitch + x]; }\n";

static gboolean
have_nvrtc (void)
{
  if (!g_file_test (CO_CUDA_LIB64 "/" SONAME, G_FILE_TEST_EXISTS)) {
    g_test_skip ("no " CO_CUDA_LIB64 "/" SONAME ": NVRTC (CUDA 13) is "
        "needed to compile kernel-source");
    return FALSE;
  }
  return TRUE;
}

static void
request (CoNvrtcRequest * req, const gchar * source, const gchar * name,
    const gchar * cache_dir)
{
  memset (req, 0, sizeof (*req));
  req->source = source;
  req->origin = "kernel-source";
  req->name = name;
  req->cc_major = 9;
  req->cc_minor = 0;
  req->cache_dir = cache_dir;
  req->libraries = libs;
}

static gchar *
example_source (const gchar * k, gchar ** dir)
{
  const gchar *src = g_getenv ("CO_TEST_EXAMPLES_SRC");
  gchar *file, *text = NULL;

  g_assert_nonnull (src);
  file = g_strdup_printf ("%s/%s.cu", src, k);
  g_assert_true (g_file_get_contents (file, &text, NULL, NULL));
  g_free (file);
  *dir = g_strdup (src);
  return text;
}

static void
test_examples (void)
{
  const gchar *const ex[] = { "invert", "sobel", "colormatrix", "biquad" };
  guint i;

  if (!have_nvrtc ())
    return;
  for (i = 0; i < G_N_ELEMENTS (ex); i++) {
    CoNvrtcRequest req;
    CoNvrtcResult res;
    GError *err = NULL;
    gchar *dir, *src = example_source (ex[i], &dir);
    gchar *name = g_strdup_printf ("co_%s", ex[i]);
    const gchar *ptx;
    gboolean ok;
    gsize len;

    request (&req, src, name, NULL);
    req.include_dir = dir;
    ok = co_nvrtc_build (&req, &res, &err);
    g_assert_no_error (err);
    g_assert_true (ok);
    g_assert_true (res.cubin);
    g_assert_cmpstr (res.target, ==, "sm_90");
    g_assert_cmpstr (res.lowered_name, ==, name);
    g_assert_cmpint (res.cache, ==, CO_NVRTC_CACHE_NONE);
    g_assert_cmpfloat (res.compile_ms, >, 0);
    g_assert_cmpuint (g_bytes_get_size (res.image), >, 64);
    /* an ELF */
    g_assert_cmpmem (g_bytes_get_data (res.image, NULL), 4, "\177ELF", 4);
    co_nvrtc_result_clear (&res);

    /* a GPU NVRTC does not know: PTX for the newest it lists */
    req.cc_major = 99;
    ok = co_nvrtc_build (&req, &res, &err);
    g_assert_no_error (err);
    g_assert_true (ok);
    g_assert_false (res.cubin);
    g_assert_true (g_str_has_prefix (res.target, "compute_"));
    ptx = g_bytes_get_data (res.image, &len);
    g_assert_cmpint (ptx[len - 1], ==, 0);
    g_assert_nonnull (strstr (ptx, ".entry co_"));
    g_test_message ("%s: %s, %s", ex[i], res.target, res.library);
    co_nvrtc_result_clear (&res);
    g_free (src);
    g_free (dir);
    g_free (name);
  }
}

/* A kernel in a line: a C++ name, no extern "C", the in-memory headers
 * (included, or not: the ABI header is included before the source). */
static void
test_one_line (void)
{
  CoNvrtcRequest req;
  CoNvrtcResult res;
  GError *err = NULL;
  gboolean ok;

  if (!have_nvrtc ())
    return;
  request (&req, one_line, "invert", NULL);
  ok = co_nvrtc_build (&req, &res, &err);
  g_assert_no_error (err);
  g_assert_true (ok);
  g_assert_true (g_str_has_prefix (res.lowered_name, "_Z"));
  g_assert_nonnull (strstr (res.lowered_name, "invert"));
  co_nvrtc_result_clear (&res);
  /* the ABI header is there without an #include */
  request (&req, strchr (one_line, '\n') + 1, "invert", NULL);
  ok = co_nvrtc_build (&req, &res, &err);
  g_assert_no_error (err);
  g_assert_true (ok);
  co_nvrtc_result_clear (&res);
  /* a name the source does not define */
  request (&req, one_line, "nope", NULL);
  g_assert_false (co_nvrtc_build (&req, &res, &err));
  g_assert_nonnull (err);
  g_test_message ("%s", err->message);
  g_assert_nonnull (strstr (err->message, "nope"));
  g_clear_error (&err);
  co_nvrtc_result_clear (&res);
}

static void
test_compile_error (void)
{
  CoNvrtcRequest req;
  CoNvrtcResult res;
  GError *err = NULL;
  const gchar *src = "#include <gst/cudaoverlap/cudaoverlap-kernel.h>\n"
      "__global__ void k (GstCudaOverlapVideoLaunch a)\n"
      "{ int x = undeclared_thing; }\n";
  gchar *first;

  if (!have_nvrtc ())
    return;
  request (&req, src, "k", NULL);
  g_assert_false (co_nvrtc_build (&req, &res, &err));
  g_assert_error (err, CO_ENGINE_ERROR, CO_ENGINE_ERROR_KERNEL);
  g_test_message ("%s", err->message);
  /* the first line says what, the lines after it are NVRTC's log */
  first = g_strndup (err->message, strcspn (err->message, "\n"));
  g_assert_nonnull (strstr (first, "kernel-source does not compile"));
  g_assert_nonnull (strstr (first, "-arch=sm_90"));
  g_assert_nonnull (strstr (err->message, "\nkernel-source(3)"));
  g_assert_nonnull (strstr (err->message, "undeclared_thing"));
  g_free (first);
  g_clear_error (&err);
  co_nvrtc_result_clear (&res);
}

static void
test_missing_library (void)
{
  const gchar *none[] = { "/nonexistent/" SONAME, NULL };
  CoNvrtcRequest req;
  CoNvrtcResult res;
  GError *err = NULL;

  request (&req, one_line, "invert", NULL);
  req.libraries = none;
  g_assert_false (co_nvrtc_build (&req, &res, &err));
  g_assert_nonnull (err);
  g_test_message ("%s", err->message);
  g_assert_nonnull (strstr (err->message, SONAME));
  g_assert_nonnull (strstr (err->message, "/nonexistent/" SONAME));
  g_assert_nonnull (strstr (err->message, "cuda-nvrtc-13-0"));
  g_clear_error (&err);
}

static GBytes *
build_bytes (const CoNvrtcRequest * req, CoNvrtcCache expect)
{
  CoNvrtcResult res;
  GError *err = NULL;
  gboolean ok;
  GBytes *b;

  ok = co_nvrtc_build (req, &res, &err);
  g_assert_no_error (err);
  g_assert_true (ok);
  g_assert_cmpint (res.cache, ==, expect);
  if (expect == CO_NVRTC_CACHE_HIT) {
    g_assert_cmpfloat (res.compile_ms, ==, 0);
    g_assert_null (res.library);
  }
  b = g_bytes_ref (res.image);
  co_nvrtc_result_clear (&res);
  return b;
}

/* Rewrites byte @at of @path (from its end when negative), or cuts the
 * file to @cut bytes when @cut >= 0. */
static void
spoil (const gchar * path, gssize at, gssize cut)
{
  gchar *data;
  gsize len;

  g_assert_true (g_file_get_contents (path, &data, &len, NULL));
  if (cut >= 0)
    len = cut;
  else
    data[at < 0 ? (gssize) len + at : at] ^= 0x5a;
  g_assert_true (g_file_set_contents (path, data, len, NULL));
  g_free (data);
}

static void
test_cache (void)
{
  gchar *cache = g_build_filename (tmp_root, "cache", NULL), *path;
  gchar *inc = g_build_filename (tmp_root, "inc", NULL), *other, *path2;
  gchar *header = g_build_filename (inc, "k.h", NULL);
  CoNvrtcRequest req;
  GBytes *a, *b;

  if (!have_nvrtc ())
    return;
  request (&req, one_line, "invert", cache);
  path = co_nvrtc_cache_path (&req);
  g_assert_true (g_str_has_prefix (path, cache));
  a = build_bytes (&req, CO_NVRTC_CACHE_STORED);
  g_assert_true (g_file_test (path, G_FILE_TEST_IS_REGULAR));
  b = build_bytes (&req, CO_NVRTC_CACHE_HIT);
  g_assert_true (g_bytes_equal (a, b));
  g_bytes_unref (b);
  /* a changed byte of the code, of the head; a cut entry; an empty one */
  spoil (path, -10, -1);
  b = build_bytes (&req, CO_NVRTC_CACHE_STORED);
  g_assert_true (g_bytes_equal (a, b));
  g_bytes_unref (b);
  spoil (path, 3, -1);
  g_bytes_unref (build_bytes (&req, CO_NVRTC_CACHE_STORED));
  spoil (path, 0, 200);
  g_bytes_unref (build_bytes (&req, CO_NVRTC_CACHE_STORED));
  spoil (path, 0, 0);
  g_bytes_unref (build_bytes (&req, CO_NVRTC_CACHE_STORED));
  b = build_bytes (&req, CO_NVRTC_CACHE_HIT);
  g_assert_true (g_bytes_equal (a, b));
  g_bytes_unref (b);
  /* another compute capability, another include folder's file: other
   * entries */
  req.cc_minor = 9;
  other = co_nvrtc_cache_path (&req);
  g_assert_cmpstr (other, !=, path);
  g_free (other);
  req.cc_minor = 0;
  req.include_dir = inc;
  g_assert_cmpint (g_mkdir (inc, 0700), ==, 0);
  g_assert_true (g_file_set_contents (header, "#define A 1\n", -1, NULL));
  other = co_nvrtc_cache_path (&req);
  g_assert_cmpstr (other, !=, path);
  g_assert_true (g_file_set_contents (header, "#define A 22\n", -1, NULL));
  path2 = co_nvrtc_cache_path (&req);
  g_assert_cmpstr (other, !=, path2);
  g_free (other);
  g_free (path2);
  g_free (header);
  g_free (inc);
  g_bytes_unref (a);
  g_free (path);
  g_free (cache);
}

#define N_RACERS 4

typedef struct
{
  const CoNvrtcRequest *req;
  GBytes *image;
} Racer;

static gpointer
race (gpointer data)
{
  Racer *r = data;
  CoNvrtcResult res;

  if (co_nvrtc_build (r->req, &res, NULL))
    r->image = g_bytes_ref (res.image);
  co_nvrtc_result_clear (&res);
  return NULL;
}

/* Compilers of the same source at once (threads here, processes alike:
 * each writes a temporary file and renames it): each gets the code, the
 * entry that stays is whole, and the next build hits it. */
static void
test_cache_race (void)
{
  gchar *cache = g_build_filename (tmp_root, "cache-race", NULL);
  Racer r[N_RACERS];
  GThread *t[N_RACERS];
  CoNvrtcRequest req;
  GBytes *b;
  guint i;

  if (!have_nvrtc ())
    return;
  request (&req, one_line, "invert", cache);
  for (i = 0; i < N_RACERS; i++) {
    r[i].req = &req;
    r[i].image = NULL;
    t[i] = g_thread_new ("racer", race, &r[i]);
  }
  for (i = 0; i < N_RACERS; i++)
    g_thread_join (t[i]);
  b = build_bytes (&req, CO_NVRTC_CACHE_HIT);
  for (i = 0; i < N_RACERS; i++) {
    g_assert_nonnull (r[i].image);
    g_assert_true (g_bytes_equal (r[i].image, b));
    g_bytes_unref (r[i].image);
  }
  g_bytes_unref (b);
  g_free (cache);
}

static void
test_cache_unwritable (void)
{
  gchar *file = g_build_filename (tmp_root, "a-file", NULL);
  gchar *cache = g_build_filename (file, "cache", NULL);
  CoNvrtcRequest req;

  if (!have_nvrtc ())
    return;
  g_assert_true (g_file_set_contents (file, "x", 1, NULL));
  request (&req, one_line, "invert", cache);
  g_bytes_unref (build_bytes (&req, CO_NVRTC_CACHE_UNWRITABLE));
  g_bytes_unref (build_bytes (&req, CO_NVRTC_CACHE_UNWRITABLE));
  g_free (cache);
  g_free (file);
}

static gboolean
nvrtc_mapped (void)
{
  gchar *maps = NULL;
  gboolean mapped;

  g_assert_true (g_file_get_contents ("/proc/self/maps", &maps, NULL, NULL));
  mapped = strstr (maps, "libnvrtc") != NULL;
  g_free (maps);
  return mapped;
}

/* In a process of its own: NVRTC's folder is replaced by one whose
 * libnvrtc.so.13 has the same size and time but is no library. */
static void
hit_without_nvrtc (void)
{
  gchar *cache = g_build_filename (tmp_root, "cache-hit", NULL);
  CoNvrtcRequest req;
  CoNvrtcResult res;
  GError *err = NULL;
  gboolean ok;

  g_assert_false (nvrtc_mapped ());
  request (&req, one_line, "invert", cache);
  ok = co_nvrtc_build (&req, &res, &err);
  g_assert_no_error (err);
  g_assert_true (ok);
  g_assert_cmpint (res.cache, ==, CO_NVRTC_CACHE_HIT);
  g_assert_false (nvrtc_mapped ());
  co_nvrtc_result_clear (&res);
  /* the seam holds: without the entry, the stand-in does not compile */
  req.source = "__global__ void other (void) {}\n";
  req.name = "other";
  g_assert_false (co_nvrtc_build (&req, &res, &err));
  g_assert_nonnull (strstr (err->message, SONAME));
  g_clear_error (&err);
  g_free (cache);
}

static void
test_cache_hit_loads_no_nvrtc (void)
{
  gchar *cache = g_build_filename (tmp_root, "cache-hit", NULL);
  gchar *real = g_strdup (CO_CUDA_LIB64 "/" SONAME);
  CoNvrtcRequest req;
  struct timespec times[2];
  GStatBuf st;
  int fd;

  if (!have_nvrtc ())
    return;
  if (g_test_subprocess ()) {
    hit_without_nvrtc ();
    return;
  }
  request (&req, one_line, "invert", cache);
  g_bytes_unref (build_bytes (&req, CO_NVRTC_CACHE_STORED));
  /* the folder link becomes a folder with an unloadable stand-in */
  g_assert_cmpint (g_stat (real, &st), ==, 0);
  g_assert_cmpint (g_unlink (nvrtc_link), ==, 0);
  g_assert_cmpint (g_mkdir (nvrtc_link, 0700), ==, 0);
  fd = g_open (nvrtc_path, O_CREAT | O_WRONLY, 0644);
  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (ftruncate (fd, st.st_size), ==, 0);
  close (fd);
  /* the key's time to the nanosecond */
  times[0] = st.st_atim;
  times[1] = st.st_mtim;
  g_assert_cmpint (utimensat (AT_FDCWD, nvrtc_path, times, 0), ==, 0);
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_INHERIT_STDERR);
  /* the link back, for the tests after this one */
  g_unlink (nvrtc_path);
  g_rmdir (nvrtc_link);
  g_assert_cmpint (symlink (CO_CUDA_LIB64, nvrtc_link), ==, 0);
  g_test_trap_assert_passed ();
  g_free (real);
  g_free (cache);
}

static void
remove_tree (const gchar * path)
{
  GDir *d = g_dir_open (path, 0, NULL);
  const gchar *n;

  if (d && !g_file_test (path, G_FILE_TEST_IS_SYMLINK)) {
    while ((n = g_dir_read_name (d))) {
      gchar *p = g_build_filename (path, n, NULL);

      remove_tree (p);
      g_free (p);
    }
  }
  if (d)
    g_dir_close (d);
  g_remove (path);
}

int
main (int argc, char **argv)
{
  int ret;

  g_test_init (&argc, &argv, NULL);
  /* the subprocess of a test shares its parent's folder */
  tmp_root = g_strdup (g_getenv ("CO_TEST_NVRTC_TMP"));
  if (!tmp_root) {
    tmp_root = g_dir_make_tmp ("co-nvrtc-XXXXXX", NULL);
    g_assert_nonnull (tmp_root);
    g_setenv ("CO_TEST_NVRTC_TMP", tmp_root, TRUE);
  }
  nvrtc_link = g_build_filename (tmp_root, "nvrtc", NULL);
  nvrtc_path = g_build_filename (nvrtc_link, SONAME, NULL);
  if (!g_test_subprocess ())
    g_assert_cmpint (symlink (CO_CUDA_LIB64, nvrtc_link), ==, 0);
  libs[0] = nvrtc_path;
  g_test_add_func ("/nvrtc/examples", test_examples);
  g_test_add_func ("/nvrtc/one-line", test_one_line);
  g_test_add_func ("/nvrtc/compile-error", test_compile_error);
  g_test_add_func ("/nvrtc/missing-library", test_missing_library);
  g_test_add_func ("/nvrtc/cache", test_cache);
  g_test_add_func ("/nvrtc/cache-race", test_cache_race);
  g_test_add_func ("/nvrtc/cache-unwritable", test_cache_unwritable);
  g_test_add_func ("/nvrtc/cache-hit-loads-no-nvrtc",
      test_cache_hit_loads_no_nvrtc);
  ret = g_test_run ();
  if (!g_test_subprocess ())
    remove_tree (tmp_root);
  return ret;
}
