#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# usage: vdr-host.sh BINDIR STREAMDIR [SCRIPT [ARG...]]
# Host side of the VDR test: makes a VDR recording (20 s 352x288 MPEG-2 + MP2 + AC-3 made by
# ffmpeg, VDR's layout: NAME/DATE.rec/00001.ts + info, index by 'vdr --genindex') and ffmpeg's
# per-picture MD5 list of its video, and 60 s and 120 s ones of the same kind for the trick
# modes and the pacing, and two of today's codecs (H.264 + AAC, HEVC + E-AC-3), then runs tests/vm/SCRIPT (vdr.sh, vdr-trick.sh, ...) in scripts/vm.sh
# with BINDIR, STREAMDIR and the ARGs.
# Skips (77, loudly) without the ffmpeg CLI, vdr or vdr-plugin-dvbsddevice.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
bin=${1:?usage: vdr-host.sh BINDIR STREAMDIR [SCRIPT]}
streams=${2:?usage: vdr-host.sh BINDIR STREAMDIR [SCRIPT]}
script=${3:-vdr.sh}
skip() {
	echo "########################################################################" >&2
	echo "SKIP: $*" >&2
	echo "########################################################################" >&2
	exit 77
}
command -v ffmpeg > /dev/null || skip "no ffmpeg CLI to make the recording"
command -v vdr > /dev/null || skip "vdr is not installed (apt-get install vdr vdr-plugin-dvbsddevice)"
ls /usr/lib/vdr/plugins/libvdr-dvbsddevice.so.* > /dev/null 2>&1 ||
	skip "vdr-plugin-dvbsddevice is not installed"
command -v svdrpsend > /dev/null || skip "svdrpsend (package vdr) is missing"
# make_recording FOLDER SECONDS [VIDEO_KBITS]: FOLDER/Test/2024-01-01.12.00.1-0.rec with 00001.ts, info,
# index; FOLDER.framemd5 with ffmpeg's per-picture MD5s
make_recording() {
	vrate=${3:-1000}
	rec=$1/Test/2024-01-01.12.00.1-0.rec
	ts=$rec/00001.ts
	[ -s "$ts" ] && [ -s "$rec/index" ] && [ -s "$1.framemd5" ] && return 0
	rm -rf "$1"
	mkdir -p "$rec"
	# AC-3 as DVB (system_b) so VDR lists it as a Dolby track; PIDs as in channels.conf. About
	# 800 TS packets/s: each of VDR's 188-byte writes is a CUSE round trip, of which a TCG
	# guest manages 300-900 per second (host load, docs/vdr.md), and the card's buffers are
	# sized in bytes (video ring 128 KiB): at this rate they hold about 1.5 s.
	ffmpeg -hide_banner -loglevel error -nostdin -y -fflags +bitexact \
		-f lavfi -i "testsrc2=size=352x288:rate=25:duration=$2" \
		-f lavfi -i "sine=frequency=440:sample_rate=48000:duration=$2" \
		-f lavfi -i "sine=frequency=1000:sample_rate=48000:duration=$2" \
		-map 0:v -map 1:a -map 2:a -c:v mpeg2video -b:v ${vrate}k -maxrate $((vrate * 6 / 5))k -bufsize ${vrate}k \
		-g 12 -bf 2 -flags +bitexact -aspect 4:3 -c:a:0 mp2 -b:a:0 128k -ac:a:0 2 \
		-c:a:1 ac3 -b:a:1 192k -mpegts_flags system_b -mpegts_service_id 1 \
		-streamid 0:0x1ff -streamid 1:0x200 -streamid 2:0x201 -f mpegts "$ts.tmp"
	mv "$ts.tmp" "$ts"
	printf 'C T-8916-514-1\nT ffdvb test recording\nF 25\nP 50\nL 99\n' > "$rec/info"
	vdr --genindex="$rec" > /dev/null
	[ -s "$rec/index" ] || { echo "vdr --genindex made no index" >&2; exit 1; }
	ffmpeg -hide_banner -loglevel error -nostdin -threads 1 -i "$ts" -map 0:v \
		-f framemd5 "$1.framemd5.tmp"
	mv "$1.framemd5.tmp" "$1.framemd5"
}
# make_codec_recording FOLDER TITLE SECONDS SOURCE VIDEO_ARGS AUDIO_ARGS HZ: today's codecs, the
# lavfi picture SOURCE with a HZ tone (vdr-codecs.sh), as FOLDER/TITLE/2024-01-01.12.00.1-0.rec,
# ffmpeg's MD5s in FOLDER/TITLE.framemd5, the source in FOLDER/TITLE.source (a recording of
# another source is made again). 352x288 at low rates: a TCG guest's CUSE round trips keep up
# with about 250 TS packets a second
make_codec_recording() {
	rec=$1/$2/2024-01-01.12.00.1-0.rec
	ts=$rec/00001.ts
	[ -s "$ts" ] && [ -s "$rec/index" ] && [ -s "$1/$2.framemd5" ] &&
		[ "$(cat "$1/$2.source" 2> /dev/null)" = "$4" ] && return 0
	rm -rf "${1:?}/$2"
	mkdir -p "$rec"
	# shellcheck disable=SC2086 # the codec arguments are word lists
	ffmpeg -hide_banner -loglevel error -nostdin -y -fflags +bitexact \
		-f lavfi -i "$4=size=352x288:rate=25:duration=$3" \
		-f lavfi -i "sine=frequency=$7:sample_rate=48000:duration=$3" \
		-map 0:v -map 1:a $5 -g 25 -bf 2 -pix_fmt yuv420p $6 -mpegts_flags system_b \
		-mpegts_service_id 1 -streamid 0:0x1ff -streamid 1:0x200 -f mpegts "$ts.tmp"
	mv "$ts.tmp" "$ts"
	printf 'C T-8916-514-1\nT %s\nF 25\nP 50\nL 99\n' "$2" > "$rec/info"
	vdr --genindex="$rec" > /dev/null
	[ -s "$rec/index" ] || { echo "vdr --genindex made no index for $2" >&2; exit 1; }
	ffmpeg -hide_banner -loglevel error -nostdin -threads 1 -i "$ts" -map 0:v \
		-f framemd5 "$1/$2.framemd5.tmp"
	mv "$1/$2.framemd5.tmp" "$1/$2.framemd5"
	echo "$4" > "$1/$2.source"
}
mkdir -p "$streams"
make_recording "$streams/vdr-video" 20
# H.264 + AAC (ADTS) with a 440 Hz tone, HEVC + E-AC-3 with a 1000 Hz one, 10 s each; two
# pictures (testsrc2, testsrc) that a screen capture tells apart
make_codec_recording "$streams/vdr-codecs" H264-AAC 10 testsrc2 \
	"-c:v libx264 -preset veryfast -threads 2 -b:v 250k -flags +bitexact" "-c:a aac -b:a 64k" 440
