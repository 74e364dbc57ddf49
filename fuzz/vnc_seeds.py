#!/usr/bin/env python3
"""Writes fuzz/corpus/vnc/: one valid example of each server message the
fuzz_vnc harness feeds the worker (input format at the top of
fuzz/fuzz_vnc.c): a 5-byte header (width - 1, height - 1, name length),
the name, then server messages in the pixel format the worker asks for
(32 bits per pixel, depth 24, true colour). Run it after changing the
examples; the files are committed."""
import os
import struct
import zlib

W, H = 64, 48


def header(w=W, h=H, name=b"fuzz"):
    return struct.pack(">HHB", w - 1, h - 1, len(name)) + name


def rect(x, y, w, h, enc):
    return struct.pack(">HHHHi", x, y, w, h, enc)


def update(*rects, n=None):
    return struct.pack(">BBH", 0, 0, len(rects) if n is None else n) + b"".join(rects)


def px(r, g, b):  # the worker's format: R, G, B, unused (little-endian words)
    return bytes([r, g, b, 0])


def cpx(r, g, b):  # ZRLE's CPIXEL and Tight's TPIXEL: three bytes
    return bytes([r, g, b])


RAW, COPYRECT, RRE, HEXTILE, TIGHT, ZRLE = 0, 1, 2, 5, 7, 16
RICH_CURSOR, XCURSOR, DESKTOP_SIZE, LAST_RECT = -239, -240, -223, -224
EXT_DESKTOP_SIZE, WMVI = -308, 0x574D5669

def cut(text):  # ServerCutText, Latin-1
    return b"\x03\x00\x00\x00" + struct.pack(">I", len(text)) + text


def zrle(stream, data):  # one rect's share of the connection's single zlib stream
    z = stream.compress(data) + stream.flush(zlib.Z_SYNC_FLUSH)
    return struct.pack(">I", len(z)) + z


# A connection has one ZRLE stream: one per seed that uses it.
z1, z2 = zlib.compressobj(), zlib.compressobj()


seeds = {
    "handshake-only": b"",
    "raw": update(rect(0, 0, 4, 4, RAW) + px(255, 0, 0) * 16),
    "copyrect": update(rect(0, 0, 4, 4, RAW) + px(0, 255, 0) * 16,
                       rect(8, 8, 4, 4, COPYRECT) + struct.pack(">HH", 0, 0)),
    "rre": update(rect(0, 0, 16, 16, RRE) + struct.pack(">I", 2) + px(0, 0, 255)
                  + px(255, 255, 0) + struct.pack(">HHHH", 1, 1, 4, 4)
                  + px(0, 255, 255) + struct.pack(">HHHH", 8, 8, 6, 6)),
    # Two tiles: raw, then background + foreground + one subrect.
    "hextile": update(rect(0, 0, 32, 16, HEXTILE) + b"\x01" + px(9, 9, 9) * 256
                      + bytes([2 | 4 | 8]) + px(1, 2, 3) + px(200, 100, 50)
                      + bytes([1, 0x23, 0x45])),
    # Hextile with coloured subrects.
    "hextile-coloured": update(rect(0, 0, 16, 16, HEXTILE) + bytes([2 | 8 | 16]) + px(0, 0, 0)
                               + bytes([2]) + px(255, 0, 0) + bytes([0x00, 0x33])
                               + px(0, 255, 0) + bytes([0x88, 0x11])),
    "zrle-solid": update(rect(0, 0, 64, 48, ZRLE) + zrle(z1, b"\x01" + cpx(10, 20, 30))),
    # Raw CPIXELs, then a palette of 2 with packed indices, then plain RLE.
    "zrle-mixed": update(rect(0, 0, 4, 2, ZRLE) + zrle(z2, b"\x00" + cpx(1, 2, 3) * 8),
                         rect(0, 4, 8, 2, ZRLE) + zrle(z2, b"\x02" + cpx(0, 0, 0) + cpx(255, 255, 255)
                                                       + b"\x55\xaa"),
                         rect(0, 8, 8, 2, ZRLE) + zrle(z2, b"\x80" + cpx(7, 7, 7) + b"\x07"
                                                       + cpx(8, 8, 8) + b"\x07")),
    "tight-fill": update(rect(0, 0, 16, 16, TIGHT) + b"\x80" + cpx(40, 50, 60)),
    # Basic compression, stream 0, no filter, data under 12 bytes sent raw.
    "tight-basic": update(rect(0, 0, 2, 1, TIGHT) + b"\x00" + cpx(1, 1, 1) + cpx(2, 2, 2)),
    "rich-cursor": update(rect(2, 3, 8, 8, RICH_CURSOR) + px(255, 255, 255) * 64 + b"\xff" * 8),
    "xcursor": update(rect(1, 1, 8, 8, XCURSOR) + b"\xff\xff\xff\x00\x00\x00"
                      + b"\x3c" * 8 + b"\x7e" * 8),
    "cursor-none": update(rect(0, 0, 0, 0, RICH_CURSOR)),
    "desktop-size": update(rect(0, 0, 100, 80, DESKTOP_SIZE))
    + update(rect(0, 0, 100, 80, RAW) + px(1, 1, 1) * 8000),
    "ext-desktop-size": update(rect(0, 0, 80, 60, EXT_DESKTOP_SIZE) + b"\x01\x00\x00\x00"
                               + struct.pack(">IHHHHI", 1, 0, 0, 80, 60, 0)),
    # WMVi: the server changes its pixel format (to 16 bits, RGB565).
    "wmvi": update(rect(0, 0, W, H, WMVI)
                   + bytes([16, 16, 0, 1, 0, 31, 0, 63, 0, 31, 11, 5, 0, 0, 0, 0])),
    "last-rect": update(rect(0, 0, 1, 1, RAW) + px(3, 3, 3), rect(0, 0, 0, 0, LAST_RECT), n=0xFFFF),
    "colour-map": b"\x01\x00" + struct.pack(">HH", 0, 2) + struct.pack(">HHHHHH", 0, 0, 0, 65535, 0, 0),
    "bell": b"\x02\x02",
    "cut-text": cut(b"hello\xe9 w\xf6rld"),
    "unknown-message": b"\x7f",
}
seeds["all"] = b"".join(seeds[k] for k in ["raw", "copyrect", "rre", "hextile", "zrle-solid",
                                           "rich-cursor", "colour-map", "bell", "cut-text",
                                           "desktop-size"])

out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", "vnc")
os.makedirs(out, exist_ok=True)
for name, body in seeds.items():
    with open(os.path.join(out, name), "wb") as f:
        f.write(header() + body)
