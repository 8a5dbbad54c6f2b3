#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# usage: mplayer.sh BINDIR STREAMDIR                    (inside the VM, as root: scripts/vm.sh)
# Unmodified MPlayer 1.5 on the emulated adapter: `mplayer -vo mpegpes -ao mpegpes -vc mpegpes`
# plays an ffmpeg-made MPEG-2 + MP2 program stream (video passed through as PES, sound decoded
# by MPlayer and sent as LPCM, each PES as two writes) into ffdvbd --output none --record.
# Checks: MPlayer exits 0, is paced by the device (never faster than the content), plays in
# real time (pictures on screen for their content's duration, within 2%), every presented
# picture equals ffmpeg's decode in order, the LPCM sound is all there.
set -u
bin=${1:?usage: mplayer.sh BINDIR STREAMDIR}
streams=${2:?usage: mplayer.sh BINDIR STREAMDIR}
here=$(cd "$(dirname "$0")" && pwd)
out=${VM_OUT:-$(mktemp -d)}
log=$out/ffdvbd.log
script_name=mplayer.sh
. "$here/../vm/lib.sh"
stream=$streams/mplayer-20s.mpg
[ -s "$stream.framemd5" ] || { fail "setup: $stream.framemd5 missing (mplayer-host.sh makes it)"; finish; }
[ -c /dev/cuse ] || modprobe cuse
mkdir -p "$out/record"
"$bin/ffdvbd" --foreground --output none --record "$out/record" -v > "$log" 2>&1 &
pid=$!
i=0
until "$bin/ffdvbctl" status > /dev/null 2>&1 || [ $i -gt 300 ]; do i=$((i + 1)); sleep 0.1; done
"$bin/ffdvbctl" status > /dev/null 2>&1
check $? "daemon: ready"

pictures=$(grep -vc '^#' "$stream.framemd5")
duration=$(awk -v n="$pictures" 'BEGIN { printf "%.2f", n / 25 }')
start=$(date +%s.%N)
timeout 120 mplayer -nolirc -noconsolecontrols -nojoystick -nomouseinput -vo mpegpes -ao mpegpes \
	-vc mpegpes -quiet "$stream" < /dev/null > "$out/mplayer.out" 2>&1
rc=$?
end=$(date +%s.%N)
check $rc "mplayer: exit status 0 (got $rc)"
took=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }')
# paced by blocking writes to video0; MPlayer's own start-up adds to it (slow under TCG)
awk -v t="$took" -v d="$duration" 'BEGIN { exit !(t >= d - 1) }'
check $? "pacing: $duration s of stream took $took s (at least $duration - 1)"
sleep 1.5 # the decoder drains the last pictures after 1 s without data

"$bin/ffdvbctl" record > /dev/null
check $? "ffdvbctl record"
# real time: from the first picture on screen to the last, the output clock (ns, the record's
# stamps) against the content between them (their PTS), within 2%. MPlayer's own start-up is
# not playback (seconds in a TCG guest), so it is left out of this figure.
span=$(grep '^picture' "$out/record/pictures.log" | awk '$6 == 0' | awk 'NR == 1 { t0 = $2; p0 = $3 }
	{ t = $2; p = $3 } END { if (NR > 1) printf "%.2f %.2f", (t - t0) / 1e9, (p - p0) / 90000 }')
wall=${span% *}; content=${span#* }
awk -v w="${wall:-0}" -v c="${content:-0}" 'BEGIN { exit !(c > 0 && w >= c * 0.98 && w <= c * 1.02) }'
check $? "real time: $content s of content on screen in $wall s (within 2%)"
match_pictures "$out/record/pictures.log" "$stream.framemd5" "$out"
# Every picture shown is ffmpeg's, in order. How many are shown depends on the machine: when
# the (emulated) CPU falls behind real time the presenter drops late pictures, as a player
# must, and counts them; what was decoded must still be (nearly) the whole stream.
decoded=$("$bin/ffdvbctl" status --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["decoder"]["video_decoded"])')
[ "$pm_bad" = 0 ] && [ "$pm_twice" = 0 ] && [ "$pm_shown" -ge $((pm_total / 2)) ] &&
	[ "${decoded:-0}" -ge $((pm_total * 95 / 100)) ]
check $? "pictures: $pm_shown presented ($pm_bad not equal), in order, each equal to ffmpeg's decode; $decoded decoded ($pm_total in the stream)"
samples=$(($(stat -c %s "$out/record/sound.s16") / 4))
want=$(awk -v d="$duration" 'BEGIN { printf "%d", (d - 0.5) * 48000 * 0.9 }')
[ "$samples" -ge "$want" ]
check $? "sound: $samples samples played (at least $want)"
"$bin/ffdvbctl" status > "$out/status.txt" 2>&1
grep -q 'audio.*lpcm\|pcm' "$out/status.txt"
check $? "status: the sound was LPCM ($(grep '^decoder' "$out/status.txt"))"
stop_daemon "$pid"
finish
