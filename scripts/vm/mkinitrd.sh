#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# usage: mkinitrd.sh KVER OUT.cpio.gz
# A ~1.6 MB initramfs: static busybox, the modules needed to mount a 9p root with an overlay
# and to serve CUSE devices (decompressed, in load order), and initrd-init.sh as /init.
set -eu
kver=$1 out=$2
here=$(cd "$(dirname "$0")" && pwd)
busybox=/bin/busybox      # package busybox-static; a dynamic busybox would not run in the initramfs
modules="virtio_pci 9pnet_virtio 9p overlay cuse"   # cuse pulls in fuse

w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
mkdir -p "$w/bin" "$w/proc" "$w/sys" "$w/dev" "$w/lower" "$w/rw" "$w/newroot" "$w/mod"
cp "$busybox" "$w/bin/busybox"
ln -s busybox "$w/bin/sh"
cp "$here/initrd-init.sh" "$w/init"
chmod 755 "$w/init"

# modprobe lists the dependencies first; keep the first occurrence of each file
: > "$w/modlist"
for m in $modules; do
  modprobe -S "$kver" --show-depends "$m"
done | awk '$1 == "insmod" && !seen[$2]++ { print $2 }' | while read -r f; do
  b=$(basename "$f")
  case $b in
    *.ko.xz)  xz -dc "$f" > "$w/mod/${b%.xz}"; b=${b%.xz} ;;
    *.ko.zst) zstd -qdc "$f" > "$w/mod/${b%.zst}"; b=${b%.zst} ;;
    *.ko.gz)  gzip -dc "$f" > "$w/mod/${b%.gz}"; b=${b%.gz} ;;
    *)        cp "$f" "$w/mod/$b" ;;
  esac
  echo "$b" >> "$w/modlist"
done
[ -s "$w/modlist" ] || { echo "mkinitrd: no modules found for $kver" >&2; exit 1; }

(cd "$w" && find . | LC_ALL=C sort | cpio -o -H newc --quiet) | gzip -1 > "$out"
