/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Unit tests for co-tune, the automatic settings: a table of workloads on
 * a model GPU (the inputs below are the test's, not measurements), explicit
 * values kept, and every choice in range over random inputs.
 */

#include <glib.h>
#include <string.h>

#include "co-tune.h"

#define MIB (G_GUINT64_CONSTANT (1) << 20)
#define US 1000
#define MS 1000000

/* 4K RGBA, 1080p RGBA, 4K NV12, 640x480 GRAY8 */
#define B_4K (3840 * 2160 * 4)
#define B_1080 (1920 * 1080 * 4)
#define B_NV12 (3840 * 2160 * 3 / 2)
#define B_GRAY8 (640 * 480)

typedef struct
{
  const gchar *name;
  CoTuneInput in;
  guint streams, chunks, batch;
  gboolean spin;
  const gchar *says;            /* a word of the reason */
} Case;

/* a model GPU with 3 copy engines; 60 frames/s */
#define GPU3(b, r) .media = CO_TUNE_VIDEO, .copy_engines = 3, \
  .frame_bytes = (b), .rows = (r), .can_batch = TRUE, \
  .frame_interval_ns = 16666667
/* a model copy-bound light kernel, 4K: H2D / kernel / D2H 0.63 / 0.05 /
 * 0.61 ms */
#define LIGHT_4K { .frames = 30, .h2d_ns = 630 * US, .kernel_ns = 50 * US, \
  .d2h_ns = 610 * US, .busy_ns = 700 * US, .gpu_latency_ns = 1240 * US, \
  .host_cpu_ns = 120 * US, .chain_wall_ns = 700 * US, .gap_ns = 10 * US }
/* 640x480 GRAY8 at batch 1: the upstream thread is the bound */
#define GRAY8_HOST { .frames = 30, .h2d_ns = 7 * US, .kernel_ns = 3 * US, \
  .d2h_ns = 7 * US, .busy_ns = 15 * US, .gpu_latency_ns = 20 * US, \
  .host_cpu_ns = 25 * US, .chain_wall_ns = 27 * US, .gap_ns = 8 * US }

