#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# usage: extract-vmlinux.sh /boot/vmlinuz-KVER OUT
# Unpack the ELF kernel from a compressed bzImage (xz or zstd). Under TCG, qemu boots that ELF
# directly through its PVH note and skips the decompressor, which takes ~4.5 s emulated.
set -eu
in=$1 out=$2
is_elf() { [ "$(head -c 4 "$1" | od -An -c | tr -d ' ')" = '177ELF' ]; }

# try MAGIC DECOMPRESSOR...: every place the stream's magic occurs; the first ELF wins
try() {
  magic=$1; shift
  command -v "$1" >/dev/null || return 1
  LC_ALL=C grep -abo "$magic" "$in" | cut -d: -f1 | {
    while read -r pos; do
      # trailing data after the stream is expected: ignore the decompressor's complaint
      tail -c +"$((pos + 1))" "$in" | "$@" > "$out.tmp" 2>/dev/null || true
      if is_elf "$out.tmp"; then mv "$out.tmp" "$out"; exit 0; fi
    done
    exit 1
  }
}

if try "$(printf '\3757zXZ')" xz -dc || try "$(printf '\050\265\057\375')" zstd -dcq; then
  exit 0
fi
rm -f "$out.tmp"
echo "extract-vmlinux: no xz or zstd compressed ELF kernel found in $in" >&2
exit 1
