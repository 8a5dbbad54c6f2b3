#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The `vdr` benchmark suite, run as root inside the test VM by bench/run.sh:
#   vdr-guest.sh BIN_DIR SCALE VIDEO_DIR [ZAP_STREAMS]
# Unmodified VDR 2.6 + dvbsddevice -o on ffdvbd (headless), set up as tests/vm/vdr.sh does
# (tests/vm/vdr-lib.sh). VIDEO_DIR holds one SD recording (run.sh makes it).
#   vdr_menu_{first,complete}_{median,max}: SVDRP `HITK Menu` sent (monotonic clock, on an open connection) to the
#     first OSD update presented on screen after it, and to the last one of that burst (VDR
#     draws the menu in several flushes) (status decoder.osd_presented_ns, the same clock);
#     3*SCALE rounds, each closed with `HITK Back`; measured with nothing playing.
#   vdr_ffdvbd_cpu: ffdvbd's CPU time (user+system) over 10*SCALE s of replay, in percent of one CPU.
#   vdr_ffdvbd_rss_peak: ffdvbd's peak resident set (VmHWM) at the end, in KiB.
#   vdr_replay_pictures_per_s: pictures shown per second in that window (a TCG guest's CUSE
#     round trips usually pace VDR below 25: docs/vdr.md).
#   vdr_zap_{mpeg2,h264,hevc}_{median,max}: with ZAP_STREAMS (run.sh makes them), VDR without -o
#     zapping over SVDRP between the file tuner's MPEG-2, H.264 and HEVC services
#     (tests/vm/vdr-zap.sh, 2*SCALE rounds: 4*SCALE zaps to each): `CHAN N` sent to the first
#     picture of the new service's own stream shown (ffdvbd's record, ffmpeg's MD5s). The file
#     tuner starts a file at its first picture, an I-frame: no GOP wait is in these figures.
# Prints `figure` lines on stdout; progress (PASS/FAIL of the setup) and errors on stderr.
set -u
usage='usage: vdr-guest.sh BIN_DIR SCALE VIDEO_DIR [ZAP_STREAMS]'
bin=${1:?$usage}
SCALE=${2:-1}
video=${3:?$usage}
zap_streams=${4:-}
here=$(cd "$(dirname "$0")/../tests/vm" && pwd)
out=$(mktemp -d /tmp/ffdvb-bench-vdr.XXXXXX)
syslog=$out/syslog.log
script_name=vdr-guest.sh
no_record=1   # no headless record: it would add its own cost to ffdvbd's CPU share
. "$here/lib.sh"
. "$here/vdr-lib.sh"
die() { echo "bench vdr: $*" >&2; [ -n "${vdr:-}" ] && kill "$vdr" 2> /dev/null; exit 1; }
mono_ns() { python3 -c 'import time; print(time.monotonic_ns())'; }
jget() {
	ctl status --json | python3 -c "import json,sys
v=json.load(sys.stdin)
for k in sys.argv[1].split('.'): v=v.get(k) if isinstance(v, dict) else None
print(v)" "$1"
}
shown() { mkdir -p "$out/dump"; ctl osd-dump "$out/dump" 2> /dev/null | grep -c shown; }

vdr_env_start >&2
vdr_start >&2
[ "$failed" = 0 ] || die "VDR did not start (syslog: $syslog)"
# VDR's channel display at start (its channel cannot be received with -o) must be gone
i=0
while [ "$(shown)" = 0 ] && [ $i -lt 20 ]; do i=$((i + 1)); sleep 0.5; done
i=0
while [ "$(shown)" != 0 ] && [ $i -lt 30 ]; do i=$((i + 1)); sleep 0.5; done

