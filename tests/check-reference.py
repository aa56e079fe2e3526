#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The docs-reference test: docs/reference.md is what the registry gives,
and it says what gst-inspect-1.0 says.

    check-reference.py TOOL PAGE

1. TOOL (build/tools/dev/cudaoverlap-reference) regenerates the page; it must
   equal PAGE (else: run make docs-reference).
2. For the plugin and each of its elements, what gst-inspect-1.0 prints is
   in the page: plugin description, license, package and origin; the
   element's long name, klass, description, author and rank; each pad
   template's direction, availability and caps; each property (but
   GstObject's name and parent) with its blurb, flags, type, range,
   default and enum values.  A gst-inspect-1.0 line this script cannot
   read fails the test too (teach it, and the tool, the new type).
3. The conventions of GStreamer's own elements, as gst-inspect-1.0 shows
   them: each property's blurb is one line of at most BLURB_MAX characters,
   and so is each element's description; the detail is in the property's
   long description (its gtk-doc block in the sources, which the tool
   writes into the page), which every property has.

The plugin must be on GStreamer's path (the test's environment).
"""
import difflib
import re
import subprocess
import sys

PLUGIN = "cudaoverlap"
GOBJECT_PROPERTIES = {"name", "parent"}
BLURB_MAX = 100
TYPE_NAMES = {
    "Integer": "gint", "Unsigned Integer": "guint",
    "Integer64": "gint64", "Unsigned Integer64": "guint64",
    "Long": "glong", "Unsigned Long": "gulong",
    "Float": "gfloat", "Double": "gdouble",
}
errors = []


def fail(msg):
    errors.append(msg)


def inspect(*args):
    return subprocess.run(["gst-inspect-1.0", *args], check=True,
                          capture_output=True, text=True).stdout


def unescape(text):
    """Undoes the tool's Markdown escapes (put_text)."""
    return re.sub(r"\\([\\*_|])", r"\1", text)


def details(text):
    """The "Key   value" lines of gst-inspect's details blocks."""
    return dict(m.groups() for m in
                re.finditer(r"^  ([A-Z][A-Za-z -]*?)\s{2,}(\S.*)$", text, re.M))


# ---- gst-inspect-1.0's output ---------------------------------------------

def pad_templates(text):
    """{name: (direction, availability, [caps lines])}"""
    out = {}
    block = text.split("Pad Templates:\n", 1)[1].split("\nElement has", 1)[0]
    for m in re.finditer(r"^  (SRC|SINK|UNKNOWN) template: '([^']+)'\n"
                         r"    Availability: (\S+)\n    Capabilities:\n"
                         r"((?:      .*\n)*)", block, re.M):
        caps = [line.strip() for line in m.group(4).splitlines() if line.strip()]
        caps = [re.sub(r"^(\S+):\s+", r"\1: ", c) for c in caps]
        out[m.group(2)] = (m.group(1).lower(), m.group(3).lower(), caps)
    return out


# What gst-inspect-1.0 prints for a property's type (its first line, or
# two), and the page's "- type:" line for it.
TYPE_LINES = [
    (r"(Unsigned )?(Integer64|Integer|Long|Float|Double)\. "
     r"Range:\s+(\S+) -\s+(\S+) Default:\s+(\S+)\s*",
     lambda m: f"`{TYPE_NAMES[(m[1] or '') + m[2]]}`; range: {m[3]} to {m[4]}; "
               f"default: `{m[5]}`"),
    (r"Boolean\. Default: (true|false)", lambda m: f"`gboolean`; default: `{m[1]}`"),
    (r"String\. Default: (null|\".*\")", lambda m: f"`gchararray`; default: `{m[1]}`"),
    (r"Enum \"(\S+)\" Default: (-?\d+), \"(.*)\"",
     lambda m: f"enum `{m[1]}`; default: `{m[3]}` ({m[2]})"),
    (r"Flags \"(\S+)\" Default: (0x[0-9a-f]+), \"(.*)\"",
     lambda m: f"flags `{m[1]}`; default: `{m[2]}`"),
    (r"Boxed pointer of type \"(\S+)\"", lambda m: f"boxed `{m[1]}`"),
    (r"Object of type \"(\S+)\"", lambda m: f"object `{m[1]}`"),
    (r"Default: (\".*\")\nGstValueArray of GValues of type \"(\S+)\"",
     lambda m: f"`GstValueArray` of `{m[2]}`; default: `{m[1]}`"),
    # no element spec: values of any type
    (r"Default: (\".*\")\nGstValueArray of GValues$",
     lambda m: f"`GstValueArray` of `GValue`; default: `{m[1]}`"),
]


def type_line(name, lines):
    """The page's "- type:" line for the type lines gst-inspect printed, and
    the enum or flags rows [(value, nick, description)]."""
    rows = [m.groups() for m in
            (re.match(r"\((-?\w+)\): (\S+)\s+- (.*)$", l) for l in lines[1:]) if m]
    for pattern, page_line in TYPE_LINES:
        m = re.fullmatch(pattern, "\n".join(lines[:pattern.count("\\n") + 1]))
        if m:
            return page_line(m), rows
    fail(f"{name}: gst-inspect-1.0 printed a type this check cannot read: {lines}")
    return None, rows


