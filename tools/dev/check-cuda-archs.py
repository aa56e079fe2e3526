#!/usr/bin/env python3
"""Checks that a built library carries kernels for every GPU family.

Usage: check-cuda-archs.py LIBRARY NVCC

Reads the CUDA fat binaries embedded in LIBRARY (its .nv_fatbin ELF
section; no cuobjdump needed), those that hold our kernels, and lists their machine code (cubin) and PTX
architectures.  NVCC --list-gpu-arch gives the architectures the toolkit
supports (those of compute capability 7.5 or newer count: the code needs
it); each major family (7.x, 8.x, ...) needs a cubin of its lowest listed
member, since a cubin runs on the later minors of its major (sm_80 code on
sm_86 and sm_89) but not on an earlier one, and the newest family needs PTX
too, so that the driver can compile it for GPUs newer than the
toolkit.  Exit 1, naming what is missing, otherwise 0.
"""
import struct
import subprocess
import sys

FATBIN_MAGIC = 0xBA55ED50
KIND_PTX, KIND_ELF = 1, 2
# a kernel of kernels/co-kernels.cu (part of its mangled name)
MARKER = b'co_gain_kernel'


def elf_section(path, name):
    """The bytes of section @name of a 64-bit little-endian ELF file."""
    data = open(path, 'rb').read()
    if data[:4] != b'\x7fELF' or data[4] != 2 or data[5] != 1:
        sys.exit(f'{path}: not a 64-bit little-endian ELF file')
    shoff, = struct.unpack_from('<Q', data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from('<HHH', data, 0x3A)

    def header(i):
        off = shoff + i * shentsize
        nm, _, _, _, offset, size = struct.unpack_from('<IIQQQQ', data, off)
        return nm, offset, size

    _, str_off, _ = header(shstrndx)
    for i in range(shnum):
        nm, offset, size = header(i)
        end = data.index(b'\0', str_off + nm)
        if data[str_off + nm:end].decode() == name:
            return data[offset:offset + size]
    return b''


def fatbin_entries(blob, marker):
    """(kind, sm) of every entry of the fat binaries in @blob that hold our
    kernels: one of their cubins (uncompressed ELF) names @marker.  Others
    (e.g. the CUDA runtime's own) say nothing about this build."""
    entries, off = [], 0
    while off + 16 <= len(blob):
        magic, _, hsize, fsize = struct.unpack_from('<IHHQ', blob, off)
        if magic != FATBIN_MAGIC:
            # fat binaries are 8-byte aligned in the section
            off += 8
            continue
        p, end = off + hsize, off + hsize + fsize
        found, ours = [], False
        while p + 32 <= end:
            # kind, version, header size, padded payload size, ..., the
            # architecture (e.g. 90) at byte 28
            kind, _, ehsize, padded = struct.unpack_from('<HHIQ', blob, p)
            sm, = struct.unpack_from('<I', blob, p + 28)
            if ehsize == 0:
                break
            payload = blob[p + ehsize:p + ehsize + padded]
            ours = ours or (kind == KIND_ELF and marker in payload)
            found.append((kind, sm))
            p += ehsize + padded
        if ours:
            entries += found
        off = end
    return entries


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    lib, nvcc = sys.argv[1:]
    entries = fatbin_entries(elf_section(lib, '.nv_fatbin'), MARKER)
    cubins = sorted({sm for kind, sm in entries if kind == KIND_ELF})
    ptx = sorted({sm for kind, sm in entries if kind == KIND_PTX})
    print(f'{lib}: machine code ' +
          (' '.join(f'sm_{s}' for s in cubins) or 'none') + '; PTX ' +
          (' '.join(f'compute_{s}' for s in ptx) or 'none'))

    listed = subprocess.run([nvcc, '--list-gpu-arch'], check=True,
                            capture_output=True, text=True).stdout.split()
    # the code needs compute capability 7.5 or newer (meson.build): an
    # older toolkit's list starts below it
    supported = sorted(n for n in (int(a.split('_')[1]) for a in listed)
                       if n >= 75)
    families = {}
    for sm in supported:
        families.setdefault(sm // 10, sm)
    missing = []
    for major, lowest in sorted(families.items()):
        if not any(c // 10 == major and c <= lowest for c in cubins):
            missing.append(f'sm_{lowest} (compute capability {major}.x: '
                           f'{", ".join(str(s) for s in supported if s // 10 == major)})')
    newest = max(families)
    if not any(p // 10 == newest for p in ptx):
        missing.append(f'PTX of the newest family ({newest}.x), for GPUs '
                       'newer than the toolkit')
    if missing:
        print('not covered: ' + '; '.join(missing))
        print('build with meson setup -Dcuda-architectures=all-major')
        return 1
    print(f'every family {nvcc} supports is covered: ' +
          ', '.join(f'{m}.x' for m in sorted(families)))
    return 0


if __name__ == '__main__':
    sys.exit(main())
