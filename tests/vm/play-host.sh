#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# usage: play-host.sh BINDIR STREAMDIR [DAEMON]
# Host side of the VM playback test: makes the stream (4 s, 352x288 MPEG-2 + MP2: light enough
# for a TCG guest to decode in real time) and ffmpeg's per-picture MD5 list of it, then runs
# tests/vm/play.sh inside scripts/vm.sh. Exit status: play.sh's (77 if the VM cannot start).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
bin=${1:?}; streams=${2:?}; daemon=${3:-ffdvbd}
command -v ffmpeg > /dev/null || { echo "SKIP: no ffmpeg CLI to make the test stream" >&2; exit 77; }
mkdir -p "$streams"
s=$streams/vm_play.ts
if [ ! -s "$s" ] || [ ! -s "$s.framemd5" ]; then
	ffmpeg -hide_banner -loglevel error -nostdin -y -fflags +bitexact \
		-f lavfi -i "testsrc2=size=352x288:rate=25:duration=4" \
		-f lavfi -i "sine=frequency=440:sample_rate=48000:duration=4" -ac 2 \
		-c:v mpeg2video -b:v 1500k -g 12 -bf 2 -flags +bitexact -c:a mp2 -b:a 192k \
		-f mpegts "$s.tmp"
	ffmpeg -hide_banner -loglevel error -nostdin -threads 1 -i "$s.tmp" -map 0:v \
		-f framemd5 "$s.framemd5.tmp"
	mv "$s.tmp" "$s"
	mv "$s.framemd5.tmp" "$s.framemd5"
fi
exec bash "$here/../../scripts/vm.sh" "/bin/sh $here/play.sh $bin $streams $daemon"
