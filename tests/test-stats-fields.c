/* cudaoverlap: the list of message fields (engine/co-stats-fields.c), and
 * the documentation generated from it.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 *   test-stats-fields                  check the list itself
 *   test-stats-fields --markdown NAME  print the table of message NAME
 *   test-stats-fields --check FILE...  the generated blocks of FILEs are
 *                                      what the list gives (the stats-docs
 *                                      test); exit 1 with the difference
 *   test-stats-fields --write FILE...  rewrite them (make docs-fields)
 *
 * A generated block sits between two marker lines:
 *   PREFIX<!-- fields:MESSAGE FORMAT begin ... -->
 *   PREFIX<!-- fields:MESSAGE FORMAT end -->
 * FORMAT is "table" (Markdown: field, type, unit, definition) or "names"
 * (the names, wrapped); every generated line starts with PREFIX (" * " in
 * a C comment).  Every file must hold a block, and each message's table
 * must be in one of the files.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <glib.h>

#include "co-stats-fields.h"

static const CoFieldList *const *const lists = co_field_lists;

/* The index of the list of message @name, -1 if none. */
static gint
find_list (const gchar * name)
{
  guint i;

  for (i = 0; lists[i]; i++) {
    if (g_str_equal (lists[i]->name, name))
      return i;
  }
  return -1;
}

/* ---- the list itself --------------------------------------------------- */

static gboolean
is_dashed_name (const gchar * s)
{
  const gchar *p;

  if (!g_ascii_islower (s[0]))
    return FALSE;
  for (p = s; *p; p++) {
    if (!g_ascii_islower (*p) && !g_ascii_isdigit (*p) && *p != '-')
      return FALSE;
    if (*p == '-' && (p[1] == '-' || p[1] == '\0'))
      return FALSE;
  }
  return TRUE;
}

static gsize
type_size (CoFieldType t)
{
  switch (t) {
    case CO_FIELD_UINT64:
    case CO_FIELD_CLOCK_TIME:
      return sizeof (uint64_t);
    case CO_FIELD_DOUBLE:
      return sizeof (double);
    case CO_FIELD_UINT:
      return sizeof (unsigned int);
    case CO_FIELD_INT:
      return sizeof (int);
    case CO_FIELD_STRING:
      return sizeof (const char *);
    case CO_FIELD_BOOLEAN:
      return sizeof (bool);
  }
  g_assert_not_reached ();
  return 0;
}

static const gsize source_size[CO_FIELD_N_SOURCES] = {
  [CO_FIELD_IN_SUMMARY] = sizeof (CoStatsSummary),
  [CO_FIELD_IN_TIMES] = sizeof (CoStatsTimes),
  [CO_FIELD_IN_SETTINGS] = sizeof (CoStatsSettings),
  [CO_FIELD_IN_PASSPORT] = sizeof (CoPassport),
};

/* Bytes of @src covered by the fields of @l, checking that no two fields
 * share a byte and that every field lies inside the struct. */
static gsize
covered_bytes (const CoFieldList * l, CoFieldSource src)
{
  gchar *used = g_malloc0 (source_size[src]);
  gsize i, b, n = 0;

  for (i = 0; i < l->n_fields; i++) {
    const CoField *f = &l->fields[i];
    gsize size = type_size (f->type);

    if (f->source != src)
      continue;
    g_assert_cmpuint (f->offset + size, <=, source_size[src]);
    for (b = f->offset; b < f->offset + size; b++) {
      if (used[b])
        g_error ("%s: %s shares its value with another field", l->name,
            f->name);
      used[b] = 1;
      n++;
    }
  }
  g_free (used);
  return n;
}

static void
test_list (gconstpointer data)
{
  const CoFieldList *l = data;
  GHashTable *seen = g_hash_table_new (g_str_hash, g_str_equal);
  gsize i;

  g_assert_cmpuint (l->n_fields, >, 0);
  g_assert_true (is_dashed_name (l->name));
  for (i = 0; i < l->n_fields; i++) {
    const CoField *f = &l->fields[i];

    if (!is_dashed_name (f->name))
      g_error ("%s: \"%s\" is not lower-case-with-dashes", l->name, f->name);
    if (!g_hash_table_add (seen, (gpointer) f->name))
      g_error ("%s: %s twice", l->name, f->name);
    g_assert_cmpint (f->source, <, CO_FIELD_N_SOURCES);
    g_assert_nonnull (f->unit);
    g_assert_nonnull (f->definition);
    g_assert_cmpuint (strlen (f->definition), >, 0);
    g_assert_null (strchr (f->definition, '\n'));
    g_assert_null (strchr (f->unit, '|'));
    if (f->flags & CO_FIELD_ONLY_IF_TRUE)
      g_assert_cmpint (f->type, ==, CO_FIELD_BOOLEAN);
    g_assert_cmpstr (co_field_type_name (f->type), !=, "?");
  }
  g_hash_table_unref (seen);
}

