#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# usage: vdr-live-host.sh BINDIR BUILDDIR SCRIPT [ARGS...]
# Host side of the VDR live TV tests (vdr-live.sh, vdr-zap.sh): builds vidtv for the VM's kernel as a real
# budget card (scripts/vm/build-vidtv.sh, cached in BUILDDIR/vidtv); for ARGS "file", makes the
# file tuner's stream (stream-refs.sh) and adds BUILDDIR/streams to ARGS (for "zap ...", the
# three streams of vdr-zap.sh, BUILDDIR/streams in place of "zap"); then runs
# tests/vm/SCRIPT BINDIR VIDTVDIR ARGS... inside scripts/vm.sh.
# Skips (77, loudly; vidtv missing is a failure under CI) without vdr, the plugin or vidtv.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
usage='usage: vdr-live-host.sh BINDIR BUILDDIR SCRIPT [ARGS...]'
bin=${1:?$usage}
build=${2:?$usage}
script=${3:?$usage}
shift 3
skip() {
	echo "########################################################################" >&2
	echo "SKIP: $*" >&2
	echo "########################################################################" >&2
	exit 77
}
command -v vdr > /dev/null || skip "vdr is not installed (apt-get install vdr vdr-plugin-dvbsddevice)"
ls /usr/lib/vdr/plugins/libvdr-dvbsddevice.so.* > /dev/null 2>&1 ||
	skip "vdr-plugin-dvbsddevice is not installed"
command -v svdrpsend > /dev/null || skip "svdrpsend (package vdr) is missing"
# file: the file tuner plays ffmpeg's stream (with its reference MD5s), passed to SCRIPT last;
# zap: three services (MPEG-2, H.264, HEVC; three pictures) for vdr-zap.sh, the stream folder its
# first argument
case ${1:-} in
file)
	command -v ffmpeg > /dev/null || skip "no ffmpeg CLI to make the file tuner's stream"
	sh "$here/stream-refs.sh" "$build/streams" sd_mpeg2_mp2.ts > /dev/null
	set -- "$@" "$build/streams" ;;
zap)
	command -v ffmpeg > /dev/null || skip "no ffmpeg CLI to make the file tuner's streams"
	for s in sd_mpeg2_mp2.ts zap_h264_latm.ts zap_hevc_aac.ts; do
		sh "$here/stream-refs.sh" "$build/streams" $s > /dev/null
	done
	shift
	set -- "$build/streams" "$@" ;;
esac
rc=0
vidtv=$(sh "$here/../../scripts/vm/build-vidtv.sh" "$build/vidtv") || rc=$?
if [ "$rc" = 77 ]; then
	[ -n "${CI:-}" ] && { echo "vdr-live-host.sh: vidtv cannot be built (CI: failure)" >&2; exit 1; }
	skip "vidtv cannot be built here (linux-source, kernel headers): no budget card for VDR"
fi
[ "$rc" = 0 ] || { echo "vdr-live-host.sh: building vidtv failed" >&2; exit 1; }
[ "$script" = vdr-zap.sh ] ||
	exec bash "$here/../../scripts/vm.sh" "/bin/sh $here/$script $bin $vidtv $*"
# vdr-zap.sh is judged from outside the daemon too (capture-lib.sh): a screendump of qemu's
# display after each zap against ffmpeg's pictures of the services
capture_here=$here
. "$here/capture-lib.sh"
capture_run "${VM_OUT_DIR:?the test sets VM_OUT_DIR}" "/bin/sh $here/$script $bin $vidtv $*"