static const Case cases[] = {
  {"4K RGBA non-live, before measuring", {GPU3 (B_4K, 2160)}, 4, 1, 1, FALSE,
      "cheap"},
  {"4K RGBA non-live, measured", {GPU3 (B_4K, 2160),.measured = LIGHT_4K},
      4, 1, 1, FALSE, "measured"},
  {"4K RGBA live", {GPU3 (B_4K, 2160),.live = TRUE}, 16, 8, 1, TRUE,
      "spin (live"},
  {"4K RGBA live, measured", {GPU3 (B_4K, 2160),.live = TRUE,
          .measured = LIGHT_4K}, 16, 8, 1, TRUE, "a band per 4 MiB"},
  {"4K RGBA live, spinning budget taken", {GPU3 (B_4K, 2160),.live = TRUE,
          .spinners = CO_TUNE_MAX_SPINNERS}, 16, 8, 1, FALSE, "budget"},
  {"4K RGBA live, a frame's device time over half the interval",
        {GPU3 (B_4K, 2160),.live = TRUE,.measured = {.frames = 30,
              .gpu_latency_ns = 9 * MS}}, 16, 8, 1, FALSE, "half"},
  {"4K RGBA live, wait-mode set", {GPU3 (B_4K, 2160),.live = TRUE,
          .user_wait = TRUE}, 16, 8, 1, FALSE, "chunks 8"},
  {"4K NV12 live", {GPU3 (B_NV12, 1080),.live = TRUE}, 6, 3, 1, TRUE,
      "at most 8"},
  /* CUDA memory on both pads: no copies, whatever the kernel measured */
  {"4K RGBA non-live, device memory in and out, measured",
        {GPU3 (B_4K, 2160),.no_copies = TRUE,.measured = {.frames = 30,
                .kernel_ns = 55 * US,.busy_ns = 55 * US,.host_cpu_ns =
                    40 * US,.chain_wall_ns = 60 * US}}, 4, 1, 1, FALSE,
      "no copies"},
  {"4K RGBA live, device memory in and out", {GPU3 (B_4K, 2160),.live =
              TRUE,.no_copies = TRUE}, 4, 1, 1, TRUE, "no copies"},
  {"1080p RGBA non-live", {GPU3 (B_1080, 1080)}, 4, 1, 1, FALSE, "copy"},
  {"1080p RGBA live", {GPU3 (B_1080, 1080),.live = TRUE}, 4, 2, 1, TRUE,
      "live"},
  {"4K NV12 non-live, host-bound but large", {GPU3 (B_NV12, 2160),
          .measured = GRAY8_HOST}, 4, 1, 1, FALSE, "4 MiB or more"},
  {"640x480 GRAY8 non-live, before measuring", {GPU3 (B_GRAY8, 480)}, 4, 1,
      1, FALSE, "not measured"},
  {"640x480 GRAY8 non-live, host-bound", {GPU3 (B_GRAY8, 480),
          .measured = GRAY8_HOST}, 4, 1, 8, FALSE, "host-bound"},
  {"640x480 GRAY8 non-live, device-bound", {GPU3 (B_GRAY8, 480),
          .measured = {.frames = 30,.busy_ns = 90 * US,.host_cpu_ns =
                    20 * US,.chain_wall_ns = 100 * US}}, 4, 1, 1, FALSE,
      "device is the bound"},
  {"640x480 GRAY8 non-live, chain waits for a slot, device idle a third",
        {GPU3 (B_GRAY8, 480),.measured = {.frames = 30,.busy_ns = 27 * US,
                .host_cpu_ns = 18 * US,.chain_wall_ns = 41 * US}}, 4, 1, 8,
      FALSE, "host-bound"},
  {"640x480 GRAY8 non-live, short operations, chain never waits",
        {GPU3 (B_GRAY8, 480),.measured = {.frames = 30,.busy_ns = 45 * US,
                .host_cpu_ns = 30 * US,.chain_wall_ns = 32 * US}}, 4, 1, 8,
      FALSE, "host-bound"},
  {"640x480 GRAY8 non-live, paced upstream", {GPU3 (B_GRAY8, 480),
              .measured = {.frames = 30,.busy_ns = 15 * US,.host_cpu_ns =
                    25 * US,.chain_wall_ns = 27 * US,.gap_ns = 500 * US,
              .gap_cpu_ns = 5 * US}}, 4, 1, 1, FALSE,
      "upstream is the bound"},
  {"640x480 GRAY8 non-live, upstream working in the same thread",
        {GPU3 (B_GRAY8, 480),.measured = {.frames = 30,.busy_ns = 15 * US,
                .host_cpu_ns = 25 * US,.chain_wall_ns = 27 * US,.gap_ns =
                    60 * US,.gap_cpu_ns = 55 * US}}, 4, 1, 8, FALSE,
      "host-bound"},
  /* upstream cycles through 8 buffers of its own: batch 8 x 6 frames in
   * flight hold them whole, batch 1 x 6 (and the one being filled) not */
  {"640x480 GRAY8 non-live, host-bound, a ring of 8 upstream",
        {GPU3 (B_GRAY8, 480),.measured = {.frames = 30,.busy_ns = 15 * US,
              .host_cpu_ns = 25 * US,.chain_wall_ns = 27 * US,.gap_ns =
                    8 * US,.ring = 8}}, 4, 1, 8, TRUE, "ring of 8"},
  {"640x480 GRAY8 non-live, a ring of 8, spinning budget taken",
        {GPU3 (B_GRAY8, 480),.spinners = CO_TUNE_MAX_SPINNERS,.measured = {
                    .frames = 30,.busy_ns = 15 * US,.host_cpu_ns = 25 * US,
                .chain_wall_ns = 27 * US,.gap_ns = 8 * US,.ring = 8}}, 4, 1,
      8, FALSE, "budget"},
  {"640x480 GRAY8 non-live, a ring of 8, wait-mode set",
        {GPU3 (B_GRAY8, 480),.user_wait = TRUE,.measured = {.frames = 30,
                .busy_ns = 15 * US,.host_cpu_ns = 25 * US,.chain_wall_ns =
                    27 * US,.gap_ns = 8 * US,.ring = 8}}, 4, 1, 8, FALSE,
      "host-bound"},
  {"640x480 GRAY8 non-live, a ring of 8, batch 1 set",
        {GPU3 (B_GRAY8, 480),.user_batch = 1,.measured = {.frames = 30,
                .busy_ns = 15 * US,.host_cpu_ns = 25 * US,.chain_wall_ns =
                    27 * US,.gap_ns = 8 * US,.ring = 8}}, 4, 1, 1, FALSE,
      "not live"},
  {"640x480 GRAY8 non-live, a ring of 8, batch 1 set, 7 in flight set",
        {GPU3 (B_GRAY8, 480),.user_batch = 1,.user_in_flight = 7,
              .measured = {.frames = 30,.busy_ns = 15 * US,.host_cpu_ns =
                    25 * US,.chain_wall_ns = 27 * US,.gap_ns = 8 * US,
              .ring = 8}}, 4, 1, 1, TRUE, "ring of 8"},
  {"640x480 GRAY8 non-live, host-bound, 16 recurring buffers upstream",
        {GPU3 (B_GRAY8, 480),.measured = {.frames = 30,.busy_ns = 15 * US,
              .host_cpu_ns = 25 * US,.chain_wall_ns = 27 * US,.gap_ns =
                    8 * US,.ring = 16}}, 4, 1, 8, FALSE, "not live"},
  {"4K RGBA non-live, a ring of 8 upstream", {GPU3 (B_4K, 2160),
              .measured = {.frames = 30,.h2d_ns = 630 * US,.kernel_ns = 50 * US,
              .d2h_ns = 610 * US,.busy_ns = 700 * US,.gpu_latency_ns =
                    1240 * US,.host_cpu_ns = 120 * US,.chain_wall_ns =
                    700 * US,.gap_ns = 10 * US,.ring = 8}}, 4, 1, 1, FALSE,
      "not live"},
  {"CPU backend, small frames, a ring of 8", {GPU3 (B_GRAY8, 480),
              .cpu_backend = TRUE,.host_cores = 2,.measured = {.frames = 30,
              .busy_ns = 15 * US,.host_cpu_ns = 25 * US,.chain_wall_ns =
                    27 * US,.gap_ns = 8 * US,.ring = 8}}, 2, 2, 8, FALSE,
      "CPU backend"},
  {"1.5 MiB frames, host-bound", {GPU3 (3 * MIB / 2, 512),
          .measured = GRAY8_HOST}, 4, 1, 4, FALSE, "batch 4"},
  {"3 MiB frames, host-bound", {GPU3 (3 * MIB, 768),.measured = GRAY8_HOST},
      4, 1, 2, FALSE, "batch 2"},
  {"640x480 GRAY8 live", {GPU3 (B_GRAY8, 480),.live = TRUE,
          .measured = GRAY8_HOST}, 4, 1, 1, TRUE, "batch 1 (live)"},
  {"4K RGBA box-blur r=16, kernel above the copies",
        {GPU3 (B_4K, 2160),.measured = {.frames = 30,.h2d_ns = 630 * US,
                .kernel_ns = 900 * US,.d2h_ns = 610 * US,.busy_ns =
                    950 * US,.host_cpu_ns = 120 * US}}, 4, 4, 1, FALSE,
      "at least"},
  {"unknown copy engines", {.media = CO_TUNE_VIDEO,.frame_bytes = B_4K,
          .can_batch = TRUE}, 3, 1, 1, FALSE, "assumed"},
  {"CPU backend, 4K non-live", {GPU3 (B_4K, 2160),.cpu_backend = TRUE,
          .host_cores = 2}, 2, 2, 1, FALSE, "a band per worker"},
  {"CPU backend, 64x64 live", {GPU3 (64 * 64 * 4, 64),.cpu_backend = TRUE,
          .host_cores = 16,.live = TRUE}, 8, 1, 1, FALSE, "small frames"},
  {"CPU backend, small frames host-bound", {GPU3 (B_GRAY8, 480),
          .cpu_backend = TRUE,.host_cores = 2,.measured = GRAY8_HOST}, 2,
      2, 8, FALSE, "host-bound"},
  {"audio, 10 ms buffers measured", {.media = CO_TUNE_AUDIO,
              .copy_engines = 3,.frame_bytes = MIB,.measured = {.frames = 30,
                    .bytes = 3840,.host_cpu_ns = 30 * US,.busy_ns = 10 * US,
              .chain_wall_ns = 40 * US}}, 4, 1, 1, FALSE, "3840 bytes"},
  {"audio FIR 479 taps, 8 MiB buffers", {.media = CO_TUNE_AUDIO,
          .copy_engines = 3,.frame_bytes = 8 * MIB,.cost =
              CO_TUNE_COST_HEAVY}, 4, 2, 1, FALSE, "expected about"},
  {"audio live", {.media = CO_TUNE_AUDIO,.copy_engines = 3,.live = TRUE,
          .frame_bytes = 16 * MIB}, 8, 4, 1, FALSE, "blocking (audio)"},
  {"explicit chunks, live", {GPU3 (B_4K, 2160),.live = TRUE,
          .user_chunks = 8}, 16, 8, 1, TRUE, "(set)"},
  {"explicit streams and batch", {GPU3 (B_GRAY8, 480),.user_streams = 1,
          .user_batch = 3}, 1, 1, 3, FALSE, "batch 3 (set)"},
  {"fewer rows than bands", {GPU3 (B_4K, 2),.live = TRUE}, 4, 2, 1, TRUE,
      "chunks 2"},
  /* engines sharing the device's 8 hardware queues */
  {"1080p RGBA non-live, one other engine on the device",
      {GPU3 (B_1080, 1080),.sharers = 1}, 4, 1, 1, FALSE, "copy engines"},
  {"1080p RGBA non-live, 3 engines on the device", {GPU3 (B_1080, 1080),
          .sharers = 2}, 2, 1, 1, FALSE, "3 engines share"},
  {"1080p RGBA non-live, 8 engines on the device", {GPU3 (B_1080, 1080),
          .sharers = 7}, 2, 1, 1, FALSE, "8 hardware queues"},
  {"4K RGBA box-blur r=16, 8 engines: a stream per band still",
        {GPU3 (B_4K, 2160),.sharers = 7,.measured = {.frames = 30,.h2d_ns =
                    630 * US,.kernel_ns = 900 * US,.d2h_ns = 610 * US,.busy_ns =
                    950 * US,.host_cpu_ns = 120 * US}}, 4, 4, 1, FALSE,
      "kernel at least"},
  {"4K RGBA live, 8 engines: latency first", {GPU3 (B_4K, 2160),.live =
              TRUE,.sharers = 7}, 16, 8, 1, TRUE, "two per band"},
  {"CPU backend, 16 cores, 4 engines", {GPU3 (B_4K, 2160),.cpu_backend =
              TRUE,.host_cores = 16,.sharers = 3}, 4, 4, 1, FALSE,
      "16 cores shared by 4"},
  {"CPU backend, 2 cores, 2 engines", {GPU3 (B_4K, 2160),.cpu_backend =
              TRUE,.host_cores = 2,.sharers = 1}, 1, 1, 1, FALSE, "shared"},
};