/* Every member of CoStatsSummary and CoStatsTimes is in the statistics
 * message: a value that co-stats computes or a time the element fills
 * cannot be left out of the message and the docs. */
static void
test_summary_covered (void)
{
  g_assert_cmpuint (covered_bytes (&co_stats_fields, CO_FIELD_IN_SUMMARY),
      ==, sizeof (CoStatsSummary));
  g_assert_cmpuint (covered_bytes (&co_stats_fields, CO_FIELD_IN_TIMES),
      ==, sizeof (CoStatsTimes));
  g_assert_cmpuint (covered_bytes (&co_passport_fields, CO_FIELD_IN_TIMES),
      ==, 0);
  /* the others: disjoint and in bounds (padding makes them inexact) */
  covered_bytes (&co_stats_fields, CO_FIELD_IN_SETTINGS);
  g_assert_cmpuint (covered_bytes (&co_stats_fields, CO_FIELD_IN_PASSPORT),
      ==, 0);
  covered_bytes (&co_passport_fields, CO_FIELD_IN_PASSPORT);
  g_assert_cmpuint (covered_bytes (&co_passport_fields, CO_FIELD_IN_SUMMARY),
      ==, 0);
}

/* The values are read where the list says. */
static void
test_values (void)
{
  CoStatsSummary s = { 0 };
  CoStatsSettings set = { 0 };
  CoStatsTimes t = { 0 };
  const void *sources[CO_FIELD_N_SOURCES] = {
    [CO_FIELD_IN_SUMMARY] = &s,
    [CO_FIELD_IN_TIMES] = &t,
    [CO_FIELD_IN_SETTINGS] = &set,
  };
  gsize i;
  gboolean saw_frames = FALSE, saw_eff = FALSE, saw_op = FALSE;
  gboolean saw_rt = FALSE;

  s.frames = 12;
  s.overlap_efficiency = 0.5;
  set.operation = "box-blur";
  t.running_time = 7;
  for (i = 0; i < co_stats_fields.n_fields; i++) {
    const CoField *f = &co_stats_fields.fields[i];
    const void *p = co_field_value (f, sources);

    g_assert_nonnull (p);
    if (g_str_equal (f->name, "frames")) {
      g_assert_cmpuint (*(const uint64_t *) p, ==, 12);
      saw_frames = TRUE;
    } else if (g_str_equal (f->name, "overlap-efficiency")) {
      g_assert_cmpfloat (*(const double *) p, ==, 0.5);
      saw_eff = TRUE;
    } else if (g_str_equal (f->name, "operation")) {
      g_assert_cmpstr (*(const char *const *) p, ==, "box-blur");
      saw_op = TRUE;
    } else if (g_str_equal (f->name, "running-time")) {
      g_assert_cmpint (f->type, ==, CO_FIELD_CLOCK_TIME);
      g_assert_cmpuint (*(const uint64_t *) p, ==, 7);
      saw_rt = TRUE;
    }
  }
  g_assert_true (saw_frames && saw_eff && saw_op && saw_rt);
}

/* ---- generated text ---------------------------------------------------- */

static gchar *
markdown (const CoFieldList * l)
{
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream (&buf, &len);
  gchar *out;

  g_assert_nonnull (f);
  g_assert_true (co_field_list_write_markdown (l, f));
  fclose (f);
  out = g_strndup (buf, len);
  free (buf);
  return out;
}

/* The generated lines of a block, each with @prefix. */
static gchar *
generate (const CoFieldList * l, const gchar * format, const gchar * prefix)
{
  GString *out = g_string_new (NULL);

  if (g_str_equal (format, "table")) {
    gchar *md = markdown (l), **lines = g_strsplit (md, "\n", -1);
    guint i;

    for (i = 0; lines[i] && lines[i][0]; i++)
      g_string_append_printf (out, "%s%s\n", prefix, lines[i]);
    g_strfreev (lines);
    g_free (md);
  } else if (g_str_equal (format, "names")) {
    GString *line = g_string_new (NULL);
    gsize i, width = 78 - strlen (prefix);

    for (i = 0; i < l->n_fields; i++) {
      gchar *word = g_strdup_printf ("`%s`%s", l->fields[i].name,
          i + 1 < l->n_fields ? "," : ".");

      if (line->len > 0 && line->len + 1 + strlen (word) > width) {
        g_string_append_printf (out, "%s%s\n", prefix, line->str);
        g_string_truncate (line, 0);
      }
      if (line->len > 0)
        g_string_append_c (line, ' ');
      g_string_append (line, word);
      g_free (word);
    }
    g_string_append_printf (out, "%s%s\n", prefix, line->str);
    g_string_free (line, TRUE);
  } else {
    g_string_free (out, TRUE);
    return NULL;
  }
  return g_string_free (out, FALSE);
}

