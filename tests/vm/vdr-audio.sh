#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# usage: vdr-audio.sh BINDIR STREAMDIR                  (inside the VM, as root: scripts/vm.sh)
# VDR's audio track switch in replay (setup as vdr.sh, vdr-lib.sh; docs/av7110.md, clients
# §2.6): the
# recording vdr-video-pace (vdr-host.sh) has an MP2 track of a 440 Hz tone and a Dolby (AC-3)
# track of a 1000 Hz tone. Over SVDRP: play, the Audio key, Down to the Dolby track, Ok; then
# back with Audio, Up, Ok. Judged by what is heard: the headless record's sound, cut by its
# time stamps, must in the last 3 s before each switch be the tone of the selected track and
# not silent (VDR sets the mixer to 0 for Dolby, expecting a digital output); by the decoder's
# codec; and by the calls VDR made (AUDIO_SET_MIXER, AUDIO_CLEAR_BUFFER).
# Prints PASS/FAIL and "vdr-audio.sh: N passed, M failed".
set -u
bin=${1:?usage: vdr-audio.sh BINDIR STREAMDIR}
streams=${2:?usage: vdr-audio.sh BINDIR STREAMDIR}
here=$(cd "$(dirname "$0")" && pwd)
out=${VM_OUT:-$(mktemp -d)}
syslog=$out/syslog.log
log=$syslog
video=$streams/vdr-video-pace
script_name=vdr-audio.sh
. "$here/lib.sh"
. "$here/vdr-lib.sh"
[ -d "$video" ] || { fail "setup: $video missing (vdr-host.sh makes it)"; finish; }

# track KEY CODEC WHAT: the Audio menu, KEY to the other track (none at the start), Ok; 6 s
# later the decoder must decode CODEC. Sets $t: when it was judged (uptime s)
track() {
	if [ "$1" != - ]; then
		svdrp HITK Audio; sleep 1; svdrp HITK "$1"; sleep 1; svdrp HITK Ok
	fi
	sleep 6
	_c=$(jget decoder.audio_codec)
	[ "$_c" = "$2" ]
	check $? "$3 (decoder: $_c)"
	t=$(uptime_s)
}

vdr_env_start
vdr_start
grep -q 'creating cDvbSdFfDevice' "$syslog"
check $? "vdr: 'creating cDvbSdFfDevice'"

svdrp PLAY 1 begin
track - mp2 "replay starts with the MP2 track"; t1=$t
track Down ac3 "Audio, Down, Ok: the Dolby track is decoded"; t2=$t
track Up mp2 "Audio, Up, Ok: back to the MP2 track"; t3=$t
echo "switches at $t1 $t2, end $t3 (uptime s)" > "$out/switch-times.txt"
svdrp HITK Stop
wait_log 100 'dvbplayer thread ended'
check $? "Stop: the replay ended"
ctl record > /dev/null
check $? "ffdvbctl record"

set -- $(tone "$t1")
near "$1" "$2" 440
check $? "before the switch: a 440 Hz tone is heard ($1 Hz, RMS $2, $3 s)"
set -- $(tone "$t2")
near "$1" "$2" 1000
check $? "Dolby track: a 1000 Hz tone is heard, not silenced by VDR's mixer 0 ($1 Hz, RMS $2, $3 s)"
set -- $(tone "$t3")
near "$1" "$2" 440
check $? "back to MP2: a 440 Hz tone is heard ($1 Hz, RMS $2, $3 s)"

vdr_stop
# (the trace drops lines when its reader falls behind: only presence is checked)
for want in 'AUDIO_SET_MIXER' 'AUDIO_CLEAR_BUFFER'; do
	grep -qF "$want" "$out/trace.log"
	check $? "trace: VDR called $want"
done
errs=$(vdr_log_errors)
[ "$errs" = 0 ]
check $? "vdr: no ERROR lines in its log ($errs)"
vdr_env_stop
finish