static void
test_table (void)
{
  guint i;

  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    const Case *c = &cases[i];
    CoTuneChoice ch;

    co_tune_decide (&c->in, &ch);
    g_test_message ("%s: %u x %u, batch %u, %s: %s", c->name, ch.streams,
        ch.chunks, ch.batch, ch.spin ? "spin" : "blocking", ch.reason);
    if (ch.streams != c->streams || ch.chunks != c->chunks ||
        ch.batch != c->batch || ch.spin != c->spin)
      g_error ("%s: got %u x %u batch %u %s, want %u x %u batch %u %s (%s)",
          c->name, ch.streams, ch.chunks, ch.batch, ch.spin ? "spin" :
          "blocking", c->streams, c->chunks, c->batch, c->spin ? "spin" :
          "blocking", ch.reason);
    if (!strstr (ch.reason, c->says))
      g_error ("%s: the reason \"%s\" does not say \"%s\"", c->name,
          ch.reason, c->says);
  }
}

/* The same input gives the same choice; a measured heavy kernel changes
 * it (what the element re-decides on). */
static void
test_same (void)
{
  CoTuneInput in = { GPU3 (B_4K, 2160) };
  CoTuneChoice a, b;

  co_tune_decide (&in, &a);
  co_tune_decide (&in, &b);
  g_assert_true (co_tune_same (&a, &b));
  g_assert_cmpstr (a.reason, ==, b.reason);
  in.measured = (CoTuneMeasure) LIGHT_4K;
  co_tune_decide (&in, &b);
  g_assert_true (co_tune_same (&a, &b));
  in.measured.kernel_ns = 2 * MS;
  co_tune_decide (&in, &b);
  g_assert_false (co_tune_same (&a, &b));
  g_assert_cmpuint (b.chunks, ==, 4);
}