def properties(text):
    """{name: (blurb, flags, type line, enum rows)}"""
    out = {}
    block = text.split("Element Properties:\n", 1)[1]
    block = re.split(r"^\S", block, maxsplit=1, flags=re.M)[0]
    for m in re.finditer(r"^  ([a-z][a-z0-9-]*)\s*: (.*)\n((?:(?:\s{20,}.*|\s*)\n)*)",
                         block, re.M):
        name = m.group(1)
        if name in GOBJECT_PROPERTIES:
            continue
        lines = [line.strip() for line in m.group(3).splitlines() if line.strip()]
        flags = lines[0][len("flags: "):] if lines and lines[0].startswith("flags: ") else None
        t, rows = type_line(name, lines[1:])
        out[name] = (m.group(2), flags, t, rows)
    return out


# ---- the page -------------------------------------------------------------

def sections(page, level):
    """{title: body} of the page's headings of @level ("## `x`")."""
    marks = "#" * level
    parts = re.split(rf"^{marks} `([^`]+)`\n", page, flags=re.M)
    return dict(zip(parts[1::2], parts[2::2]))


def page_pads(body):
    out = {}
    for m in re.finditer(r"^`([^`]+)`: (\w+) pad, (\w+)\n\n```\n(.*?)```\n",
                         body, re.M | re.S):
        caps = [line.strip() for line in m.group(4).splitlines() if line.strip()]
        out[m.group(1)] = (m.group(2), m.group(3), caps)
    return out


def page_property(body):
    """(blurb, flags, type line, enum rows) of a "#### `name`" section."""
    m = re.match(r"\n(.*)\n\n- type: (.*)\n- flags: (.*)\n", body)
    if not m:
        return None
    rows = [(v, n, unescape(d)) for v, n, d in
            re.findall(r"^\| (-?\w+) \| `([^`]+)` \| (.*) \|$", body, re.M)]
    return unescape(m.group(1)), m.group(3), m.group(2), rows


def page_description(body):
    """The long description of a "#### `name`" section: its text after the
    type, flags and enum values."""
    rest = re.split(r"^- flags: .*\n", body, maxsplit=1, flags=re.M)[-1]
    return "\n".join(line for line in rest.splitlines()
                     if not line.startswith("|")).strip()


def check_short(element, props, description):
    """Blurbs and the element's description: one line, at most BLURB_MAX."""
    for what, text in [("description", description)] + \
            [(f"property {n} blurb", p[0]) for n, p in sorted(props.items())]:
        if text is None or len(text) > BLURB_MAX:
            fail(f"{element}: {what}: {len(text or '')} characters, more than "
                 f"{BLURB_MAX} (the detail goes into the long description): "
                 f"{text!r}")


def check_element(element, body):
    text = inspect(element)
    d = details(text.split("Plugin Details:")[0])
    table = dict(re.findall(r"^\| ([a-z ]+) \| (.*) \|$", body, re.M))
    for key, page_key in [("Long-name", "long name"), ("Klass", "klass"),
                          ("Description", "description"), ("Author", "author"),
                          ("Rank", "rank")]:
        if d.get(key) != unescape(table.get(page_key, "")):
            fail(f"{element}: {key}: gst-inspect-1.0 says {d.get(key)!r}, "
                 f"the page {table.get(page_key)!r}")
    pads = page_pads(body.split("\n### Properties\n")[0])
    if pad_templates(text) != pads:
        fail(f"{element}: pad templates: gst-inspect-1.0 says {pad_templates(text)}, "
             f"the page {pads}")
    props = properties(text)
    page_props = sections(body, 4)
    if set(props) != set(page_props):
        fail(f"{element}: properties: gst-inspect-1.0 has {sorted(props)}, "
             f"the page {sorted(page_props)}")
    for name in sorted(set(props) & set(page_props)):
        have = page_property(page_props[name])
        if have != props[name]:
            fail(f"{element}: property {name}: gst-inspect-1.0 says\n  {props[name]}\n"
                 f"the page says\n  {have}")
        if not page_description(page_props[name]):
            fail(f"{element}: property {name}: no long description in the page")
    check_short(element, props, d.get("Description"))


def check_plugin(page):
    text = inspect(PLUGIN)
    d = details(text)
    intro = page.split("\n## ", 1)[0]
    for key, want in [("Description", f"Plugin `{PLUGIN}`: {d.get('Description')}."),
                      ("License", f"License {d.get('License')};"),
                      ("Binary package", f"package \"{d.get('Binary package')}\";"),
                      ("Origin URL", f"origin <{d.get('Origin URL')}>.")]:
        if want not in unescape(intro):
            fail(f"plugin {key}: the page does not say {want!r}")
    elements = re.findall(r"^  ([a-z0-9]+): \S", text, re.M)
    if not elements:
        fail(f"gst-inspect-1.0 {PLUGIN} lists no element")
    return elements


def main():
    tool, path = sys.argv[1:3]
    page = open(path, encoding="utf-8").read()
    generated = subprocess.run([tool], check=True, capture_output=True,
                               text=True).stdout
    if generated != page:
        sys.stdout.writelines(difflib.unified_diff(
            page.splitlines(True), generated.splitlines(True),
            f"{path} (committed)", "generated from the registry"))
        print(f"{path} is not what the registry gives: run make docs-reference")
        return 1
    elements = check_plugin(page)
    page_sections = sections(page, 2)
    for element in elements:
        if element not in page_sections:
            fail(f"{element}: no section in the page")
        else:
            check_element(element, page_sections[element])
    for e in errors:
        print(f"FAIL: {e}")
    if not errors:
        print(f"{path}: what the registry gives, and what gst-inspect-1.0 says "
              f"({', '.join(elements)})")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
