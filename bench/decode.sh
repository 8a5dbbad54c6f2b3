#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/run.sh decode: the whole playback path (188-byte TS writes through the card API, the
# decoder threads, the presenter, the headless output; in-process) against
# `ffmpeg -threads 1 -i SAME -f null -`, measured in this run on a 5 Mbit/s SD MPEG-2 + MP2
# stream made here; then real-time CPU share and peak RSS, and the time to the first picture
# after CLEAR_BUFFER. Then the same on two HD streams of scripts/gen-streams.sh (20 s each, in
# BUILD_DIR/streams): 1080i H.264 + MP2 and 1080p50 HEVC + AAC, against
# `ffmpeg -threads N` with the N our decoder gets for HD (libavcodec's automatic slice thread
# count, asked of libavcodec itself: `ffdvb-bench-decode threads`). Same environment variables
# as bench/run.sh (BUILD_DIR, BENCH_NO_BUILD, BENCH_SCALE: seconds of the SD stream = 20 x
# scale; the HD streams stay 20 s).
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD_DIR=${BUILD_DIR:-$ROOT/build}
SCALE=${BENCH_SCALE:-1}
if [ "${BENCH_NO_BUILD:-0}" != 1 ]; then
	{
		cmake -S "$ROOT" -B "$BUILD_DIR" &&
		cmake --build "$BUILD_DIR" -j2 --target ffdvb-bench-decode
	} >&2 || { echo "bench: build failed" >&2; exit 1; }
fi
command -v ffmpeg >/dev/null || { echo "bench: SKIP: no ffmpeg CLI" >&2; exit 77; }
BIN=$BUILD_DIR/bin/ffdvb-bench-decode
DIR=$BUILD_DIR/bench-streams
SECS=$((20 * SCALE))
STREAM=$DIR/sd5m_${SECS}s.ts
mkdir -p "$DIR"
if [ ! -s "$STREAM" ]; then
	echo "bench: making a ${SECS} s 5 Mbit/s SD stream" >&2
	ffmpeg -hide_banner -loglevel error -nostdin -y -f lavfi -i "testsrc2=size=720x576:rate=25:duration=$SECS" \
		-f lavfi -i "sine=frequency=440:sample_rate=48000:duration=$SECS" -ac 2 \
		-c:v mpeg2video -b:v 5M -maxrate 5M -bufsize 1835k -g 12 -bf 2 -flags +ilme+ildct -top 1 \
		-c:a mp2 -b:a 192k -f mpegts "$STREAM.tmp"
	mv "$STREAM.tmp" "$STREAM"
fi

# wall and CPU time of a command, in ms: "WALL CPU". The child's rusage from wait4, in µs:
# /usr/bin/time prints CPU time in 10 ms steps, 3 % of the SD run, as much as the
# differences the ratios are read for
timed() {
	python3 -c '
import os, subprocess, sys, time
t = time.monotonic()
p = subprocess.Popen(sys.argv[1:], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                     stderr=subprocess.DEVNULL)
_, status, ru = os.wait4(p.pid, 0)
p.returncode = 0  # reaped here
if status != 0:
    sys.exit("bench: %s failed (wait status %d)" % (sys.argv[1], status))
print("%.0f %.0f" % ((time.monotonic() - t) * 1000, (ru.ru_utime + ru.ru_stime) * 1000))
' "$@"
}
median() { printf '%s\n' "$@" | sort -n | sed -n "$((($# + 1) / 2))p"; }