/* The submit thread: chosen for staged input from a non-live source once
 * measured (at least half the measured frames staged), never when live or
 * when the property was set; a choice that differs only in it is not the
 * same (the element rebuilds for it). */
static void
test_submit_thread (void)
{
  CoTuneInput in = { GPU3 (B_1080, 1080),.measured = LIGHT_4K };
  CoTuneChoice a, b;

  co_tune_decide (&in, &a);
  g_assert_false (a.submit_thread);
  g_assert_null (strstr (a.reason, "submit thread"));
  in.measured.staged = 15;
  co_tune_decide (&in, &b);
  g_assert_true (b.submit_thread);
  g_assert_nonnull (strstr (b.reason, "submit thread (staged input"));
  g_assert_nonnull (strstr (b.reason, "(15 staged)"));
  g_assert_false (co_tune_same (&a, &b));
  g_assert_cmpuint (a.streams, ==, b.streams);
  g_assert_cmpuint (a.chunks, ==, b.chunks);
  g_assert_cmpuint (a.batch, ==, b.batch);
  in.measured.staged = 14;
  co_tune_decide (&in, &b);
  g_assert_false (b.submit_thread);
  in.measured.staged = 30;
  in.user_submit_thread = TRUE;
  co_tune_decide (&in, &b);
  g_assert_false (b.submit_thread);
  g_assert_null (strstr (b.reason, "submit thread"));
  in.user_submit_thread = FALSE;
  in.live = TRUE;
  co_tune_decide (&in, &b);
  g_assert_false (b.submit_thread);
  g_assert_nonnull (strstr (b.reason, "no submit thread (live"));
  in.live = FALSE;
  in.measured.frames = 0;
  co_tune_decide (&in, &b);
  g_assert_false (b.submit_thread);
}

