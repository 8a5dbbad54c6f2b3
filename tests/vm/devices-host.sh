#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# usage: devices-host.sh BINDIR STREAMDIR
# Host side of vm_devices: makes the streams and ffmpeg's decode of their picture, boots the VM
# with a display (bochs-display), a sound card (Intel HDA whose output qemu writes to a WAV) and
# a monitor socket, runs tests/vm/devices.sh in it while serving its screendump requests, boots
# it again with virtio-vga for the console outputs, then judges the captures and the WAV
# (tests/vm/devices-judge.py). Exit status 0 when every check of
# both sides passed; 77 if the VM cannot start.
set -u
here=$(cd "$(dirname "$0")" && pwd)
bin=${1:?usage: devices-host.sh BINDIR STREAMDIR}
streams=${2:?usage: devices-host.sh BINDIR STREAMDIR}
out=${VM_OUT_DIR:?the test sets VM_OUT_DIR}
command -v ffmpeg > /dev/null || { echo "SKIP: no ffmpeg CLI to make the test streams" >&2; exit 77; }
mkdir -p "$streams"
rm -rf "$out"
mkdir -p "$out"
judge() { python3 "$here/devices-judge.py" "$@"; }

# A still picture (testsrc's first frame, 720x576, 4:3) held for 10 s, so that whichever picture
# is on screen when the capture is taken is ffmpeg's last one; a 1 kHz tone (sine's level 1/8).
s=$streams/vm_devices.ts
if [ ! -s "$s" ]; then
	ffmpeg -hide_banner -loglevel error -nostdin -y -fflags +bitexact \
		-f lavfi -i "testsrc=size=720x576:rate=25,trim=end_frame=1,loop=loop=249:size=1,setpts=N/25/TB" \
		-f lavfi -i "sine=frequency=1000:sample_rate=48000:duration=10" -ac 2 \
		-c:v mpeg2video -b:v 800k -g 12 -bf 2 -aspect 4:3 -flags +bitexact \
		-c:a mp2 -b:a 192k -f mpegts "$s.tmp" && mv "$s.tmp" "$s" || exit 1
fi
a=$streams/vm_devices_ac3.ts
if [ ! -s "$a" ]; then
	ffmpeg -hide_banner -loglevel error -nostdin -y -fflags +bitexact \
		-f lavfi -i "color=c=gray:size=352x288:rate=25:duration=5" \
		-f lavfi -i "sine=frequency=440:sample_rate=48000:duration=5" -ac 6 \
		-c:v mpeg2video -b:v 300k -flags +bitexact -c:a ac3 -b:a 384k -f mpegts "$a.tmp" \
		&& mv "$a.tmp" "$a" || exit 1
fi
# ffmpeg's decode of the last picture (all are the same) as RGB24
ffmpeg -hide_banner -loglevel error -nostdin -y -i "$s" -map 0:v -update 1 -pix_fmt rgb24 \
	-f image2 -c:v ppm "$out/ref.ppm" || exit 1

# boot QEMU_DEVICES PARTS: one VM with those devices and a monitor, devices.sh's PARTS in it
capture_here=$here
. "$here/capture-lib.sh"
boot() {
	VM_ENV="DEVICES_PARTS ${VM_ENV:-}" DEVICES_PARTS=$2 \
		capture_vm "$out" "$1" "/bin/sh $here/devices.sh $bin $streams"
}
boot "-device bochs-display -device intel-hda -device hda-output,audiodev=a0
 -audiodev wav,id=a0,path=$out/sound.wav,out.frequency=48000,out.channels=2" "x11 console"
rc=$?
[ "$rc" = 77 ] && exit 77
boot "-device virtio-vga" virtio
rc2=$?
# qemu's trace of its HDA: the guest's stream stopped and started again (an underrun in the
# guest) and qemu's own buffer overruns (its audio timer late on a busy host), for the judge
boot "-device bochs-display -device intel-hda -device hda-output,audiodev=a1
 -audiodev wav,id=a1,path=$out/passthrough.wav,out.frequency=48000,out.channels=2
 -msg timestamp=on -trace hda_audio_running -trace hda_audio_overrun -D $out/qemu-hda.log" passthrough
rc3=$?
ffmpeg -hide_banner -loglevel error -nostdin -y -i "$a" -map 0:a -c copy -f ac3 "$out/ref.ac3" || exit 1

# the judgement from outside the daemon: captures against ffmpeg's decode, the WAV
fails=0
for name in window fullscreen kmsdrm drm kmsdrm-virtio drm-virtio; do
	case $name in
	kmsdrm*|drm*) cap=$out/$name.ppm ;;
	*) cap=$out/$name.ppm
	   ffmpeg -hide_banner -loglevel error -nostdin -y -i "$out/$name.xwd" -pix_fmt rgb24 \
		-f image2 -c:v ppm "$cap" 2> /dev/null ;;
	esac
	if [ ! -s "$cap" ]; then
		echo "FAIL $name: no capture"
		fails=$((fails + 1))
		continue
	fi
	size=$(head -c 64 "$cap" | tr '\n' ' ' | awk '{ print $2 ":" $3 }')
	ffmpeg -hide_banner -loglevel error -nostdin -y -i "$out/ref.ppm" \
		-vf "scale=$size:flags=bilinear" -f image2 -c:v ppm "$out/$name-expected.ppm"
	judge picture "$name" "$cap" "$out/ref.ppm" "$out/$name-expected.ppm" || fails=$((fails + 1))
done
judge sound "$out/sound.wav" || fails=$((fails + 1))
judge bursts "$out/passthrough.wav" "$out/ref.ac3" ac3 "$out/qemu-hda.log" || fails=$((fails + 1))
echo "devices-host.sh: guest exit status $rc (bochs), $rc2 (virtio) and $rc3 (passthrough)," \
	"$fails judgements failed"
[ "$rc" = 0 ] && [ "$rc2" = 0 ] && [ "$rc3" = 0 ] && [ "$fails" = 0 ]
