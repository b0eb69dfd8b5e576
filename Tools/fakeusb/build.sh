#!/bin/sh
# Builds the libusb-1.0 stand-in into OUTDIR: libusb-1.0.so.0 plus a
# libusb-1.0.so symlink, so both `LD_LIBRARY_PATH=OUTDIR prog` and `cc -LOUTDIR -lusb-1.0` find it.
# Usage: Tools/fakeusb/build.sh OUTDIR
set -eu
if [ $# -ne 1 ]; then
    echo "usage: $0 OUTDIR" >&2
    exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
out=$1
mkdir -p "$out"
cflags=$(pkg-config --cflags libusb-1.0 2>/dev/null || echo "-I/usr/include/libusb-1.0")
cc -O2 -Wall -Wextra -std=c11 $cflags -shared -fPIC -Wl,-soname,libusb-1.0.so.0 \
    -o "$out/libusb-1.0.so.0" "$here/fakeusb.c" -lpthread
ln -sf libusb-1.0.so.0 "$out/libusb-1.0.so"
