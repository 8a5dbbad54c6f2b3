#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# usage: vdr-codecs.sh BINDIR STREAMDIR                 (inside the VM, as root: scripts/vm.sh)
# Replay of today's codecs in unmodified VDR 2.6 + dvbsddevice -o (set up as vdr.sh,
# vdr-lib.sh): the recordings STREAMDIR/vdr-codecs/H264-AAC (H.264 + AAC in ADTS, a 440 Hz tone)
# and HEVC-EAC3 (HEVC + E-AC-3 as a Dolby track, 1000 Hz), made by vdr-host.sh with the ffmpeg
# CLI and vdr --genindex. Each is played over SVDRP to its end; judged by the decoder's codecs,
# by the pictures shown (each equal to ffmpeg's decode of the recording, in order, up to the
# last ones) and by what is heard (the headless record's tone: frequency within 3 %, loud).
# ffdvbd drives qemu's display (--output drm on bochs-display) and plays through qemu's sound
# card (ALSA, Intel HDA): during each replay four screendumps are asked of the host, which judges
# them after the run (vdr-host.sh, capture-lib.sh), each against ffmpeg's pictures of both
# recordings, and the tones in the WAV qemu wrote of the card's output.
# Prints PASS/FAIL and "vdr-codecs.sh: N passed, M failed".
set -u
bin=${1:?usage: vdr-codecs.sh BINDIR STREAMDIR}
streams=${2:?usage: vdr-codecs.sh BINDIR STREAMDIR}
here=$(cd "$(dirname "$0")" && pwd)
out=${VM_OUT:-$(mktemp -d)}
syslog=$out/syslog.log
log=$syslog
video=$streams/vdr-codecs
script_name=vdr-codecs.sh
. "$here/lib.sh"
. "$here/vdr-lib.sh"
. "$here/capture-lib.sh"
for r in H264-AAC HEVC-EAC3; do
	[ -s "$video/$r.framemd5" ] || { fail "setup: $video/$r.framemd5 missing (vdr-host.sh)"; finish; }
done

capture_display_up
capture_sound_up
vdr_output=drm
vdr_env_start
grep -q 'sound on ALSA device default' "$out/ffdvbd.log"
check $? "daemon: --output drm, its sound on ALSA's default device (the HDA)"
vdr_start
grep -q 'creating cDvbSdFfDevice' "$syslog"
check $? "vdr: 'creating cDvbSdFfDevice'"
svdrp LSTR
cp "$out/svdrp.log" "$out/lstr.txt"

# replay TITLE VCODEC ACODEC HZ OTHER: plays the recording TITLE to its end and judges it; asks
# for four screendumps meanwhile, to be judged against TITLE's pictures and OTHER's
replay() {
	n=$(tr -d '\r' < "$out/lstr.txt" | sed -n "s/^250[- ]\([0-9]*\) .* $1\$/\1/p" | head -n 1)
	[ -n "$n" ]
	check $? "$1: SVDRP LSTR lists it (number $n)"
	log_mark
	svdrp PLAY "$n" begin
	t0=$(uptime_s)
	# the first picture comes within about 1.3 s of PLAY; the dumps 0.6 s apart (the host
	# takes each at once; with the TCG guest's overhead a loop turn took 1.2-1.5 s for a 1 s
	# sleep), all within the first 5 s: VDR may end the replay 3-4 s early (below; the
	# fourth dump of a 1 s spacing once came after the HEVC replay's end). Only the lines above
	# 320 of 576 are judged: VDR shows its channel display (the lower half, from line 325)
	# for 5 s after it starts, and the first replay begins within them
	sleep 1.4
	for k in 1 2 3 4; do
		sleep 0.6
		capture_ask "$1-$k"
		capture_expect match "$1-$k" --above 320 "$video/$1"/*.rec/00001.ts \
			"$video/$5"/*.rec/00001.ts
	done
	vc=$(jget decoder.video_codec) ac=$(jget decoder.audio_codec)
	[ "$vc" = "$2" ] && [ "$ac" = "$3" ]
	check $? "$1: the decoder decodes $2 and $3 (got $vc, $ac)"
	wait_log 900 'dvbplayer thread ended'
	check $? "$1: VDR's player reached the end by itself"
	t1=$(uptime_s)
	sleep 1
	ctl record > /dev/null
	check $? "$1: ffdvbctl record"
	# this replay's pictures: those shown between PLAY and the end
	mkdir -p "$out/$1"
	awk -v a="$t0" -v b="$t1" '$1 != "picture" || ($2 / 1e9 >= a && $2 / 1e9 <= b + 1)' \
		"$out/record/pictures.log" > "$out/$1/pictures.log"
	match_pictures "$out/$1/pictures.log" "$video/$1.framemd5" "$out/$1"
	ctl status > "$out/status-$1.txt" 2>&1
	grep '^decoder' "$out/status-$1.txt"
	# how many are shown is the TCG guest's CPU, that is the host's load: with the display and
	# the sound card emulated beside VDR's CUSE writes, pictures come late and are dropped
	# (counted in the status: 87-198 of 250 shown at load average 5-8 on the 2-core host,
	# 248-250 headless), so no share is asked, only a second's worth (25); what is judged is
	# that each one shown is right, in order, up to the end. The last one: VDR may end the
	# replay about 3 s early (docs/vdr.md, "The end of a short replay": the copies of the last
	# frame it writes at the end overflow its 500-entry PTS index while the card still holds
	# seconds of the recording: the HEVC replay's last picture was number 153 of 250 in a
	# loaded CI run, 175 in another); at least half way in
	[ "$pm_bad" = 0 ] && [ "$pm_twice" = 0 ] && [ "$pm_shown" -ge 25 ] &&
		[ "$pm_last" -ge $((pm_total / 2)) ]
	check $? "$1: $pm_shown pictures shown ($pm_bad not equal, $pm_twice twice), in order, each equal to ffmpeg's decode, the last shown number $pm_last of $pm_total"
	# shellcheck disable=SC2046 # three numbers
	set -- "$1" "$4" $(tone "$(awk -v a="$t0" 'BEGIN { print a + 8 }')")
	near "$3" "$4" "$2"
	check $? "$1: a $2 Hz tone is heard 4.5-7.5 s into the replay ($3 Hz, RMS $4, $5 s)"
	for k in 1 2 3 4; do
		capture_wait "$1-$k"
		check $? "$1: screendump $k taken by the host ($1-$k.ppm)"
	done
}
replay H264-AAC h264 aac 440 HEVC-EAC3
replay HEVC-EAC3 hevc eac3 1000 H264-AAC
capture_expect tones 440 1000
errs=$(vdr_log_errors)
[ "$errs" = 0 ]
check $? "vdr: no ERROR lines in its log ($errs)"
vdr_stop
vdr_env_stop
finish
