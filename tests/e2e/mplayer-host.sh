#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# usage: mplayer-host.sh BINDIR STREAMDIR
# Host side of the MPlayer test: makes a 20 s 352x288 MPEG-2 + MP2 program stream (ffmpeg,
# -f vob; video at 200 kbit/s, light enough for a TCG guest's CUSE round trips; the sound
# 0.5 s shorter: ao_mpegpes only writes sound up to the video's PTS, so sound that outlasts
# the pictures is never written and MPlayer loops at the end forever) and ffmpeg's
# per-picture MD5 list of it, then runs tests/e2e/mplayer.sh inside scripts/vm.sh. Skips (77, loudly) without the ffmpeg CLI or mplayer.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
bin=${1:?usage: mplayer-host.sh BINDIR STREAMDIR}; streams=${2:?usage: mplayer-host.sh BINDIR STREAMDIR}
skip() {
	echo "########################################################################" >&2
	echo "SKIP: $*" >&2
	echo "########################################################################" >&2
	exit 77
}
command -v ffmpeg > /dev/null || skip "no ffmpeg CLI to make the stream"
command -v mplayer > /dev/null || skip "mplayer is not installed (apt-get install mplayer)"
mkdir -p "$streams"
s=$streams/mplayer-20s.mpg
if [ ! -s "$s" ] || [ ! -s "$s.framemd5" ]; then
	ffmpeg -hide_banner -loglevel error -nostdin -y -fflags +bitexact \
		-f lavfi -i "testsrc2=size=352x288:rate=25:duration=20" \
		-f lavfi -i "sine=frequency=440:sample_rate=48000:duration=19.5" -ac 2 \
		-c:v mpeg2video -b:v 200k -g 12 -bf 2 -aspect 4:3 \
		-flags +bitexact -c:a mp2 -b:a 128k -f vob "$s.tmp"
	ffmpeg -hide_banner -loglevel error -nostdin -threads 1 -i "$s.tmp" -map 0:v \
		-f framemd5 "$s.framemd5.tmp"
	mv "$s.tmp" "$s"
	mv "$s.framemd5.tmp" "$s.framemd5"
fi
exec bash "$here/../../scripts/vm.sh" "/bin/sh $here/mplayer.sh $bin $streams"
