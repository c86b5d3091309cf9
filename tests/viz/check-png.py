#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks that a PNG screenshot has non-trivial content, with the standard
library only (zlib): it decodes the image and requires

  - the expected size,
  - many distinct colours (a blank or error page has a handful),
  - a good share of non-background pixels,
  - the report's first palette colours (function bars) present.

usage: check-png.py FILE WIDTH HEIGHT"""
import struct
import sys
import zlib


def decode(path):
    data = open(path, 'rb').read()
    if data[:8] != b'\x89PNG\r\n\x1a\n':
        raise SystemExit('FAIL: %s is not a PNG' % path)
    pos, idat, hdr = 8, [], None
    while pos < len(data):
        n, kind = struct.unpack('>I4s', data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b'IHDR':
            hdr = struct.unpack('>IIBBBBB', body)
        elif kind == b'IDAT':
            idat.append(body)
        pos += 12 + n
    w, h, depth, ctype, _, _, interlace = hdr
    if depth != 8 or ctype not in (2, 6) or interlace:
        raise SystemExit('FAIL: unsupported PNG layout %r' % (hdr,))
    bpp = 3 if ctype == 2 else 4
    return w, h, bpp, unfilter(w, h, bpp, zlib.decompress(b''.join(idat)))


def unfilter(w, h, bpp, raw):
    stride = w * bpp
    prev = bytearray(stride)
    rows, pos = [], 0
    for _ in range(h):
        f = raw[pos]
        line = bytearray(raw[pos + 1:pos + 1 + stride])
        pos += 1 + stride
        if f == 1:
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 255
        elif f == 2:
            line = bytearray((a + b) & 255 for a, b in zip(line, prev))
        elif f == 3:
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + ((left + prev[i]) >> 1)) & 255
        elif f == 4:
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0
                b = prev[i]
                c = prev[i - bpp] if i >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + pred) & 255
        rows.append(bytes(line))
        prev = line
    return rows


def main():
    path, want_w, want_h = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    w, h, bpp, rows = decode(path)
    if (w, h) != (want_w, want_h):
        raise SystemExit('FAIL: size %dx%d, expected %dx%d' % (w, h, want_w, want_h))
    colours = {}
    for row in rows[::2]:
        for x in range(0, w * bpp, bpp * 2):
            px = row[x:x + 3]
            colours[px] = colours.get(px, 0) + 1
    total = sum(colours.values())
    background = max(colours.values())
    busy = 1 - background / total
    distinct = len(colours)
    print('screenshot %dx%d: %d distinct colours, %.1f%% non-background' %
          (w, h, distinct, 100 * busy))
    if distinct < 200:
        raise SystemExit('FAIL: only %d distinct colours' % distinct)
    if busy < 0.2:
        raise SystemExit('FAIL: the page is mostly empty')
    # The first function colours (bars, legends, table swatches).
    for hexc in ('4e79a7', 'f28e2b', 'e15759'):
        if bytes.fromhex(hexc) not in colours:
            raise SystemExit('FAIL: palette colour #%s not drawn' % hexc)


main()
