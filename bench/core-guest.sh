#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The `core` benchmark suite, run as root inside the test VM by bench/run.sh:
#   core-guest.sh BIN_DIR [SCALE [BASE_BIN_DIR]]
# Starts ffdvbd (adapter 7) and two bare CUSE devices (libfuse single- and multi-threaded loop),
# then measures each operation on them side by side with ffdvb-cuse-rtt. With BASE_BIN_DIR,
# that build's ffdvbd runs as well (adapter 8) and takes its turns as `base` (before/after
# comparisons in one VM run). Prints `figure` lines on stdout (ratios are left to run.sh);
# progress and errors go to stderr. SCALE multiplies every iteration count (default 1).
#
# Everything first runs pinned to CPU 0: under TCG a wake-up on the other vCPU costs a host
# thread wake-up (up to milliseconds on a busy host), which would drown the cost of the code.
# Pinned, the figures compare work done. Then the argument-less ioctl is measured again with
# everything on two CPUs, placed by the guest's scheduler (`_2cpu` figures): libfuse's
# multi-threaded loop only differs from its single-threaded one there. On a busy TCG host
# those figures mostly measure how soon the host runs the other vCPU's thread.
set -u
BIN=${1:?usage: core-guest.sh BIN_DIR [SCALE [BASE_BIN_DIR]]}
SCALE=${2:-1}
BASE_BIN=${3:-}
ADAPTER=7
OURS=/dev/dvb/adapter$ADAPTER
BARE=/dev/ffdvb-bare/video0
BAREMT=/dev/ffdvb-bare-mt/video0
LOG=/tmp/ffdvb-bench
DRAIN_RATE=1000000000 # bytes/s: far above what a TCG guest can write, the ring stays empty
mkdir -p "$LOG"

pids=
cleanup() {
	for p in $pids; do kill "$p" 2>/dev/null; done
	for p in $pids; do wait "$p" 2>/dev/null; done
	pids=
}
trap cleanup EXIT
fail() {
	echo "bench core: $*" >&2
	for f in "$LOG"/*.log; do [ -s "$f" ] && { echo "--- $f" >&2; tail -n 20 "$f" >&2; }; done
	exit 1
}
# wait_for TEST_ARGS...: up to 30 s (a TCG guest is slow to start processes)
wait_for() {
	i=0
	while ! test "$@"; do
		[ $i -ge 300 ] && return 1
		sleep 0.1; i=$((i + 1))
	done
}

modprobe cuse || fail "modprobe cuse failed"
CPUS=$(nproc)
[ "$CPUS" -ge 2 ] || fail "the VM has $CPUS CPU; the suite needs 2 (VM_SMP)"
PIN="taskset -c 0"
for b in ffdvbd ffdvb-bare-cuse ffdvb-cuse-rtt; do
	[ -x "$BIN/$b" ] || fail "$BIN/$b is missing"
done

$PIN "$BIN/ffdvbd" --adapter $ADAPTER --foreground --no-decode --drain-rate $DRAIN_RATE 2>"$LOG/ffdvbd.log" &
pids="$pids $!"
V_BASE= D_BASE=
if [ -n "$BASE_BIN" ]; then
	$PIN "$BASE_BIN/ffdvbd" --adapter 8 --foreground --no-decode --drain-rate $DRAIN_RATE 2>"$LOG/base.log" &
	pids="$pids $!"
	V_BASE=base=/dev/dvb/adapter8/video0 D_BASE=base=/dev/dvb/adapter8/demux0
fi
$PIN "$BIN/ffdvb-bare-cuse" ffdvb-bare/video0 -s 2>"$LOG/bare.log" &
pids="$pids $!"
$PIN "$BIN/ffdvb-bare-cuse" ffdvb-bare-mt/video0 2>"$LOG/baremt.log" &
pids="$pids $!"
i=0
until grep -q "ready (adapter $ADAPTER)" "$LOG/ffdvbd.log"; do
	[ $i -ge 300 ] && fail "ffdvbd did not print 'ready (adapter $ADAPTER)' in 30 s"
	sleep 0.1; i=$((i + 1))
done
for n in $OURS/video0 $OURS/demux0 $BARE $BAREMT ${V_BASE#base=} ${D_BASE#base=}; do
	wait_for -c "$n" || fail "$n did not appear"
done

rtt() { $PIN "$BIN/ffdvb-cuse-rtt" "$@" || fail "ffdvb-cuse-rtt $* failed"; }
n() { echo $(($1 * SCALE)); }

rtt --op clock
# argument-less ioctl: VIDEO_SET_STREAMTYPE is a no-op on av7110; also libfuse MT vs ST
rtt --op noarg --name rtt_ioctl_noarg --iters "$(n 3000)" --rounds "$(n 300)" \
	ours=$OURS/video0 $V_BASE bare=$BARE baremt=$BAREMT
# _IOWR with one retry (the kernel fetches the 16-byte struct, then copies the answer out)
rtt --op stc --name rtt_dmx_get_stc --iters "$(n 1000)" --rounds "$(n 100)" ours=$OURS/demux0 $D_BASE bare=$BARE
# one TS packet per write (the TS path of video0), source MEMORY, playing
rtt --op write --size 188 --name rtt_write188 --iters "$(n 3000)" --rounds "$(n 300)" \
	ours=$OURS/video0 $V_BASE bare=$BARE
# turns of 6 writes (174 = 29 x 6 fit between two clears of 32768 bytes): the median of such
# short runs misses the host's preemptions of the vCPU that hit a few % of all calls
rtt --op write --mode tput --size 188 --name tput_write188 --iters "$(n 6960)" --rounds "$(n 1160)" \
	ours=$OURS/video0 $V_BASE bare=$BARE
# 1800 writes a target, about 0.5 s: with 600 (0.2 s) one run in seven gave 0.82 of bare
# where the others gave 0.96-1.00, the TCG guest's speed changing within the measurement
rtt --op write --mode tput --size 65536 --clear-every 65536 --name tput_write64k \
	--iters "$(n 1800)" --rounds "$(n 180)" --warmup 20 ours=$OURS/video0 $V_BASE bare=$BARE

on_cpus() { for p in $pids; do taskset -a -p -c "$1" "$p" >/dev/null || fail "taskset -p $p"; done; }
# two CPUs, placed by the guest's scheduler: the daemons' threads (present and future ones)
# and the client are free
on_cpus "0-$((CPUS - 1))"
PIN=
rtt --op noarg --name rtt_ioctl_noarg_2cpu --iters "$(n 1000)" --rounds "$(n 100)" \
	ours=$OURS/video0 $V_BASE bare=$BARE baremt=$BAREMT

for p in $pids; do kill -0 "$p" 2>/dev/null || fail "a device process died during the run"; done
cleanup
echo "bench core: done" >&2
