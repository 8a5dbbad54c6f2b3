#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# usage: scripts/vm/build-vidtv.sh [OUTDIR]
#
# Builds the kernel's vidtv DVB test driver (a virtual budget card: frontend0, demux0, dvr0)
# out of tree for the kernel the test VM boots. Debian builds its kernels without
# CONFIG_DVB_TEST_DRIVERS, so no dvb-vidtv-*.ko ships; the sources come from Debian's
# linux-source-X.Y package (/usr/src/linux-source-X.Y.tar.xz), the build from
# linux-headers-KVER. Needs: linux-source-6.1 linux-headers-KVER gcc make (setup.sh).
#
# OUTDIR (default: $BUILD_DIR/vidtv, BUILD_DIR defaulting to <repo>/build) receives
# dvb-vidtv-tuner.ko, dvb-vidtv-demod.ko and dvb-vidtv-bridge.ko, plus load.sh, which loads
# them inside the VM (tuner and demod first: the bridge's request_module cannot find modules
# outside /lib/modules). Idempotent: nothing is rebuilt while the kernel, the source tarball
# and this script are unchanged (a stamp holds their key). KVER: as scripts/vm.sh picks it.
# Prints the output folder on stdout; exit 77 (with a message) when the sources or headers
# are not installed, 1 when the build fails.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-${BUILD_DIR:-$here/../../build}/vidtv}
say() { echo "build-vidtv: $*" >&2; }

if [ -z "${KVER:-}" ]; then   # the newest kernel with modules and an image, as vm.sh does
  for k in $(printf '%s\n' /lib/modules/* | sed 's|.*/||' | sort -V); do
    [ -f "/boot/vmlinuz-$k" ] && KVER=$k
  done
fi
[ -n "${KVER:-}" ] || { say "no kernel installed (linux-image-amd64)"; exit 77; }
series=$(echo "$KVER" | cut -d. -f1,2)
src=/usr/src/linux-source-$series.tar.xz
kbuild=/lib/modules/$KVER/build
[ -f "$src" ] || { say "$src missing: apt-get install linux-source-$series"; exit 77; }
[ -d "$kbuild" ] || { say "$kbuild missing: apt-get install linux-headers-$KVER"; exit 77; }

mkdir -p "$out"
out=$(cd "$out" && pwd)
key=$( { echo "$KVER"; stat -c '%n %s %Y' "$src" "$kbuild/Module.symvers"; cat "$0"; } |
  sha256sum | cut -c1-16)
mods="dvb-vidtv-tuner.ko dvb-vidtv-demod.ko dvb-vidtv-bridge.ko"
have_all() { for m in $mods; do [ -s "$out/$m" ] || return 1; done; }
if [ "$(cat "$out/.stamp" 2>/dev/null)" = "$key" ] && have_all; then
  echo "$out"
  exit 0
fi

say "building vidtv for $KVER in $out"
rm -rf "$out/src"
mkdir -p "$out/src"
dir=linux-source-$series/drivers/media/test-drivers/vidtv
tar -xJf "$src" -C "$out/src" --strip-components=5 --wildcards "$dir/*" ||
  { say "cannot extract $dir from $src"; exit 1; }
# in tree the Makefile uses obj-$(CONFIG_DVB_VIDTV); out of tree the modules are wanted as such
sed 's/obj-$(CONFIG_DVB_VIDTV)/obj-m/' "$out/src/Makefile" > "$out/src/Kbuild"
rm -f "$out/src/Makefile"
if ! make -s -C "$kbuild" M="$out/src" -j2 modules > "$out/build.log" 2>&1; then
  say "make failed; last lines of $out/build.log:"
  tail -n 20 "$out/build.log" >&2
  exit 1
fi
for m in $mods; do cp "$out/src/$m" "$out/$m"; done

cat > "$out/load.sh" <<'EOF'
#!/bin/sh
# usage: load.sh [MODULE_PARAMETERS_FOR_THE_BRIDGE...]   (in the VM, as root; made by
# scripts/vm/build-vidtv.sh). Loads vidtv (dvb_core first, from the kernel's modules) and
# waits up to 10 s for its nodes; the adapter number is the first free one (0 if none).
set -u
d=$(cd "$(dirname "$0")" && pwd)
modprobe dvb_core || exit 1
for m in dvb-vidtv-tuner dvb-vidtv-demod; do
  grep -q "^$(echo "$m" | tr - _) " /proc/modules || insmod "$d/$m.ko" || exit 1
done
grep -q '^dvb_vidtv_bridge ' /proc/modules || insmod "$d/dvb-vidtv-bridge.ko" "$@" || exit 1
i=0
until ls /sys/class/dvb 2>/dev/null | grep -q 'dvr0$'; do
  [ $i -ge 100 ] && { echo "load.sh: no vidtv dvr0 after 10 s" >&2; exit 1; }
  sleep 0.1; i=$((i + 1))
done
EOF
cat > "$out/unload.sh" <<'EOF'
#!/bin/sh
# usage: unload.sh   (in the VM, as root): removes vidtv (the bridge first). rmmod of the
# bridge waits until every open file of its demux and dvr is closed.
set -u
for m in dvb_vidtv_bridge dvb_vidtv_demod dvb_vidtv_tuner; do
  grep -q "^$m " /proc/modules && { rmmod "$m" || exit 1; }
done
exit 0
EOF
chmod +x "$out/load.sh" "$out/unload.sh"
echo "$key" > "$out/.stamp"
say "done"
echo "$out"
