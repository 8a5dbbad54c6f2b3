#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# usage: devices.sh BINDIR STREAMDIR        (inside scripts/vm.sh, started by devices-host.sh)
# The presentation paths a person meets, on real device drivers of the guest kernel: ffdvbd with
# --output window and --output fullscreen on an X server (Xvfb, SDL's x11 driver, Mesa's GL
# renderer), --output kmsdrm (SDL, GL) and --output drm (KMS dumb buffers, no GL) on qemu's
# bochs-display (the kernel's bochs DRM driver), the latter with its sound through ALSA on qemu's
# Intel HDA (snd-hda-intel); --output auto picks drm there. Each output plays the test stream with
# ffdvb-play and an OSD message; the screen is captured outside the daemon: xwd from the X
# server, qemu's monitor (screendump, asked of the host through the results share) for the
# console; the console part runs again on virtio-vga (the virtio_gpu DRM driver) in a second
# boot. The sound is what qemu's HDA played into a WAV on the host. The host judges the
# captures and the WAV after the run (devices-host.sh); here: the daemon survives every output,
# reports the output it was asked for, and the captures exist.
set -u
bin=${1:?usage: devices.sh BINDIR STREAMDIR}
streams=${2:?usage: devices.sh BINDIR STREAMDIR}
out=${VM_OUT:?run inside scripts/vm.sh}
here=$(dirname "$0")
script_name=devices.sh
log=
. "$here/lib.sh"
. "$here/capture-lib.sh"
stream=$streams/vm_devices.ts
ac3=$streams/vm_devices_ac3.ts
ctl() { "$bin/ffdvbctl" "$@"; }
[ -c /dev/cuse ] || modprobe cuse


# start_daemon KIND [ARGS]: ffdvbd on adapter 0 with --output KIND
start_daemon() {
	log=$out/ffdvbd-$1.log
	kind=$1
	shift
	"$bin/ffdvbd" --adapter 0 --foreground --output "$kind" "$@" > "$log" 2>&1 &
	pid=$!
	wait_for 'ctl status' 600
	check $? "$kind: daemon ready"
	shown=$(ctl status --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["decoder"]["output"])')
	[ "$shown" = "$kind" ] || [ "$kind" = auto ]
	check $? "$kind: ffdvbctl status says output '$shown'"
}

# play_then CAPTURE: ffdvb-play with an OSD message and the stream, then CAPTURE (a command)
# once the stream is written and its last pictures are on screen (the picture stands still)
play_then() {
	"$bin/ffdvb-play" --osd "ffdvb says hello" --hold 4 "$stream" > "$out/play-$kind.out" 2>&1 &
	ppid=$!
	wait_for "grep -q '^played' '$out/play-$kind.out'" 900
	check $? "$kind: ffdvb-play wrote the stream ($(cat "$out/play-$kind.out"))"
	sleep 1
	eval "$1"
	check $? "$kind: the screen captured outside the daemon"
	wait $ppid
	check $? "$kind: ffdvb-play exit status 0"
	alive "$pid"
	check $? "$kind: the daemon survived the playback"
	ctl status > "$out/status-$kind.txt" 2>&1
	grep '^decoder' "$out/status-$kind.txt"
}

# asks the host for a qemu screendump to $out/NAME.ppm and waits for it
screendump() { capture_ask "$1" && capture_wait "$1"; }

parts=${DEVICES_PARTS:-x11 console} # x11, console (bochs, with sound) or virtio
# ---- X11: window and fullscreen on Xvfb (a 4:3 screen, 1024x768) --------------------------------
case $parts in *x11*)
# -noreset: the X server would reset whenever its last client (xwd, SDL's probe) leaves
Xvfb :1 -noreset -screen 0 1024x768x24 -nolisten tcp > "$out/xvfb.log" 2>&1 &
xpid=$!
export DISPLAY=:1
wait_for 'xwd -root -silent > /dev/null' 300
check $? "Xvfb :1 runs"

start_daemon window --no-audio
play_then "xwd -silent -name ffdvb > '$out/window.xwd'"
stop_daemon "$pid"

start_daemon fullscreen --no-audio
play_then "xwd -silent -root > '$out/fullscreen.xwd'"
stop_daemon "$pid"
kill "$xpid"
wait "$xpid" 2> /dev/null
unset DISPLAY
;; esac

