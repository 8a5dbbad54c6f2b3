#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# usage: vdr-pace.sh BINDIR STREAMDIR                   (inside the VM, as root: scripts/vm.sh)
# The device paces VDR's replay (setup as vdr.sh, vdr-lib.sh): VDR writes its recording as fast
# as video0/audio0 accept it, and the card accepts at the speed of its decoder's clock, so 60 s
# of recording take 60 s. The recording (vdr-video-pace, vdr-host.sh) has a low bit rate so
# that a TCG guest's CUSE round trips keep up with it (docs/vdr.md, "TCG speed"); no trace.
# Checks: the recording on screen (first picture to the end of the last, on the clock the headless
# record stamps pictures with) for 60 s +/- 1 s, the first picture within 2 s of PLAY, the end
# of the recording detected by VDR, the pictures equal to ffmpeg's decode in order, no ERROR
# lines. VM_OUT/figures.txt: the two times as `figure` lines.
# Prints PASS/FAIL and "vdr-pace.sh: N passed, M failed".
set -u
bin=${1:?usage: vdr-pace.sh BINDIR STREAMDIR}
streams=${2:?usage: vdr-pace.sh BINDIR STREAMDIR}
here=$(cd "$(dirname "$0")" && pwd)
out=${VM_OUT:-$(mktemp -d)}
syslog=$out/syslog.log
log=$syslog
video=$streams/vdr-video-pace
script_name=vdr-pace.sh
no_trace=1
. "$here/lib.sh"
. "$here/vdr-lib.sh"
[ -d "$video" ] || { fail "setup: $video missing (vdr-host.sh makes it)"; finish; }

vdr_env_start
vdr_start
grep -q 'creating cDvbSdFfDevice' "$syslog"
check $? "vdr: 'creating cDvbSdFfDevice'"

log_mark
t0=$(uptime_s)
svdrp PLAY 1 begin
grep -q '^250 Playing recording' "$out/svdrp.log"
check $? "SVDRP PLAY 1 begin"
# the card's state once a second, for the record when the pacing goes wrong
(while :; do echo "== $(uptime_s)"; ctl status; sleep 1; done) > "$out/status-during.txt" 2>&1 &
sampler=$!
wait_log 1500 'dvbplayer thread ended'
check $? "end of recording detected by VDR (its player thread ended by itself)"
kill "$sampler" 2> /dev/null
"$bin/ffdvbctl" status > "$out/status-end.txt" 2>&1
"$bin/ffdvbctl" record > /dev/null
check $? "ffdvbctl record"

pictures=$(grep -vc '^#' "$video.framemd5")
seconds=$(awk -v n="$pictures" 'BEGIN { printf "%.2f", n / 25 }')
# the presented pictures of this replay: output clock (ns), PTS, MD5, one line per time stamp
# (the first time it was shown; match_pictures below requires that none is shown twice).
grep '^picture' "$out/record/pictures.log" | awk '$6 == 0 { print $2, $3, $7 }' |
	awk '$2 != prev { print } { prev = $2 }' > "$out/shown.txt"
first=$(awk 'NR == 1 { printf "%.3f", $1 / 1e9 }' "$out/shown.txt")
last=$(awk 'END { printf "%.3f", $1 / 1e9 }' "$out/shown.txt")
start=$(awk -v a="$t0" -v f="${first:-0}" 'BEGIN { printf "%.2f", f - a }')
# on screen from the first picture to the end of the last one (one frame period after it)
took=$(awk -v f="${first:-0}" -v l="${last:-0}" 'BEGIN { printf "%.2f", l - f + 0.04 }')
# the start: VDR opens the recording and fills the card's buffers; slow in a TCG guest
awk -v s="$start" 'BEGIN { exit !(s >= 0 && s <= 2) }'
check $? "start: the first picture on screen $start s after PLAY (at most 2 s)"
awk -v t="$took" -v c="$seconds" 'BEGIN { d = t - c; exit !(d >= -1 && d <= 1) }'
check $? "pacing: $seconds s of recording were on screen for $took s (+/- 1 s), paced by the card"
echo "figure vdr_replay_start $start s" > "$out/figures.txt"
echo "figure vdr_replay_60s $took s" >> "$out/figures.txt"

match_pictures "$out/record/pictures.log" "$video.framemd5" "$out"
# each shown picture is ffmpeg's in order; a TCG guest under load may drop a few late ones
[ "$pm_bad" = 0 ] && [ "$pm_twice" = 0 ] && [ "$pm_shown" -ge $((pm_total * 95 / 100)) ]
check $? "pictures: $pm_shown of $pm_total shown (at least 95%), in order, each ffmpeg's ($pm_bad not, $pm_twice shown twice: VDR's copies of its last frame are dropped)"
# (the last picture in display order may stay in the decoder: MPEG-2 sends it before the two
# B pictures shown ahead of it, and VDR's repeats of its last frame keep the decoder from
# draining until VDR stops the replay)
[ "$pm_last" -ge $((pictures - 2)) ]
check $? "end of recording: the last picture shown is number $pm_last of $pictures"
errs=$(vdr_log_errors)
[ "$errs" = 0 ]
check $? "vdr: no ERROR lines in its log ($errs)"

vdr_stop
vdr_env_stop
finish