/* Checks (or, with @write, rewrites) the blocks of @path.  Sets the bit of
 * each list whose table it holds in @tables. */
static gboolean
process_file (const gchar * path, gboolean write, guint * tables)
{
  GRegex *begin_re = g_regex_new ("^(.*)<!-- fields:([a-z0-9-]+) "
      "([a-z]+) begin", 0, 0, NULL);
  gchar *text = NULL, **lines;
  GString *out = g_string_new (NULL);
  GError *err = NULL;
  gboolean ok = TRUE, changed = FALSE;
  guint i, n_blocks = 0;

  if (!g_file_get_contents (path, &text, NULL, &err)) {
    g_printerr ("%s\n", err->message);
    g_error_free (err);
    return FALSE;
  }
  lines = g_strsplit (text, "\n", -1);
  for (i = 0; lines[i]; i++) {
    GMatchInfo *m = NULL;
    gchar *prefix, *name, *format, *end, *want;
    const CoFieldList *l;
    GString *have;
    guint first = i, j;
    gint k;

    g_string_append_printf (out, "%s%s", lines[i], lines[i + 1] ? "\n" : "");
    if (!g_regex_match (begin_re, lines[i], 0, &m)) {
      g_match_info_free (m);
      continue;
    }
    prefix = g_match_info_fetch (m, 1);
    name = g_match_info_fetch (m, 2);
    format = g_match_info_fetch (m, 3);
    g_match_info_free (m);
    n_blocks++;
    end = g_strdup_printf ("<!-- fields:%s %s end -->", name, format);
    k = find_list (name);
    l = k >= 0 ? lists[k] : NULL;
    want = l ? generate (l, format, prefix) : NULL;
    have = g_string_new (NULL);
    for (j = i + 1; lines[j] && !strstr (lines[j], end); j++)
      g_string_append_printf (have, "%s\n", lines[j]);
    if (want == NULL || lines[j] == NULL) {
      g_printerr ("%s:%u: %s\n", path, first + 1, !l ? "no such message" :
          !want ? "no such format (table, names)" : "no end marker");
      ok = FALSE;
    } else {
      if (g_str_equal (format, "table"))
        *tables |= 1u << k;
      if (!g_str_equal (have->str, want)) {
        changed = TRUE;
        if (!write) {
          g_printerr ("%s:%u: the %s %s is not what engine/co-stats-fields.c "
              "gives (make docs-fields rewrites it).\n--- in the file\n%s"
              "+++ generated\n%s", path, first + 1, name, format, have->str,
              want);
          ok = FALSE;
        }
      }
      g_string_append (out, want);
      g_string_append_printf (out, "%s%s", lines[j], lines[j + 1] ? "\n" : "");
      i = j;
    }
    g_string_free (have, TRUE);
    g_free (want);
    g_free (end);
    g_free (prefix);
    g_free (name);
    g_free (format);
  }
  if (n_blocks == 0) {
    g_printerr ("%s: no <!-- fields:MESSAGE FORMAT begin --> block\n", path);
    ok = FALSE;
  }
  if (ok && write && changed) {
    if (!g_file_set_contents (path, out->str, out->len, &err)) {
      g_printerr ("%s\n", err->message);
      g_error_free (err);
      ok = FALSE;
    } else {
      g_print ("%s: rewritten\n", path);
    }
  }
  g_string_free (out, TRUE);
  g_strfreev (lines);
  g_free (text);
  g_regex_unref (begin_re);
  return ok;
}

int
main (int argc, char **argv)
{
  if (argc >= 2 && g_str_equal (argv[1], "--markdown")) {
    gint k = argc == 3 ? find_list (argv[2]) : -1;

    if (k < 0) {
      g_printerr ("usage: %s --markdown cudaoverlap-stats|"
          "cudaoverlap-passport\n", argv[0]);
      return 2;
    }
    return co_field_list_write_markdown (lists[k], stdout) ? 0 : 1;
  }
  if (argc >= 3 && (g_str_equal (argv[1], "--check") ||
          g_str_equal (argv[1], "--write"))) {
    gboolean write = g_str_equal (argv[1], "--write"), ok = TRUE;
    guint tables = 0;
    int i;

    for (i = 2; i < argc; i++)
      ok = process_file (argv[i], write, &tables) && ok;
    for (i = 0; lists[i]; i++) {
      if (!(tables & (1u << i))) {
        g_printerr ("no file holds the table of %s\n", lists[i]->name);
        ok = FALSE;
      }
    }
    return ok ? 0 : 1;
  }

  g_test_init (&argc, &argv, NULL);
  g_test_add_data_func ("/stats-fields/stats", &co_stats_fields, test_list);
  g_test_add_data_func ("/stats-fields/passport", &co_passport_fields,
      test_list);
  g_test_add_func ("/stats-fields/summary-covered", test_summary_covered);
  g_test_add_func ("/stats-fields/values", test_values);
  return g_test_run ();
}
