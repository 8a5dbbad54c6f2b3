#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The `tuner` benchmark suite, run as root inside the test VM by bench/run.sh:
#   tuner-guest.sh BIN_DIR SCALE VIDTV_DIR|- STREAM|-
# dvr0 (VIDTV_DIR, built by scripts/vm/build-vidtv.sh; - leaves it out): loads vidtv, starts
#   ffdvbd on adapter 5 with --tuner dvb:0, and runs ffdvb-bench-tuner on vidtv's own adapter 0
#   ("direct") and on the emulated adapter 5 ("emul"), twice each, alternating, keeping each
#   figure's better run (a busy TCG host slows whichever run it hits).
# zap (STREAM, an MPEG-2 + MP2 TS; - leaves it out; needs no vidtv): ffdvbd on adapter 6 with
#   --tuner file:CHANNELS (two DVB-T entries on STREAM), ffdvb-bench-zap: 5*SCALE rounds of
#   DTV_TUNE to the first picture shown (zapping away to the other entry in between).
# Prints `figure` lines on stdout (ratios are left to run.sh); progress and errors on stderr.
set -u
usage='usage: tuner-guest.sh BIN_DIR SCALE VIDTV_DIR|- STREAM|-'
BIN=${1:?$usage}
SCALE=${2:-1}
VIDTV=${3:?$usage}
STREAM=${4:--}
pids=
trap 'for p in $pids; do kill $p 2>/dev/null; wait $p 2>/dev/null; done' EXIT
[ -c /dev/cuse ] || modprobe cuse

# start_daemon ADAPTER LOG ARGS...: ffdvbd in the background until it says it is ready
start_daemon() {
	a=$1 log=$2
	shift 2
	"$BIN/ffdvbd" --adapter "$a" --foreground --output none "$@" 2>"$log" &
	pids="$pids $!"
	i=0
	until grep -q "ready (adapter $a)" "$log"; do
		[ $i -ge 300 ] && { echo "bench tuner: ffdvbd --adapter $a did not start" >&2; cat "$log" >&2; exit 1; }
		i=$((i + 1))
		sleep 0.1
	done
}

if [ "$VIDTV" != - ]; then
	ADAPTER=5
	SECS=$((3 * SCALE))
	sh "$VIDTV/load.sh" >&2 || { echo "bench tuner: cannot load vidtv from $VIDTV" >&2; exit 1; }
	start_daemon $ADAPTER /tmp/ffdvb-bench-tuner.log --tuner dvb:0
	out=/tmp/ffdvb-bench-tuner.figures
	: > "$out"
	for round in 1 2; do
		for path in direct emul; do
			dir=/dev/dvb/adapter0
			[ $path = emul ] && dir=/dev/dvb/adapter$ADAPTER
			"$BIN/ffdvb-bench-tuner" "$dir" $path $SECS >> "$out" ||
				{ echo "bench tuner: the $path run failed" >&2; exit 1; }
		done
	done
	# the better of the two runs: lowest latency, highest throughput
	awk '$4 == "us" { if (!($2 in v) || $3 < v[$2]) v[$2] = $3; u[$2] = $4 }
	     $4 != "us" { if (!($2 in v) || $3 > v[$2]) v[$2] = $3; u[$2] = $4 }
	     END { for (k in v) print "figure", k, v[k], u[k] }' "$out" | sort
fi

if [ "$STREAM" != - ]; then
	ZAP_ADAPTER=6
	conf=/tmp/ffdvb-bench-zap.conf
	for e in "Zap 474000000" "Away 482000000"; do
		set -- $e
		printf '[%s]\n\tSERVICE_ID = 1\n\tVIDEO_PID = 256\n\tAUDIO_PID = 257\n\tFREQUENCY = %s\n\tDELIVERY_SYSTEM = DVBT\n\tBANDWIDTH_HZ = 8000000\n\tFILE = %s\n\n' \
			"$1" "$2" "$STREAM"
	done > "$conf"
	start_daemon $ZAP_ADAPTER /tmp/ffdvb-bench-zap.log --tuner "file:$conf"
	"$BIN/ffdvb-bench-zap" /dev/dvb/adapter$ZAP_ADAPTER /run/ffdvb/adapter$ZAP_ADAPTER.sock \
		$((5 * SCALE)) 474000000 482000000 0x100 0x101 ||
		{ echo "bench tuner: the zap run failed" >&2; cat /tmp/ffdvb-bench-zap.log >&2; exit 1; }
fi
