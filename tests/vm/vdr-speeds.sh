#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# usage: vdr-speeds.sh BINDIR STREAMDIR                 (inside the VM, as root: scripts/vm.sh)
# VDR's trick modes at each speed, judged by the pictures on screen (setup as vdr.sh,
# vdr-lib.sh; MultiSpeedMode = 1, so each FastFwd/FastRew key press selects the next speed).
# The 15 min recording vdr-video-speeds-15min (vdr-host.sh) has a known picture for every frame (ffmpeg's
# MD5 list), so each picture the headless record shows is a position in the recording: over
# each phase the positions must move in the right direction at the right kind of speed.
# Phases: play; fast forward at speeds 1, 2, 3 (each faster than the one before, all faster
# than real time); play; fast rewind at speeds 1, 2, 3 (backwards, each faster); play; slow
# motion forward at speeds 1, 2, 3 (VDR starts at its slowest, 1/8: each faster, all slower
# than real time); play (the sound, held by the pause, is dropped up to the picture instead of
# the picture waiting for it); slow rewind; play; a jump (SVDRP PLAY 1 00:00:45, or 00:00:15
# when the replay is near 45 s already). After each: DMX_GET_STC is the PTS of the picture on
# screen (what VDR reads as its replay position); the jump lands where it was sent; each trick
# phase ends with the card still in VDR's trick mode.
# Prints PASS/FAIL and "vdr-speeds.sh: N passed, M failed". The call trace is off (tracing
# every write slows a TCG guest); run by hand inside scripts/vm.sh with SPEEDS_NO_TRACE= (empty)
# to get it in $VM_OUT/trace.log.
set -u
bin=${1:?usage: vdr-speeds.sh BINDIR STREAMDIR}
streams=${2:?usage: vdr-speeds.sh BINDIR STREAMDIR}
here=$(cd "$(dirname "$0")" && pwd)
out=${VM_OUT:-$(mktemp -d)}
syslog=$out/syslog.log
log=$syslog
video=$streams/vdr-video-speeds-15min
script_name=vdr-speeds.sh
no_trace=${SPEEDS_NO_TRACE-1}
vdr_setup="MultiSpeedMode = 1
"
. "$here/lib.sh"
. "$here/vdr-lib.sh"
[ -d "$video" ] || { fail "setup: $video missing (vdr-host.sh makes it)"; finish; }
phases=$out/phases.txt
: > "$phases"
# phase NAME SECONDS: the time span of a phase, after half a second for the change to settle;
# also the STC at its end, when it was read, and the card's trick mode then (video.trick)
phase() {
	sleep 0.5
	_a=$(uptime_s)
	sleep "$2"
	_b=$(uptime_s)
	_s=$(json stc)
	echo "$1 $_a $_b $_s $(uptime_s) $(jget video.trick)" >> "$phases"
}

vdr_env_start
vdr_start
grep -q 'creating cDvbSdFfDevice' "$syslog"
check $? "vdr: 'creating cDvbSdFfDevice'"

