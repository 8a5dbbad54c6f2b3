#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# usage: scripts/demo.sh [OUTDIR]                                           (as root)
# A first run for newcomers: builds ffdvb if needed, makes a short test stream with the ffmpeg
# tool, starts ffdvbd, and plays the stream through the real device nodes with ffdvb-play (as
# VDR replays a recording) with a message on the OSD. Where a display exists the picture shows
# in an SDL window; otherwise the output is headless and screenshots (one a second) are written
# to OUTDIR (default build/demo). On a kernel without CUSE the same runs inside scripts/vm.sh
# (Debian's kernel under qemu), which the script says.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD_DIR:-$ROOT/build}
OUT=${1:-$BUILD/demo}
ADAPTER=${DEMO_ADAPTER:-0}
BIN=$BUILD/bin
STREAM=$BUILD/streams/sd_mpeg2_mp2.ts

say() { echo "demo: $*"; }

if [ "${DEMO_INSIDE_VM:-0}" != 1 ]; then
	if [ ! -x "$BIN/ffdvbd" ] || [ ! -x "$BIN/ffdvb-play" ]; then
		say "building ffdvb in $BUILD"
		cmake -S "$ROOT" -B "$BUILD" >/dev/null && cmake --build "$BUILD" -j"$(nproc)" >/dev/null
	fi
	say "making a 2 s test stream (MPEG-2 + MP2) with ffmpeg"
	"$ROOT/scripts/gen-streams.sh" "$BUILD/streams" sd_mpeg2_mp2.ts >/dev/null
	mkdir -p "$OUT"
	if [ "$(id -u)" != 0 ]; then
		say "run me as root: creating CUSE devices needs it (ffdvbd then serves everyone)"
		exit 1
	fi
	if [ ! -c /dev/cuse ] && ! modprobe cuse 2>/dev/null; then
		say "this kernel has no CUSE (CONFIG_CUSE): running the demo inside scripts/vm.sh,"
		say "a qemu VM that boots Debian's kernel; screenshots land in $OUT"
		VM_OUT_DIR=$OUT VM_TIMEOUT=300 exec "$ROOT/scripts/vm.sh" \
			"DEMO_INSIDE_VM=1 BUILD_DIR=$BUILD sh $ROOT/scripts/demo.sh \$VM_OUT"
	fi
fi

if [ -e "/dev/dvb/adapter$ADAPTER" ]; then
	say "/dev/dvb/adapter$ADAPTER exists already: set DEMO_ADAPTER to a free number"
	exit 1
fi
output=none
if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ] && [ "${DEMO_INSIDE_VM:-0}" != 1 ]; then
	output=window
fi
say "starting ffdvbd (adapter $ADAPTER, output $output)"
"$BIN/ffdvbd" --adapter "$ADAPTER" --foreground --output "$output" >"$OUT/ffdvbd.log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null' EXIT
i=0
until "$BIN/ffdvbctl" --adapter "$ADAPTER" status >/dev/null 2>&1; do
	i=$((i + 1))
	[ $i -gt 300 ] && { say "ffdvbd did not start:"; cat "$OUT/ffdvbd.log"; exit 1; }
	sleep 0.1
done
ls -l "/dev/dvb/adapter$ADAPTER"
say "playing $STREAM with ffdvb-play, OSD message 'Hello from ffdvb'"
"$BIN/ffdvb-play" --adapter "$ADAPTER" --osd "Hello from ffdvb" --hold 1 "$STREAM" &
play=$!
n=0
while kill -0 $play 2>/dev/null; do
	sleep 1
	n=$((n + 1))
	"$BIN/ffdvbctl" --adapter "$ADAPTER" screenshot "$OUT/shot-$n.png" 2>/dev/null || true
done
wait $play
"$BIN/ffdvbctl" --adapter "$ADAPTER" status
say "screenshots: $(ls "$OUT"/shot-*.png 2>/dev/null | tr '\n' ' ')"
say "done"
