#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The `devices` benchmark suite, run as root inside the test VM by bench/run.sh:
#   devices-guest.sh BIN_DIR SCALE STREAM
# ffdvbd drives qemu's bochs-display through KMS (--output drm, 640x480) and plays its sound into the
# ALSA loopback card (snd-aloop); ffdvb-play plays STREAM (avsync.ts's pattern, 352x288, 20 s x SCALE: a
# white picture and a tone burst at the same PTS once a second); ffdvb-bench-devices-probe,
# outside the daemon, times the white pictures as the CRTC scans them out and the bursts as
# they leave the playback buffer. Figures: the A/V offset at the devices (mean and worst), and
# what ffdvbctl status says the devices add (sound the device holds, picture handed over to
# its flip) with the daemon's own A/V offset for comparison.
set -u
BIN=${1:?usage: devices-guest.sh BIN_DIR SCALE STREAM}
SCALE=${2:-1}
STREAM=${3:?usage: devices-guest.sh BIN_DIR SCALE STREAM}
LOG=/tmp/ffdvb-bench-devices.log
fail() { echo "bench devices: $*" >&2; [ -s "$LOG" ] && cat "$LOG" >&2; exit 1; }
[ -c /dev/cuse ] || modprobe cuse
modprobe bochs 2> /dev/null
modprobe snd-aloop 2> /dev/null
i=0
until [ -c /dev/dri/card0 ] && [ -e /proc/asound/Loopback ]; do
	[ $i -ge 100 ] && fail "no /dev/dri/card0 (bochs) or ALSA Loopback card (snd-aloop)"
	i=$((i + 1))
	sleep 0.1
done
"$BIN/ffdvbd" --adapter 0 --foreground --output drm --size 640x480 --audio-device hw:Loopback,0,0 2> "$LOG" &
pid=$!
trap 'kill $pid 2> /dev/null; wait $pid 2> /dev/null' EXIT
i=0
until "$BIN/ffdvbctl" status > /dev/null 2>&1; do
	[ $i -ge 600 ] && fail "ffdvbd did not start"
	i=$((i + 1))
	sleep 0.1
done
grep -q 'sound on ALSA device hw:Loopback,0,0' "$LOG" || fail "ffdvbd did not open the loopback"
secs=$((20 * SCALE))
"$BIN/ffdvb-bench-devices-probe" $((secs + 6)) hw:Loopback,1,0 > /tmp/probe.out &
probe=$!
sleep 1
"$BIN/ffdvb-play" "$STREAM" > /tmp/play.out 2>&1 || fail "ffdvb-play: $(cat /tmp/play.out)"
"$BIN/ffdvbctl" status --json > /tmp/status.json
wait $probe || fail "the probe failed: $(cat /tmp/probe.out)"
grep '^pair' /tmp/probe.out | tr '\n' ' ' >&2
echo >&2
grep '^figure' /tmp/probe.out
python3 - /tmp/status.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))["decoder"]
print("figure audio_device_ms %.1f ms" % d["audio_device_ms"])
print("figure picture_due_to_flip_ms %.1f ms" % d["video_device_ms"])
print("figure av_offset_daemon_ms %d ms" % d["av_offset_ms"])
print("figure video_dropped %d count" % d["video_dropped"])
PY