# ---- the console: KMSDRM and drm on qemu's virtual GPU, sound on qemu's Intel HDA ---------------
case $parts in *virtio*) gpu=virtio; drv=virtio_gpu; sfx=-virtio ;; *) gpu=bochs; drv=bochs; sfx= ;; esac
capture_display_up $drv
case $parts in *passthrough*)
	# AC-3 to an AV receiver: IEC 61937 bursts on the HDA (a boot of its own, so that its WAV
	# holds nothing else); the mixer at 0 as VDR sets it for Dolby must not touch them
	capture_sound_up
	start_daemon drm --audio-device hw:0,0 --audio-passthrough ac3
	grep -q 'sound on ALSA device hw:0,0' "$log"
	check $? "passthrough: --audio-device hw:0,0 opened"
	python3 "$here/devplay.py" 0 "$ac3" "$out/sound-events-pass.log" 0:mixer0,0 \
		> "$out/devplay-pass.out" 2>&1
	check $? "passthrough: devplay.py plays the AC-3 stream, mixer 0 ($(cat "$out/devplay-pass.out"))"
	sleep 2 # the last write returns with up to a second of sound still queued: let it play
	alive "$pid"
	check $? "passthrough: the daemon survived"
	stop_daemon "$pid"
	finish ;;
esac
case $parts in *console*|*virtio*) ;; *) finish ;; esac

start_daemon kmsdrm --no-audio
play_then "screendump kmsdrm$sfx"
stop_daemon "$pid"

# auto on a console whose GL would be Mesa's software renderer (no Mesa driver for bochs, no
# 3D for virtio-gpu without virgl): drm
start_daemon auto --no-audio
[ "$shown" = drm ]
check $? "auto: on $gpu (GL only in software) the console is driven by drm ($shown)"
stop_daemon "$pid"

if [ "$gpu" = virtio ]; then
	start_daemon drm --no-audio
	play_then "screendump drm$sfx"
	stop_daemon "$pid"
	finish
fi

capture_sound_up
start_daemon drm
grep -q 'sound on ALSA device default' "$log"
check $? "drm: the daemon opened ALSA's default device"
play_then "screendump drm"
# the sound as a user changes it: muted after 3 s for 2 s, then half volume
python3 "$here/devplay.py" 0 "$stream" "$out/sound-events.log" 3:mute1 5:mute0 7:mixer128,128 \
	> "$out/devplay.out" 2>&1
check $? "alsa: devplay.py: mute, unmute, mixer 128 ($(cat "$out/devplay.out"))"
alive "$pid"
check $? "drm: the daemon survived the playback"
stop_daemon "$pid"
# AC-3 (5.1, 440 Hz) decoded and heard as PCM, on the device named by --audio-device
start_daemon drm --audio-device plughw:0,0
grep -q 'sound on ALSA device plughw:0,0' "$log"
check $? "alsa: --audio-device plughw:0,0 opened"
python3 "$here/devplay.py" 0 "$ac3" "$out/sound-events-ac3.log" > "$out/devplay-ac3.out" 2>&1
check $? "alsa: devplay.py plays the AC-3 stream ($(cat "$out/devplay-ac3.out"))"
ctl status | grep '^decoder'
# what the devices add, as ffdvbctl status shows it: the sound the HDA's buffer holds (ALSA's
# delay, the daemon asks for 50 ms) and the page flip's latency
lat=$(ctl status --json | python3 -c 'import json,sys; d=json.load(sys.stdin)["decoder"]; print(d["audio_device_ms"], d["video_device_ms"])')
echo "devices: sound ${lat% *} ms, picture ${lat#* } ms"
echo "$lat" | awk '{ exit !($1 > 0 && $1 <= 200 && $2 > 0 && $2 <= 200) }'
check $? "drm: ffdvbctl status shows the devices' latencies (sound ${lat% *} ms, picture ${lat#* } ms)"
alive "$pid"
check $? "drm: the daemon survived the AC-3 playback"
stop_daemon "$pid"
# a device that does not exist: said, and the daemon runs on with the sound timed
start_daemon drm --audio-device no-such-pcm
grep -q 'no sound device (ALSA no-such-pcm' "$log"
check $? "alsa: --audio-device no-such-pcm refused with a message ($(grep 'sound' "$log"))"
stop_daemon "$pid"
finish