make_codec_recording "$streams/vdr-codecs" HEVC-EAC3 10 testsrc \
	"-c:v libx265 -preset ultrafast -x265-params log-level=error:pools=none:frame-threads=1 -b:v 250k" \
	"-c:a eac3 -b:a 96k" 1000
# for the pacing check (vdr-pace.sh): 60 s at a fifth of the bit rate, about 250 TS packets/s,
# which a TCG guest's CUSE round trips keep up with, so that the card, not the transport, paces
make_recording "$streams/vdr-video-pace" 60 200
# for the trick speeds (vdr-speeds.sh): 15 minutes, because in a trick mode VDR reads I pictures
# ahead as far as its 5 MB buffer goes, and at this rate (9 KB per I picture) that is 270 s of
# recording: the reads must not reach either end while a phase runs (see vdr-speeds.sh)
make_recording "$streams/vdr-video-speeds-15min" 900 200
# VDR takes a recording whose index changed within the last hour for one still being recorded
# (time-shift: it keeps reading the index as it grows, and trick modes end differently); these
# are made minutes before the test, so their index is dated back, as a finished recording's is
touch -d '2 hours ago' "$streams"/vdr-video*/Test/*/index "$streams"/vdr-codecs/*/*/index
shift 2
[ $# -gt 0 ] && shift
[ "$script" = vdr-codecs.sh ] ||
	exec bash "$here/../../scripts/vm.sh" "/bin/sh $here/$script $bin $streams $*"
# vdr-codecs.sh is judged from outside the daemon too (capture-lib.sh): on qemu's display and
# sound card, the screendumps and qemu's WAV against ffmpeg's decode of the recordings
capture_here=$here
. "$here/capture-lib.sh"
capture_run "${VM_OUT_DIR:?the test sets VM_OUT_DIR}" "/bin/sh $here/$script $bin $streams $*"
