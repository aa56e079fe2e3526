/* cudaoverlap: writes gst/cudaoverlap/cudaoverlap.h, the header installed
 * for applications: the names of the messages the elements post and of
 * their fields, from the one list of fields (engine/co-stats-fields.c).
 * The build runs it, so a field added to the list is in the next build's
 * header; nobody keeps the header by hand.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 *   gen-cudaoverlap-h OUTPUT
 *
 * Names: a message "cudaoverlap-NAME" is GST_CUDA_OVERLAP_MESSAGE_NAME, and
 * its field "some-field" GST_CUDA_OVERLAP_NAME_SOME_FIELD (upper case,
 * dashes become underscores).  Pure C and libc, like the list.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "co-stats-fields.h"

#define MESSAGE_PREFIX "cudaoverlap-"
#define COMMENT_WIDTH 77

static const char preamble[] =
    "/* SPDX-License-Identifier: LGPL-2.1-or-later */\n"
    "/*\n"
    " * gst/cudaoverlap/cudaoverlap.h: the names of the element messages that\n"
    " * cudavideofilter and cudaaudiofilter post on the bus, and of their\n"
    " * fields, with each field's type and unit.  docs/stats.md says when each\n"
    " * message is posted and how each value is measured.\n"
    " *\n"
    " * Generated from the plugin's list of fields (engine/co-stats-fields.c)\n"
    " * when the plugin is built: do not edit.  Plain C macros: no GLib, no\n"
    " * GStreamer, no plugin internals.  pkg-config: gstreamer-cudaoverlap-1.0.\n"
    " *\n"
    " *   #include <gst/cudaoverlap/cudaoverlap.h>\n"
    " *\n"
    " *   const GstStructure *s = gst_message_get_structure (msg);\n"
    " *   gdouble fps;\n"
    " *\n"
    " *   if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ELEMENT\n"
    " *       && gst_structure_has_name (s, GST_CUDA_OVERLAP_MESSAGE_STATS)\n"
    " *       && gst_structure_get_double (s, GST_CUDA_OVERLAP_STATS_FPS, &fps))\n"
    " *     g_print (\"%.1f frames/s\\n\", fps);\n" " */\n";

/* @s in upper case, '-' as '_'. */
static void
put_macro_word (const char *s, FILE * out)
{
  for (; *s; s++)
    fputc (*s == '-' ? '_' : toupper ((unsigned char) *s), out);
}

/* @list's name less "cudaoverlap-", as a macro word. */
static void
put_message_word (const CoFieldList * list, FILE * out)
{
  const char *name = list->name;

  if (strncmp (name, MESSAGE_PREFIX, strlen (MESSAGE_PREFIX)) == 0)
    name += strlen (MESSAGE_PREFIX);
  put_macro_word (name, out);
}

/* @text as the lines of a C comment, wrapped at word boundaries: Markdown's
 * escaped "\|" as "|", and no "*" + "/" that would end the comment. */
static void
put_comment (const char *text, FILE * out)
{
  size_t col = 0;

  fputs ("/*", out);
  col = 2;
  while (*text) {
    size_t len = strcspn (text, " ");
    size_t i;

    if (col + 1 + len > COMMENT_WIDTH && col > 3) {
      fputs ("\n *", out);
      col = 2;
    }
    fputc (' ', out);
    col++;
    for (i = 0; i < len; i++) {
      if (text[i] == '\\' && text[i + 1] == '|')
        continue;
      if (text[i] == '/' && i > 0 && text[i - 1] == '*')
        fputc (' ', out);
      fputc (text[i], out);
      col++;
    }
    text += len;
    text += strspn (text, " ");
  }
  fputs (col + 3 > COMMENT_WIDTH ? "\n */\n" : " */\n", out);
}

static void
put_field (const CoFieldList * list, const CoField * f, FILE * out)
{
  char text[1024];

  snprintf (text, sizeof text, "%s%s%s%s: %s", co_field_type_name (f->type),
      f->unit[0] ? ", " : "", f->unit,
      (f->flags & CO_FIELD_ONLY_IF_TRUE) ? ", present only when TRUE" : "",
      f->definition);
  put_comment (text, out);
  fputs ("#define GST_CUDA_OVERLAP_", out);
  put_message_word (list, out);
  fputc ('_', out);
  put_macro_word (f->name, out);
  fprintf (out, " \"%s\"\n", f->name);
}

static void
put_list (const CoFieldList * list, FILE * out)
{
  char text[256];
  size_t i;

  snprintf (text, sizeof text, "The %s element message (the structure's "
      "name), and its fields.", list->name);
  fputc ('\n', out);
  put_comment (text, out);
  fputs ("#define GST_CUDA_OVERLAP_MESSAGE_", out);
  put_message_word (list, out);
  fprintf (out, " \"%s\"\n", list->name);
  for (i = 0; i < list->n_fields; i++) {
    fputc ('\n', out);
    put_field (list, &list->fields[i], out);
  }
}

int
main (int argc, char **argv)
{
  FILE *out;
  size_t i;

  if (argc != 2) {
    fprintf (stderr, "usage: %s OUTPUT\n", argv[0]);
    return 2;
  }
  out = fopen (argv[1], "w");
  if (out == NULL) {
    perror (argv[1]);
    return 1;
  }
  fputs (preamble, out);
  fputs ("\n#ifndef __GST_CUDA_OVERLAP_H__\n", out);
  fputs ("#define __GST_CUDA_OVERLAP_H__\n", out);
  for (i = 0; co_field_lists[i]; i++)
    put_list (co_field_lists[i], out);
  fputs ("\n#endif /* __GST_CUDA_OVERLAP_H__ */\n", out);
  if (fclose (out) != 0) {
    perror (argv[1]);
    return 1;
  }
  return 0;
}
