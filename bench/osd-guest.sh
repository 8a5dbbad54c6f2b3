#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The `osd` benchmark suite, run as root inside the test VM by bench/run.sh:
#   osd-guest.sh BIN_DIR [SCALE]
# Starts ffdvbd (adapter 6, headless output) and runs ffdvb-bench-osd against its osd0: the
# time from OSD_SEND_CMD(SetBlock 720x576) through CUSE to that OSD on screen, and sustained
# OSD command rates. Prints `figure` lines on stdout; progress and errors on stderr.
set -u
BIN=${1:?usage: osd-guest.sh BIN_DIR [SCALE]}
SCALE=${2:-1}
ADAPTER=6
LOG=/tmp/ffdvb-bench-osd.log
[ -c /dev/cuse ] || modprobe cuse
"$BIN/ffdvbd" --adapter $ADAPTER --foreground --output none 2>"$LOG" &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null' EXIT
i=0
until grep -q "ready (adapter $ADAPTER)" "$LOG"; do
	[ $i -ge 300 ] && { echo "bench osd: ffdvbd did not start" >&2; cat "$LOG" >&2; exit 1; }
	i=$((i + 1))
	sleep 0.1
done
"$BIN/ffdvb-bench-osd" $ADAPTER $((50 * SCALE))