: > "$out/menu.txt"
# menu_round: sends HITK Menu (over its own SVDRP connection) and polls the status for 4 s; prints the microseconds from the
# send to the first OSD update presented after it and to the last one of that burst (updates
# less than 300 ms apart: VDR draws its menu in several flushes)
menu_round() {
	python3 - "$bin/ffdvbctl" ${ctl_args:-} <<'PY'
import json, socket, subprocess, sys, time
ctl = sys.argv[1:]
def osd():
    d = json.loads(subprocess.run(ctl + ["status", "--json"], capture_output=True).stdout)["decoder"]
    return d["osd_presented"], d["osd_presented_ns"]
n0, _ = osd()
# SVDRP spoken here: the clock starts when the command leaves, not at svdrpsend's start-up
s = socket.create_connection(("127.0.0.1", 6419))
f = s.makefile("rb")
f.readline()                      # 220 greeting
t0 = time.monotonic_ns()
s.sendall(b"HITK Menu\r\n")
f.readline()                      # 250 Key "Menu" accepted
s.sendall(b"QUIT\r\n")
s.close()
seen = {}
while time.monotonic_ns() - t0 < 4e9:
    n, ns = osd()
    if n != n0 and ns > t0:
        seen[n] = ns
times = sorted(seen.values())
if not times:
    sys.exit("no OSD update presented after HITK Menu")
last = times[0]
for t in times[1:]:
    if t - last > 300e6:
        break
    last = t
print((times[0] - t0) // 1000, (last - t0) // 1000)
PY
}
r=0
while [ $r -lt $((3 * SCALE)) ]; do
	r=$((r + 1))
	menu_round >> "$out/menu.txt" || die "HITK Menu: no OSD update presented"
	[ "$(shown)" != 0 ] || die "HITK Menu: no OSD window shown"
	svdrp HITK Back
	sleep 2
done
for col in 1 2; do
	name=first
	[ $col = 2 ] && name=complete
	awk -v c=$col '{ print $c }' "$out/menu.txt" | sort -n | awk -v name=$name '{ v[NR] = $1 } END {
		printf "figure vdr_menu_%s_median %.1f ms\n", name, v[int((NR + 1) / 2)] / 1000
		printf "figure vdr_menu_%s_max %.1f ms\n", name, v[NR] / 1000 }'
done

svdrp PLAY 1 begin
grep -q '^250 Playing recording' "$out/svdrp.log" || die "PLAY 1 begin refused"
sleep 2
hz=$(getconf CLK_TCK)
cpu() { awk '{ print $14 + $15 }' "/proc/$pid/stat"; }
c0=$(cpu); w0=$(mono_ns); f0=$(jget decoder.video_shown)
sleep $((10 * SCALE))
c1=$(cpu); w1=$(mono_ns); f1=$(jget decoder.video_shown)
rss=$(awk '/^VmHWM:/ { print $2 }' "/proc/$pid/status")
awk -v c="$((c1 - c0))" -v hz="$hz" -v w="$((w1 - w0))" -v f="$((f1 - f0))" -v rss="$rss" 'BEGIN {
	printf "figure vdr_ffdvbd_cpu %.1f percent\n", 100 * c / hz / (w / 1e9)
	printf "figure vdr_ffdvbd_rss_peak %d KiB\n", rss
	printf "figure vdr_replay_pictures_per_s %.1f pictures/s\n", f / (w / 1e9) }'
[ "$f1" -gt "$f0" ] 2> /dev/null || die "no picture shown during the replay"
svdrp HITK Stop
sleep 1
vdr_stop >&2
vdr_env_stop >&2

[ -n "$zap_streams" ] || exit 0
mkdir -p "$out/zap"
VM_OUT=$out/zap sh "$here/vdr-zap.sh" "$bin" - "$zap_streams" $((2 * SCALE)) > "$out/zap.txt" 2>&1 ||
	{ grep FAIL "$out/zap.txt" >&2; die "the zap run failed (tests/vm/vdr-zap.sh)"; }
for codec in MPEG2 H264 HEVC; do
	awk -v c=$codec '$1 == "zap_ms" && $2 == c { print $3 }' "$out/zap.txt" | sort -n |
		awk -v name="$(echo $codec | tr 'A-Z' 'a-z')" '{ v[NR] = $1 } END {
		if (NR == 0) exit 1
		printf "figure vdr_zap_%s_median %.1f ms\n", name, v[int((NR + 1) / 2)]
		printf "figure vdr_zap_%s_max %.1f ms\n", name, v[NR] }' || die "no zap to $codec judged"
done