# the whole key sequence, from the start of the recording
speeds_run() {
	svdrp PLAY 1 begin
	sleep 1
	phase play 2
	# (positions: play ends near 5 s; speeds 2, 4 and 12 move on by 7, 15 and 30 s in a TCG guest,
	# more when it is slow, as each phase lasts longer than its sleeps. In a trick mode VDR reads
	# I pictures ahead as far as its 5 MB buffer goes, here about 270 s of the recording; where
	# those reads reach an end of the recording, VDR's end handling takes over and it may switch
	# to play by itself. So fast forward runs from the start, the rewinds from 10 minutes in.)
	svdrp HITK FastFwd; phase ff1 2
	svdrp HITK FastFwd; phase ff2 2
	svdrp HITK FastFwd; phase ff3 1
	svdrp HITK Play
	phase play-ff 2
	svdrp PLAY 1 00:10:00
	sleep 1
	svdrp HITK FastRew; phase rew1 2
	svdrp HITK FastRew; phase rew2 2
	svdrp HITK FastRew; phase rew3 1
	svdrp HITK Play
	phase play-rew 2
	svdrp HITK Pause
	for i in 1 2 3; do svdrp HITK FastFwd; phase "slow$i" 3; done
	svdrp HITK Play
	phase play-slow 2
	svdrp HITK Pause
	svdrp HITK FastRew
	phase slowrew 8
	svdrp HITK Play
	phase play-slowrew 2
	# the jump: to 45 s, or to 15 s when the replay is already within 10 s of 45 s (wherever
	# the trick speeds left it; the STC in seconds is a near enough position, as the
	# recording's first PTS is 1.4 s), so that the landing is a jump in the positions
	_at=$(($(json stc) / 90000))
	if [ "$_at" -gt 35 ] && [ "$_at" -lt 55 ]; then jump_to=15; else jump_to=45; fi
	jump_at=$(uptime_s)
	svdrp PLAY 1 "00:00:$jump_to"
	sleep 1
	phase jump 2
}
# trick phases that ended with the card out of its trick mode (VIDEO_CONTINUE came without a
# key): VDR's player went to play by itself. dvbplayer.c does so only in its end-of-recording
# handling, which its read-ahead reaches long before the picture on screen does when the I
# pictures are small; the rewinds start 10 minutes in for that
speeds_run
left=$(awk '$1 ~ /^(ff|rew|slow)/ && $6 == "NONE" { printf "%s%s", n++ ? " " : "", $1 }' "$phases")
[ -z "$left" ]
check $? "trick phases: the card still in VDR's trick mode at the end of each (${left:-all})"
svdrp HITK Stop
wait_log 100 'dvbplayer thread ended'
check $? "Stop: the replay ended"
"$bin/ffdvbctl" record > /dev/null
check $? "ffdvbctl record"

# positions: "t index pts" for every picture shown, index in the recording (-1: not ffmpeg's)
grep -v '^#' "$video.framemd5" | awk -F', *' '{ print $6 }' > "$out/ffmpeg.md5"
grep '^picture' "$out/record/pictures.log" | awk '$6 == 0 { print $2, $3, $7 }' |
	awk 'NR == FNR { at[$1] = FNR - 1; next }
	     { printf "%.3f %d %s\n", $1 / 1e9, ($3 in at) ? at[$3] : -1, $2 }' \
		"$out/ffmpeg.md5" - > "$out/positions.txt"
bad=$(awk '$2 < 0' "$out/positions.txt" | wc -l)
[ "$bad" = 0 ] && [ -s "$out/positions.txt" ]
check $? "pictures: every one of $(wc -l < "$out/positions.txt") shown is a picture of the recording ($bad not)"

# speed of phase NAME: recording seconds moved per second on screen (by the pictures shown
# in its span: last position minus first over their time), and how many pictures it showed
speed() {
	awk -v n="$1" 'NR == FNR { if ($1 == n) { a = $2; b = $3 }; next }
		$1 >= a && $1 <= b { if (!k++) { t0 = $1; i0 = $2 } t1 = $1; i1 = $2 }
		END { if (k < 2 || t1 <= t0) print "nan", k + 0;
		      else printf "%.2f %d\n", (i1 - i0) / 25 / (t1 - t0), k }' "$phases" "$out/positions.txt"
}
: > "$out/speeds.txt"
for p in play ff1 ff2 ff3 play-ff rew1 rew2 rew3 play-rew slow1 slow2 slow3 play-slow \
	 slowrew play-slowrew jump; do
	set -- $(speed "$p")
	eval "v_$(echo "$p" | tr - _)=$1"
	echo "$p speed $1 pictures $2" >> "$out/speeds.txt"
done
# cmp A OP B: awk comparison of two speeds ("nan" never passes)
cmp() { awk -v a="$1" -v b="$3" -v op="$2" 'BEGIN {
	if (a == "nan" || b == "nan") exit 1
	if (op == ">") exit !(a + 0 > b + 0); if (op == "<") exit !(a + 0 < b + 0); exit 1 }'; }
