#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# Writes a C file that defines SYMBOL, a NUL-terminated string with the
# bytes of IN: a header compiled into the engine (co-nvrtc.c hands it to
# NVRTC in memory), taken from the source tree at every build.
# Usage: embed-text.py IN OUT SYMBOL
import sys

src, out, symbol = sys.argv[1:4]
with open(src, 'rb') as f:
    data = f.read()
lines = ['/* generated from %s by engine/embed-text.py: do not edit */'
         % src.split('/')[-1], '', 'const char %s[] =' % symbol]
for i in range(0, len(data), 16):
    lines.append('  "' + ''.join('\\x%02x' % b for b in data[i:i + 16]) + '"')
if not data:
    lines.append('  ""')
lines[-1] += ';'
lines.append('const unsigned long %s_len = %d;' % (symbol, len(data)))
with open(out, 'w') as f:
    f.write('\n'.join(lines) + '\n')
