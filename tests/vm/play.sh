#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# usage: play.sh BINDIR STREAMDIR [DAEMON]              (inside the VM, as root: scripts/vm.sh)
# Playback through the real kernel: ffdvbd (headless, recording what it presents) and the
# ffdvb-play client, which writes a transport stream to video0/audio0 as VDR does (188-byte
# blocking writes) with a text message on osd0. Checks: the client is paced by the device (the
# writes of a stream take about its duration), every picture is presented in order and equals
# the ffmpeg CLI's decode of the same file (MD5 list made on the host: STREAM.framemd5),
# the sound is all there, `ffdvbctl screenshot` writes a 720x576 PNG, `status --json` counts
# the pictures, and the daemon exits cleanly. Prints PASS/FAIL and "N passed, M failed".
set -u
bin=${1:?usage: play.sh BINDIR STREAMDIR [DAEMON]}
streams=${2:?usage: play.sh BINDIR STREAMDIR [DAEMON]}
daemon=${3:-ffdvbd}
out=${VM_OUT:-$(mktemp -d)}
rec=$out/record
log=$out/$daemon-play.log
stream=$streams/vm_play.ts
script_name=play.sh
. "$(dirname "$0")/lib.sh"
for f in "$daemon" ffdvbctl ffdvb-play; do
  [ -x "$bin/$f" ] || { fail "setup: $bin/$f is not built"; finish; }
done
[ -s "$stream" ] && [ -s "$stream.framemd5" ] || { fail "setup: $stream(.framemd5) missing"; finish; }
[ -c /dev/cuse ] || modprobe cuse
mkdir -p "$rec"

ASAN_OPTIONS=halt_on_error=1:detect_leaks=1:exitcode=66
export ASAN_OPTIONS
"$bin/$daemon" --foreground --output none --record "$rec" > "$log" 2>&1 &
pid=$!
i=0
until "$bin/ffdvbctl" status > /dev/null 2>&1 || [ $i -gt 200 ]; do i=$((i + 1)); sleep 0.1; done
"$bin/ffdvbctl" status > /dev/null 2>&1
check $? "daemon: ready"

# the stream's duration from its PTS (host-made list: one line per picture, 25 fps)
pictures=$(grep -vc '^#' "$stream.framemd5")
duration=$(awk -v n="$pictures" 'BEGIN { printf "%.2f", n / 25 }')
"$bin/ffdvbctl" trace > "$out/trace.log" 2>&1 &
tracer=$!
sleep 0.5
start=$(date +%s.%N)
"$bin/ffdvb-play" --osd "ffdvb says hello" --hold 1 "$stream" > "$out/play.out" 2>&1 &
ppid=$!
sleep 1.5
"$bin/ffdvbctl" screenshot "$out/shot.png"
check $? "ffdvbctl screenshot while playing"
wait $ppid
check $? "ffdvb-play: exit status 0 ($(cat "$out/play.out"))"
written=$(sed -n 's/^played [0-9]* bytes in \([0-9.]*\) s$/\1/p' "$out/play.out")
end=$(date +%s.%N)
# paced by the device: the writes cannot run ahead of real time by more than the buffers
# hold (< 1.5 s). They may take longer when a busy host starves the TCG guest: not checked.
awk -v w="${written:-0}" -v d="$duration" 'BEGIN { exit !(w >= d - 1.5) }'
check $? "pacing: the writes of $duration s of stream took ${written:-?} s (at least $duration - 1.5)"

# the PNG: signature and IHDR size 720x576
sig=$(od -An -tx1 -N8 "$out/shot.png" 2>/dev/null | tr -d ' \n')
[ "$sig" = 89504e470d0a1a0a ]
check $? "screenshot: a PNG file"
dims=$(od -An -tu1 -j16 -N8 "$out/shot.png" 2>/dev/null | awk '{ print $3 * 256 + $4 "x" $7 * 256 + $8 }')
[ "$dims" = 720x576 ]
check $? "screenshot: 720x576 (got $dims)"

"$bin/ffdvbctl" record > /dev/null
check $? "ffdvbctl record"
match_pictures "$rec/pictures.log" "$stream.framemd5" "$out"
# in order and each equal to ffmpeg's picture; a TCG guest that falls behind real time (a busy
# host) drops late pictures as a player must, so up to 5% may be missing, none out of place
[ "$pm_bad" = 0 ] && [ "$pm_twice" = 0 ] && [ "$pm_shown" -ge $((pm_total * 95 / 100)) ]
check $? "pictures: $pm_shown presented, in order, each equal to ffmpeg's decode ($pm_total pictures)"
samples=$(($(stat -c %s "$rec/sound.s16") / 4))
want=$(awk -v d="$duration" 'BEGIN { printf "%d", d * 48000 * 0.95 }')
[ "$samples" -ge "$want" ]
check $? "sound: $samples samples played (at least $want)"
"$bin/ffdvbctl" status --json > "$out/status.json"
shown=$(sed -n 's/.*"video_shown":\([0-9]*\).*/\1/p' "$out/status.json")
[ "${shown:-0}" -ge $((pictures * 95 / 100)) ] && [ "${shown:-0}" -eq "$(wc -l < "$out/ours.md5")" ]
check $? "status: video_shown ${shown:-?} = the pictures recorded"

# the OSD message of ffdvb-play stays after it closed osd0, as on the card: window 1, 600x48
# (before the scripted client below, whose final reset closes every window)
mkdir -p "$out/osd"
"$bin/ffdvbctl" osd-dump "$out/osd" > "$out/osd-dump.out"
check $? "ffdvbctl osd-dump ($(head -1 "$out/osd-dump.out"))"
odims=$(od -An -tu1 -j16 -N8 "$out/osd/window-1.png" 2>/dev/null | awk '{ print $3 * 256 + $4 "x" $7 * 256 + $8 }')
[ "$odims" = 600x48 ]
check $? "osd-dump: window-1.png is 600x48 (got $odims)"

# the call trace of the client, and of a scripted one that gets errnos (read-only openers)
"$bin/ffdvb-conform" --only readonly /dev/dvb/adapter0 > "$out/conform-readonly.log" 2>&1
sleep 0.5
kill "$tracer" 2>/dev/null
wait "$tracer" 2>/dev/null
tr='adapter0/video0#[0-9]*'
for want in "$tr open(O_RDWR) = 0" "$tr ioctl VIDEO_SELECT_SOURCE(1) = 0" "$tr ioctl VIDEO_PLAY(0) = 0" \
            "adapter0/audio0#[0-9]* ioctl AUDIO_SET_AV_SYNC(1) = 0" "$tr write(188) = 188" \
            "adapter0/osd0#[0-9]* ioctl OSD_SEND_CMD({...}, 17 bytes) = 0" \
            "adapter0/demux0#[0-9]* ioctl DMX_GET_STC({...}) = 0" "$tr close" \
            "$tr open(O_RDONLY|O_NONBLOCK) = 0" "$tr ioctl VIDEO_PLAY(1) = -EPERM" \
            "$tr ioctl VIDEO_GET_STATUS({...}) = 0"; do
  grep -q " $want\$" "$out/trace.log"
  check $? "trace: a line '$want'"
done

stop_daemon "$pid"
finish