/* Every choice is in the engine's range, and explicit values stay. */
static void
test_random (void)
{
  GRand *r = g_rand_new_with_seed (0x7a11);
  guint i;

  for (i = 0; i < 20000; i++) {
    CoTuneInput in = { 0 };
    CoTuneChoice ch;

    in.media = g_rand_boolean (r) ? CO_TUNE_VIDEO : CO_TUNE_AUDIO;
    in.cpu_backend = g_rand_int_range (r, 0, 4) == 0;
    in.copy_engines = g_rand_int_range (r, 0, 9);
    in.host_cores = g_rand_int_range (r, 0, 200);
    in.frame_bytes = g_rand_int (r) * (guint64) g_rand_int_range (r, 1, 64);
    in.rows = g_rand_int_range (r, 0, 5000);
    in.live = g_rand_boolean (r);
    in.frame_interval_ns = g_rand_int (r);
    in.cost = g_rand_boolean (r) ? CO_TUNE_COST_HEAVY : CO_TUNE_COST_LIGHT;
    in.can_batch = in.media == CO_TUNE_VIDEO;
    in.spinners = g_rand_int_range (r, 0, 4);
    in.sharers = g_rand_boolean (r) ? 0 : g_rand_int_range (r, 1, 40);
    in.user_streams = g_rand_boolean (r) ? 0 : g_rand_int_range (r, 1, 33);
    in.user_chunks = g_rand_boolean (r) ? 0 : g_rand_int_range (r, 1, 65);
    in.user_batch = g_rand_boolean (r) ? 0 : g_rand_int_range (r, 1, 17);
    in.user_in_flight = g_rand_boolean (r) ? 0 : g_rand_int_range (r, 1, 65);
    in.user_wait = g_rand_boolean (r);
    in.user_submit_thread = g_rand_boolean (r);
    if (g_rand_boolean (r)) {
      in.measured.frames = 30;
      in.measured.h2d_ns = g_rand_int (r);
      in.measured.kernel_ns = g_rand_int (r);
      in.measured.d2h_ns = g_rand_int (r);
      in.measured.busy_ns = g_rand_int (r);
      in.measured.gpu_latency_ns = g_rand_int (r);
      in.measured.host_cpu_ns = g_rand_int (r);
      in.measured.chain_wall_ns = g_rand_int (r);
      in.measured.gap_ns = g_rand_int (r);
      in.measured.gap_cpu_ns = g_rand_int (r);
      in.measured.bytes = g_rand_int (r);
      in.measured.staged = g_rand_int_range (r, 0, 31);
      in.measured.ring = g_rand_boolean (r) ? 0 : g_rand_int_range (r, 2, 65);
    }
    co_tune_decide (&in, &ch);
    g_assert_cmpuint (ch.streams, >=, 1);
    g_assert_cmpuint (ch.streams, <=, 32);
    g_assert_cmpuint (ch.chunks, >=, 1);
    g_assert_cmpuint (ch.chunks, <=, 64);
    g_assert_cmpuint (ch.batch, >=, 1);
    g_assert_cmpuint (ch.batch, <=, 16);
    g_assert_cmpuint (strlen (ch.reason), <, CO_TUNE_REASON_MAX);
    if (in.user_streams)
      g_assert_cmpuint (ch.streams, ==, in.user_streams);
    if (in.user_chunks && (!in.rows || in.user_chunks <= in.rows))
      g_assert_cmpuint (ch.chunks, ==, in.user_chunks);
    if (in.user_batch)
      g_assert_cmpuint (ch.batch, ==, in.user_batch);
    if (!in.can_batch && !in.user_batch)
      g_assert_cmpuint (ch.batch, ==, 1);
    if (in.live && !in.user_batch)
      g_assert_cmpuint (ch.batch, ==, 1);
    /* non-live: only for a ring upstream that the frames in flight hold */
    if (ch.spin)
      g_assert_true ((in.live || (in.measured.ring > 0 &&
                  in.measured.ring <= CO_TUNE_RING_MAX && in.measured.ring <=
                  ((in.user_in_flight ? in.user_in_flight :
                          co_tune_default_in_flight (ch.streams)) +
                      1) * ch.batch)) && !in.cpu_backend && !in.user_wait &&
          in.media == CO_TUNE_VIDEO && in.spinners < CO_TUNE_MAX_SPINNERS);
    if (ch.submit_thread)
      g_assert_true (!in.live && !in.user_submit_thread &&
          in.measured.frames > 0 &&
          2 * in.measured.staged >= in.measured.frames);
    if (!in.cpu_backend && !in.user_streams)
      g_assert_cmpuint (ch.streams, >=, MIN (ch.chunks, 32));
    /* engines sharing a device stay within its queues (or at 2 each, or
     * a stream per band); on the CPU backend, within the cores */
    if (!in.cpu_backend && !in.user_streams && !in.live && in.sharers)
      g_assert_cmpuint (ch.streams, <=, MAX (MAX (2, ch.chunks),
              CO_TUNE_DEVICE_QUEUES / (in.sharers + 1)));
    if (in.cpu_backend && !in.user_streams)
      g_assert_cmpuint (ch.streams, <=, MAX (1,
              in.host_cores / (in.sharers + 1)));
  }
  g_rand_free (r);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/tune/table", test_table);
  g_test_add_func ("/tune/same", test_same);
  g_test_add_func ("/tune/random", test_random);
  g_test_add_func ("/tune/submit-thread", test_submit_thread);
  return g_test_run ();
}
