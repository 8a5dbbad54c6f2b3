#!/bin/sh
# The `tuner` benchmark suite, run as root inside the test VM by bench/run.sh:
#   tuner-guest.sh BIN_DIR SCALE VIDTV_DIR
# Loads vidtv (scripts/vm/build-vidtv.sh built it into VIDTV_DIR), starts ffdvbd on adapter 5
# with --tuner dvb:0, and runs ffdvb-bench-tuner on vidtv's own adapter 0 ("direct") and on the
# emulated adapter 5 ("emul"), twice each, alternating, keeping each figure's better run (a
# busy TCG host slows whichever run it hits). Prints `figure` lines on stdout (ratios are
# left to run.sh); progress and errors on stderr.
set -u
BIN=${1:?usage: tuner-guest.sh BIN_DIR SCALE VIDTV_DIR}
SCALE=${2:-1}
VIDTV=${3:?usage: tuner-guest.sh BIN_DIR SCALE VIDTV_DIR}
ADAPTER=5
LOG=/tmp/ffdvb-bench-tuner.log
SECS=$((3 * SCALE))
[ -c /dev/cuse ] || modprobe cuse
sh "$VIDTV/load.sh" >&2 || { echo "bench tuner: cannot load vidtv from $VIDTV" >&2; exit 1; }
"$BIN/ffdvbd" --adapter $ADAPTER --foreground --output none --tuner dvb:0 2>"$LOG" &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null' EXIT
i=0
until grep -q "ready (adapter $ADAPTER)" "$LOG"; do
	[ $i -ge 300 ] && { echo "bench tuner: ffdvbd did not start" >&2; cat "$LOG" >&2; exit 1; }
	i=$((i + 1))
	sleep 0.1
done
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