# ffmpeg's decode (plain, and deinterlaced by bwdif at field rate as ours does by default) and
# ours (plain, bwdif per frame, bwdif per field) taking turns five times: the medians. A
# single run moves by several % with what else the host does in that second, a deinterlaced
# one of ours by up to a fifth (its filter runs on a third thread beside the decoder's); in
# ten back-to-back pairs the plain CPU ratio went from 0.87 to 1.22, and the median of three
# rounds still moved by 0.1 from one bench run to the next. Five rounds take about 6 s more.
# Each comparison's two runs come one right after the other, in turns: ffmpeg's first in odd
# rounds, ours first in even ones.
FF_WALLS='' FF_CPUS='' FF_FIELDS='' RUNS=''
ours() { RUNS="$RUNS
$(BENCH_DEINTERLACE=$1 "$BIN" throughput "$STREAM")"; }
ff_plain() {
	set -- $(timed ffmpeg -nostdin -threads 1 -i "$STREAM" -f null -)
	FF_WALLS="$FF_WALLS $1" FF_CPUS="$FF_CPUS $2"
}
ff_field() {
	set -- $(timed ffmpeg -nostdin -threads 1 -i "$STREAM" -vf bwdif=mode=send_field:deint=interlaced -f null -)
	FF_FIELDS="$FF_FIELDS $1"
}
for round in 1 2 3 4 5; do
	if [ $((round % 2)) = 1 ]; then
		ff_plain; ours no; ours frame; ff_field; ours field
	else
		ours frame; ours no; ff_plain; ours field; ff_field
	fi
done
# shellcheck disable=SC2086 # word lists
FF_WALL=$(median $FF_WALLS) FF_CPU=$(median $FF_CPUS) FF_FIELD=$(median $FF_FIELDS)
echo "figure decode_ffmpeg_ms $FF_WALL ms"
echo "figure decode_ffmpeg_cpu_ms $FF_CPU ms"
echo "figure decode_ffmpeg_bwdif_field_ms $FF_FIELD ms"
# each of our figures, the median of its five runs, in the order they came
OURS=$(echo "$RUNS" | awk '$1 == "figure" && !seen[$2]++ { print $2, $4 }' |
	while read -r name unit; do
		# shellcheck disable=SC2046 # a word list
		echo "figure $name $(median $(echo "$RUNS" | awk -v k="$name" '$2 == k { print $3 }')) $unit"
	done)
echo "$OURS"
# The ratios pair each round's runs, taken within a few seconds of each other: the median of
# ffmpeg's figure over ours, round by round. The medians above, divided, can set ffmpeg's
# quick moment against our slow one: 25 rounds of the plain pair on a busy host, in groups of
# five, gave CPU ratios of 0.986-1.107 that way and 1.052-1.127 paired.
paired() {
	# shellcheck disable=SC2046 # a word list
	set -- "$1" $(echo "$RUNS" | awk -v k="$3" -v a="$2" '
		BEGIN { split(a, v, " ") } $2 == k && $3 > 0 { i++; printf "%.4f\n", v[i] / $3 }')
	name=$1
	shift
	printf 'figure %s %.3f ratio\n' "$name" "$(median "$@")"
}
paired decode_throughput_vs_ffmpeg "$FF_WALLS" decode_ours_ms
paired decode_cpu_ffmpeg_vs_ours "$FF_CPUS" decode_ours_cpu_ms
paired decode_bwdif_throughput_vs_ffmpeg "$FF_WALLS" decode_ours_bwdif_ms
paired decode_bwdif_field_throughput_vs_ffmpeg_bwdif_field "$FF_FIELDS" decode_ours_bwdif_field_ms
"$BIN" realtime "$STREAM" $((SECS < 20 ? SECS : 20))
"$BIN" zap "$STREAM"

# HD. Our decoder opens video wider than 720 with thread_count 0 and FF_THREAD_SLICE
# (src/decoder/es_video.c, es_codec.c); N is the count libavcodec picks for that here (on
# 2 CPUs: 3). ffmpeg gets -threads N with its own thread type (frame threads for H.264 and
# HEVC) and, like ours, -thread_type slice. The streams: see scripts/gen-streams.sh.
HD_SECS=20
HD=$(sh "$ROOT/scripts/gen-streams.sh" "$BUILD_DIR/streams" hd_h264_1080i_20s.ts hd_hevc_1080p50_20s.ts) ||
	{ echo "bench: making the HD streams failed" >&2; exit 1; }
set -- $HD
H264=$1
HEVC=$2

# hd NAME FILE CODEC INTERLACED: the figures of one HD stream
hd() {
	name=$1 file=$2 inter=$4
	set -- $(BENCH_NAME=$name "$BIN" threads "$3")
	[ $# = 4 ] || { echo "bench: no thread count for $3" >&2; exit 1; }
	echo "$*"
	n=$3
	set -- $(timed ffmpeg -nostdin -threads "$n" -i "$file" -f null -)
	echo "figure ${name}_ffmpeg_ms $1 ms"
	echo "figure ${name}_ffmpeg_cpu_ms $2 ms"
	ffw=$1 ffc=$2
	set -- $(timed ffmpeg -nostdin -threads "$n" -thread_type slice -i "$file" -f null -)
	echo "figure ${name}_ffmpeg_slice_ms $1 ms"
	ffs=$1 fff=0
	# no deinterlacing on either side (a progressive stream never builds ours: the filter
	# graph is made at the first interlaced picture)
	ours=$(BENCH_NAME=$name BENCH_DEINTERLACE=no "$BIN" throughput "$file")
	echo "$ours"
	field=
	if [ "$inter" = 1 ]; then
		# the daemon's default, field-rate bwdif, against ffmpeg's at field rate
		set -- $(timed ffmpeg -nostdin -threads "$n" -i "$file" \
			-vf bwdif=mode=send_field:deint=interlaced -f null -)
		echo "figure ${name}_ffmpeg_bwdif_field_ms $1 ms"
		fff=$1
		field=$(BENCH_NAME=$name BENCH_DEINTERLACE=field "$BIN" throughput "$file")
		echo "$field"
	fi
	printf '%s\n%s\n' "$ours" "$field" |
		awk -v n="$name" -v ffw="$ffw" -v ffc="$ffc" -v ffs="$ffs" -v fff="$fff" -v secs="$HD_SECS" '
		$2 == n "_ours_ms" {
			printf "figure %s_ours_speed %.2f x\n", n, secs * 1000 / $3
			printf "figure %s_throughput_vs_ffmpeg %.3f ratio\n", n, ffw / $3
			printf "figure %s_throughput_vs_ffmpeg_slice %.3f ratio\n", n, ffs / $3 }
		$2 == n "_ours_cpu_ms" { printf "figure %s_cpu_ffmpeg_vs_ours %.3f ratio\n", n, ffc / $3 }
		$2 == n "_ours_bwdif_field_ms" {
			printf "figure %s_bwdif_field_throughput_vs_ffmpeg_bwdif_field %.3f ratio\n", n, fff / $3 }'
	# real time as the daemon plays it (field-rate bwdif for 1080i): 18 s of wall time, the
	# CPU share counted after the first 3 s (the queues fill faster than real time)
	BENCH_NAME=$name "$BIN" realtime "$file" 18 3
}
hd decode_hd_h264_1080i "$H264" h264 1
hd decode_hd_hevc_1080p "$HEVC" hevc 0