within() { awk -v a="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(a != "nan" && a + 0 >= lo && a + 0 <= hi) }'; }

within "$v_play" 0.9 1.1
check $? "play: the pictures move at real time (speed $v_play)"
cmp "$v_ff1" ">" 1.2
check $? "FastFwd 1: faster than real time (speed $v_ff1)"
cmp "$v_ff2" ">" "$v_ff1"
check $? "FastFwd 2: faster than speed 1 ($v_ff2 > $v_ff1)"
cmp "$v_ff3" ">" "$v_ff2"
check $? "FastFwd 3: faster than speed 2 ($v_ff3 > $v_ff2)"
within "$v_play_ff" 0.9 1.1
check $? "Play after FastFwd: real time again (speed $v_play_ff)"
cmp "$v_rew1" "<" -0.5
check $? "FastRew 1: backwards (speed $v_rew1)"
cmp "$v_rew2" "<" "$v_rew1"
check $? "FastRew 2: backwards faster than speed 1 ($v_rew2 < $v_rew1)"
cmp "$v_rew3" "<" "$v_rew2"
check $? "FastRew 3: backwards faster than speed 2 ($v_rew3 < $v_rew2)"
within "$v_play_rew" 0.9 1.1
check $? "Play after FastRew: real time again (speed $v_play_rew)"
within "$v_slow1" 0.02 0.8
check $? "slow motion 1: forward, slower than real time (speed $v_slow1)"
cmp "$v_slow2" ">" "$v_slow1"
check $? "slow motion 2: faster than speed 1 ($v_slow2 > $v_slow1)"
cmp "$v_slow3" ">" "$v_slow2"
check $? "slow motion 3: faster than speed 2, slower than real time ($v_slow3 > $v_slow2)"
within "$v_slow3" 0.02 0.8
check $? "slow motion 3: slower than real time (speed $v_slow3)"
within "$v_play_slow" 0.9 1.1
check $? "Play after slow motion: real time again (speed $v_play_slow)"
within "$v_slowrew" -0.8 -0.02
check $? "slow rewind: backwards, slower than real time (speed $v_slowrew)"
within "$v_play_slowrew" 0.9 1.1
check $? "Play after slow rewind: real time again (speed $v_play_slowrew)"
within "$v_jump" 0.9 1.1
check $? "play after the jump: real time (speed $v_jump)"

# the jump: the first picture after the command more than a GOP (12) from the one before it
# (the old replay goes on until VDR acts on the command); VDR starts at the I picture at or
# before the time asked for
pos=$(awk -v t="$jump_at" '$1 > t && (prev - $2 > 12 || $2 - prev > 12) { print $2 / 25; exit }
	{ prev = $2 }' "$out/positions.txt")
within "${pos:-nan}" $((jump_to - 1)) $((jump_to + 1))
check $? "jump to 00:00:$jump_to: the first picture after it is at ${pos:-?} s of the recording"
# DMX_GET_STC against the picture on screen at the end of every phase (in a trick mode the
# STC follows the pictures): the PTS of a picture on screen while the STC was read, i.e. the
# last one shown before the read began or one shown during it; the nearest is reported
awk 'NR == FNR { a[$1] = $3; b[$1] = $5; stc[$1] = $4; order[++n] = $1; next }
	{ tt[++m] = $1; pp[m] = $3 }
	END { for (i = 1; i <= n; i++) { p = order[i]; best = -1; bd = -1
		for (j = 1; j <= m; j++) {
			if (tt[j] > b[p]) break
			if (tt[j] <= a[p] && j < m && tt[j + 1] <= a[p]) continue
			d = stc[p] - pp[j]; if (d < 0) d = -d
			if (bd < 0 || d < bd) { bd = d; best = pp[j] } }
		printf "%s stc %d pts %d\n", p, stc[p], best; if (bd < 0 || bd > 3600) bad++ }
	      exit bad > 0 }' "$phases" "$out/positions.txt" > "$out/stc-vs-picture.txt"
check $? "DMX_GET_STC: the PTS of the picture on screen after each phase, within a frame ($(awk '{ d = $3 - $5; if (d < 0) d = -d; if (d > 3600) n++ } END { print n + 0 }' "$out/stc-vs-picture.txt") of $(wc -l < "$phases") off)"
errs=$(vdr_log_errors)
[ "$errs" = 0 ]
check $? "vdr: no ERROR lines in its log ($errs)"

vdr_stop
vdr_env_stop
finish
