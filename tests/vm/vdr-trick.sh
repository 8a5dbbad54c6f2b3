#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# usage: vdr-trick.sh BINDIR STREAMDIR                  (inside the VM, as root: scripts/vm.sh)
# VDR's trick modes on the emulated adapter (setup as vdr.sh, vdr-lib.sh), driven over SVDRP
# on the 15 min recording of vdr-speeds.sh (on the 60 s one, a slow guest's fast forward ran
# to its end before the fast rewind, and VDR ended the replay there), each judged by DMX_GET_STC (the PTS of the picture on screen) against
# the wall clock and by the calls VDR made (docs/av7110.md, clients §2.6): fast forward (faster
# than real
# time), fast rewind (backwards), slow motion (slower than real time), skip back 60 s (Green),
# a still picture from the editing keys (Pause, 3: VIDEO_STILLPICTURE), Stop (pmNone).
# Prints PASS/FAIL and "vdr-trick.sh: N passed, M failed".
set -u
bin=${1:?usage: vdr-trick.sh BINDIR STREAMDIR}
streams=${2:?usage: vdr-trick.sh BINDIR STREAMDIR}
here=$(cd "$(dirname "$0")" && pwd)
out=${VM_OUT:-$(mktemp -d)}
syslog=$out/syslog.log
log=$syslog
video=$streams/vdr-video-speeds-15min
script_name=vdr-trick.sh
. "$here/lib.sh"
. "$here/vdr-lib.sh"
[ -d "$video" ] || { fail "setup: $video missing (vdr-host.sh makes it)"; finish; }

vdr_env_start
vdr_start
grep -q 'creating cDvbSdFfDevice' "$syslog"
check $? "vdr: 'creating cDvbSdFfDevice'"

# STC change over about 2 s of wall time: sets $d (ticks) and $w (wall ticks)
measure() {
	_a=$(now); _s1=$(json stc); sleep 2; _b=$(now); _s2=$(json stc)
	d=$((_s2 - _s1)); w=$(ticks "$_a" "$_b")
	echo "$1: stc $_s1 -> $_s2 ($d) in $w" >> "$out/measure.log"
}

svdrp PLAY 1 begin
sleep 3
measure play
[ "$d" -gt 0 ] && [ "$d" -le $((w + w / 10 + 9000)) ]
check $? "play: STC advances, not faster than real time ($d in $w)"

svdrp HITK FastFwd
sleep 1
measure fastfwd
[ "$d" -gt $((w * 3 / 2)) ]
check $? "FastFwd: STC runs faster than real time ($d in $w)"
svdrp HITK Play
sleep 1
measure play2
[ "$d" -gt 0 ] && [ "$d" -le $((w + w / 10 + 9000)) ]
check $? "Play after FastFwd: normal speed again ($d in $w)"

svdrp HITK FastRew
sleep 1
measure fastrew
[ "$d" -lt 0 ]
check $? "FastRew: STC runs backwards ($d in $w)"
svdrp HITK Play
sleep 1
measure play3
[ "$d" -gt 0 ] && [ "$d" -le $((w + w / 10 + 9000)) ]
check $? "Play after FastRew: forward at normal speed ($d in $w)"

svdrp HITK Pause
sleep 0.5
svdrp HITK FastFwd
sleep 1
measure slow
[ "$d" -gt 0 ] && [ "$d" -lt $((w * 3 / 4)) ]
check $? "Pause + FastFwd: slow motion, slower than real time ($d in $w)"
svdrp HITK Play
sleep 1

s1=$(json stc)
svdrp HITK Green
sleep 2
s2=$(json stc)
[ "$s2" -lt "$s1" ]
check $? "Green (skip back): STC went back ($s1 -> $s2)"

svdrp HITK Pause
sleep 1
still0=$("$bin/ffdvbctl" status --json | sed -n 's/.*"last_still":{"size":\([0-9]*\).*/\1/p')
svdrp HITK 3
sleep 2
still1=$("$bin/ffdvbctl" status --json | sed -n 's/.*"last_still":{"size":\([0-9]*\).*/\1/p')
[ "${still1:-0}" -gt 0 ]
check $? "Pause + 3: a still picture reached the card (last_still size ${still0:-?} -> ${still1:-?})"
"$bin/ffdvbctl" screenshot "$out/shot-still.png"
check $? "screenshot of the still picture"

svdrp HITK Stop
wait_log 100 'dvbplayer thread ended'
check $? "Stop: the replay ended"
sleep 1
errs=$(vdr_log_errors)
[ "$errs" = 0 ]
check $? "vdr: no ERROR lines in its log ($errs)"
vdr_stop
for want in 'VIDEO_SLOWMOTION(1) = 0' 'VIDEO_SLOWMOTION(2) = 0' 'VIDEO_STILLPICTURE' \
	    'VIDEO_CLEAR_BUFFER' 'AUDIO_SET_MUTE(1) = 0' 'VIDEO_STOP(1) = 0'; do
	grep -qF "$want" "$out/trace.log"
	check $? "trace: VDR called $want"
done
vdr_env_stop
finish
