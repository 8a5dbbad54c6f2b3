#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# usage: eac3-pass.sh BINDIR STREAM       (inside scripts/vm.sh, started by eac3-pass-host.sh)
# E-AC-3 to an AV receiver: ffdvbd (--output drm on qemu's bochs-display) with
# --audio-passthrough eac3 plays an MPEG-2 + E-AC-3 stream written by devplay.py to the kernel's
# loopback sound card (snd-aloop): its bursts need a 192 kHz link, beyond qemu's HDA codec
# (96 kHz at most). arecord takes what the card carried from its other end, once the daemon has
# moved the device to 192 kHz (the loopback fixes the rate for both ends), into a WAV for the
# host to judge (devices-judge.py bursts ... eac3).
set -u
bin=${1:?usage: eac3-pass.sh BINDIR STREAM}
stream=${2:?usage: eac3-pass.sh BINDIR STREAM}
out=${VM_OUT:?run inside scripts/vm.sh}
here=$(dirname "$0")
script_name=eac3-pass.sh
log=$out/ffdvbd.log
. "$here/lib.sh"
ctl() { "$bin/ffdvbctl" "$@"; }
[ -c /dev/cuse ] || modprobe cuse

modprobe bochs 2> /dev/null
wait_for '[ -c /dev/dri/card0 ]' 50
check $? "/dev/dri/card0 (bochs DRM driver)"
modprobe snd-aloop 2> /dev/null
wait_for '[ -c /dev/snd/pcmC0D0p ] && grep -q Loopback /proc/asound/cards' 100
check $? "snd-aloop: the loopback card is card 0"
"$bin/ffdvbd" --adapter 0 --foreground --output drm --audio-device hw:Loopback,0,0 \
	--audio-passthrough eac3 > "$log" 2>&1 &
pid=$!
wait_for 'ctl status' 600
check $? "daemon ready"
grep -q 'sound on ALSA device hw:Loopback,0,0' "$log"
check $? "--audio-device hw:Loopback,0,0 opened"

python3 "$here/devplay.py" 0 "$stream" "$out/devplay-events.log" > "$out/devplay.out" 2>&1 &
ppid=$!
wait_for "grep -q 'sound device at 192000 Hz' '$log'" 300
check $? "the daemon moved the sound device to 192 kHz for the E-AC-3 bursts"
# into guest memory with 2 s of buffer: 768 kB/s through the results share (9p) under TCG would
# overrun the capture, and a lost stretch would look like lost bursts
wav=/dev/shm/eac3.wav
arecord -q -D hw:Loopback,1,0 -f S16_LE -c 2 -r 192000 --buffer-time=2000000 -t wav -d 20 \
	"$wav" > "$out/arecord.log" 2>&1 &
rpid=$!
wait $ppid
check $? "devplay.py played the stream ($(cat "$out/devplay.out"))"
sleep 2 # the last write returns with up to a second of sound still queued: let it play
kill -INT "$rpid" 2> /dev/null
wait "$rpid"
cp "$wav" "$out/eac3.wav"
[ -s "$out/eac3.wav" ] && ! grep -q overrun "$out/arecord.log"
check $? "arecord took the loopback's other end without an overrun ($(wc -c < "$out/eac3.wav") bytes; $(cat "$out/arecord.log"))"
alive "$pid"
check $? "the daemon survived"
ctl status > "$out/status.txt" 2>&1
grep -i 'passthrough\|^decoder' "$out/status.txt"
stop_daemon "$pid"
finish
