#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# usage: eac3-pass-host.sh BINDIR STREAMDIR
# Host side of vm_eac3_passthrough: makes an MPEG-2 + E-AC-3 (5.1) stream and its E-AC-3 frames
# as ffmpeg copies them out, runs tests/vm/eac3-pass.sh in a VM with a display, then judges the
# WAV the guest recorded from the loopback sound card: IEC 61937 bursts of type E-AC-3 whose
# payloads are the stream's frames in order, one every 6144 samples of 192 kHz. Exit status 0
# when every check of both sides passed; 77 if the VM cannot start.
set -u
here=$(cd "$(dirname "$0")" && pwd)
bin=${1:?usage: eac3-pass-host.sh BINDIR STREAMDIR}
streams=${2:?usage: eac3-pass-host.sh BINDIR STREAMDIR}
out=${VM_OUT_DIR:?the test sets VM_OUT_DIR}
command -v ffmpeg > /dev/null || { echo "SKIP: no ffmpeg CLI to make the test stream" >&2; exit 77; }
mkdir -p "$streams"
rm -rf "$out"
mkdir -p "$out"

# a rising tone: every E-AC-3 frame differs (a steady tone's frames repeat, and a repeated
# frame would hide a burst heard twice or out of place)
s=$streams/vm_eac3_chirp10.ts
if [ ! -s "$s" ]; then
	ffmpeg -hide_banner -loglevel error -nostdin -y -fflags +bitexact \
		-f lavfi -i "color=c=gray:size=352x288:rate=25:duration=10" \
		-f lavfi -i "aevalsrc=0.2*sin(2*PI*(200+100*t)*t):s=48000:d=10" -ac 6 \
		-c:v mpeg2video -b:v 300k -flags +bitexact -c:a eac3 -b:a 384k -f mpegts "$s.tmp" \
		&& mv "$s.tmp" "$s" || exit 1
fi
ffmpeg -hide_banner -loglevel error -nostdin -y -i "$s" -map 0:a -c copy -f eac3 "$out/ref.eac3" \
	|| exit 1

VM_QEMU_ARGS="-device bochs-display,xres=720,yres=576 ${VM_QEMU_ARGS:-}" \
	bash "$here/../../scripts/vm.sh" "/bin/sh $here/eac3-pass.sh $bin $s"
rc=$?
[ "$rc" = 77 ] && exit 77
python3 "$here/devices-judge.py" bursts "$out/eac3.wav" "$out/ref.eac3" eac3
rc2=$?
[ "$rc" = 0 ] && [ "$rc2" = 0 ]
