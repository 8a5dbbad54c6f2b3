#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# usage: bench/run.sh SUITE
# Runs one benchmark suite and prints one line per figure on stdout: `figure NAME VALUE UNIT`.
# A comparison is a figure with unit `ratio`, computed from figures measured in the same run.
# Suites: vdr (unmodified VDR 2.6 + dvbsddevice -o on ffdvbd in the VM, bench/vdr-guest.sh:
#         ffdvbd's CPU share and peak RSS while VDR replays an SD recording made here with the
#         ffmpeg CLI and vdr --genindex, SVDRP HITK Menu to the menu on screen, and SVDRP CHAN
#         to the new service's first picture, per codec, zapping on the file tuner);
#         core (CUSE transport cost: ffdvbd against a bare CUSE device, in one VM run);
#         decode (the whole playback path in-process against the ffmpeg CLI's own decode, on
#         an SD MPEG-2 stream and on 1080i H.264 and 1080p50 HEVC from scripts/gen-streams.sh;
#         real-time CPU share and peak RSS; bench/decode.sh);
#         devices (A/V sync where it leaves the machine: --output drm on qemu's bochs-display
#         and the sound on ALSA's loopback card, timed outside the daemon by
#         ffdvb-bench-devices-probe: the CRTC's scan-out and the sound leaving the device;
#         bench/devices-guest.sh; avsync.ts's pattern at 352x288, made here);
#         osd (OSD_SEND_CMD through CUSE to the picture on screen, and OSD command rates, in the VM);
#         tuner (dvr0 read latency and throughput through --tuner dvb:0 against vidtv's own
#         dvr0, in the VM; builds vidtv with scripts/vm/build-vidtv.sh into BUILD_DIR/vidtv;
#         and the zap time with --tuner file:, DTV_TUNE to the first picture shown, on
#         BUILD_DIR/streams/sd_mpeg2_mp2.ts from scripts/gen-streams.sh. Without vidtv only
#         the zap figures, without the ffmpeg CLI only the dvr0 ones).
# env: BUILD_DIR   build folder (default <repo>/build; configured and built here)
#      BENCH_NO_BUILD=1  use BUILD_DIR as it is
#      BENCH_SCALE  multiplies every iteration count (default 1; the core suite takes about
#                   a minute in a TCG VM at 1)
#      BENCH_BASE_BUILD_DIR  core only: a second build (e.g. of the commit before a change; target
#                   ffdvbd) whose daemon takes turns in the same VM as `base`; adds the
#                   ratios ours/base
#      BENCH_LOG    keep the VM's console output in this file (default: a temporary file,
#                   shown on stderr when the run fails)
#      FFDVB_VM     the VM runner (default <repo>/scripts/vm.sh 'COMMAND')
# Exit status: 0 with all figures, 1 on failure, 2 for an unknown or unimplemented suite,
# 77 when the VM cannot run on this machine (qemu or kernel not installed).
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SUITE=${1:-}
BUILD_DIR=${BUILD_DIR:-$ROOT/build}
SCALE=${BENCH_SCALE:-1}
VM=${FFDVB_VM:-$ROOT/scripts/vm.sh}

GUEST_ARGS=
case $SUITE in
core)
	if [ -n "${BENCH_BASE_BUILD_DIR:-}" ]; then
		[ -x "$BENCH_BASE_BUILD_DIR/bin/ffdvbd" ] ||
			{ echo "bench: $BENCH_BASE_BUILD_DIR/bin/ffdvbd is missing" >&2; exit 1; }
		GUEST_ARGS=$(cd "$BENCH_BASE_BUILD_DIR" && pwd)/bin
	fi ;;
osd | tuner) ;;
devices)
	command -v ffmpeg > /dev/null || { echo "bench: SKIP: no ffmpeg CLI to make avsync.ts" >&2; exit 77; } ;;
decode)
	exec sh "$ROOT/bench/decode.sh" ;;
vdr)
	for c in vdr svdrpsend ffmpeg python3; do
		command -v $c > /dev/null || { echo "bench: SKIP: $c is not installed (vdr suite: vdr, vdr-plugin-dvbsddevice, ffmpeg)" >&2; exit 77; }
	done
	ls /usr/lib/vdr/plugins/libvdr-dvbsddevice.so.* > /dev/null 2>&1 ||
		{ echo "bench: SKIP: vdr-plugin-dvbsddevice is not installed" >&2; exit 77; } ;;
*)
	echo "usage: bench/run.sh core|decode|devices|osd|tuner|vdr" >&2
	exit 2 ;;
esac
case $SCALE in '' | *[!0-9]* | 0) echo "bench: BENCH_SCALE must be a positive integer" >&2; exit 2 ;; esac

if [ "${BENCH_NO_BUILD:-0}" != 1 ]; then
	{
		cmake -S "$ROOT" -B "$BUILD_DIR" &&
		cmake --build "$BUILD_DIR" -j2 --target ffdvbd ffdvbctl bench
	} >&2 || { echo "bench: build failed" >&2; exit 1; }
fi
BIN=$BUILD_DIR/bin
need="ffdvbd ffdvb-bare-cuse ffdvb-cuse-rtt ffdvb-bench-osd"
[ "$SUITE" = vdr ] && need="ffdvbd ffdvbctl"
[ "$SUITE" = devices ] && need="ffdvbd ffdvbctl ffdvb-play ffdvb-bench-devices-probe"
for b in $need; do
	[ -x "$BIN/$b" ] || { echo "bench: $BIN/$b is missing" >&2; exit 1; }
done
[ -x "$VM" ] || { echo "bench: VM runner $VM is missing" >&2; exit 1; }
HAVE_VIDTV=0
if [ "$SUITE" = tuner ]; then
	for b in ffdvb-bench-tuner ffdvb-bench-zap; do
		[ -x "$BIN/$b" ] || { echo "bench: $BIN/$b is missing" >&2; exit 1; }
	done
	vrc=0
	vidtv=$(sh "$ROOT/scripts/vm/build-vidtv.sh" "$BUILD_DIR/vidtv") || vrc=$?
	if [ "$vrc" = 77 ]; then
		echo "bench: SKIP (part): vidtv cannot be built here (linux-source-6.1, linux-headers); no dvr0 figures" >&2
		vidtv=-
	elif [ "$vrc" != 0 ]; then
		echo "bench: building vidtv failed" >&2
		exit 1
	else
		HAVE_VIDTV=1
	fi
	src=0
	stream=$(sh "$ROOT/scripts/gen-streams.sh" "$BUILD_DIR/streams" sd_mpeg2_mp2.ts) || src=$?
	if [ "$src" = 77 ]; then
		echo "bench: SKIP (part): no ffmpeg CLI to make the file tuner's stream; no zap figures" >&2
		stream=-
	elif [ "$src" != 0 ]; then
		echo "bench: making the zap stream failed" >&2
		exit 1
	fi
	if [ "$vidtv" = - ] && [ "$stream" = - ]; then
		echo "bench: SKIP: neither vidtv nor the ffmpeg CLI here; no figures" >&2
		exit 77
	fi
	GUEST_ARGS="$vidtv $stream"
fi

if [ "$SUITE" = vdr ]; then
	# one SD recording in VDR's layout: 720x576 MPEG-2 (2 Mbit/s) + MP2, 30 s, index by vdr
	rec=$BUILD_DIR/streams/vdr-bench-sd/Bench/2024-01-01.12.00.1-0.rec
	if [ ! -s "$rec/index" ]; then
		rm -rf "$BUILD_DIR/streams/vdr-bench-sd"
		mkdir -p "$rec"
		ffmpeg -hide_banner -loglevel error -nostdin -y \
			-f lavfi -i testsrc2=size=720x576:rate=25:duration=30 \
			-f lavfi -i sine=frequency=440:sample_rate=48000:duration=30 \
			-map 0:v -map 1:a -c:v mpeg2video -b:v 2000k -maxrate 2500k -bufsize 1835k -g 12 -bf 2 \
			-aspect 4:3 -c:a mp2 -b:a 192k -mpegts_service_id 1 -streamid 0:0x1ff -streamid 1:0x200 \
			-f mpegts "$rec/00001.ts" >&2 &&
			printf 'C T-8916-514-1\nT ffdvb bench recording\nF 25\nP 50\nL 99\n' > "$rec/info" &&
			vdr --genindex="$rec" > /dev/null && [ -s "$rec/index" ] ||
			{ echo "bench: making the SD recording failed" >&2; exit 1; }
	fi
	# the zap's three services (MPEG-2, H.264, HEVC) with ffmpeg's picture MD5s (vdr-zap.sh)
	for z in sd_mpeg2_mp2.ts zap_h264_latm.ts zap_hevc_aac.ts; do
		sh "$ROOT/tests/vm/stream-refs.sh" "$BUILD_DIR/streams" $z > /dev/null ||
			{ echo "bench: making the zap stream $z failed" >&2; exit 1; }
	done
	GUEST_ARGS="$BUILD_DIR/streams/vdr-bench-sd $BUILD_DIR/streams"
fi

if [ "$SUITE" = devices ]; then
	# avsync.ts's pattern (scripts/gen-streams.sh) at CIF: a TCG guest decodes and scales it in
	# real time, so that what is measured is the sync, not a CPU that cannot keep up
	secs=$((20 * SCALE))
	cut=$BUILD_DIR/streams/avsync-bench-cif-${secs}s.ts
	[ -s "$cut" ] || ffmpeg -hide_banner -loglevel error -nostdin -y -fflags +bitexact \
		-f lavfi -i "color=c=black:size=352x288:rate=25:duration=$secs,format=yuv420p,drawbox=x=0:y=0:w=iw:h=ih:color=white:t=fill:enable='eq(mod(n\\,25)\\,0)'" \
		-f lavfi -i "aevalsrc=lt(mod(t\\,1)\\,0.04)*0.5*sin(2*PI*1000*t):s=48000:d=$secs" \
		-c:v mpeg2video -b:v 1M -g 12 -bf 2 -flags +bitexact -ac 2 -c:a mp2 -b:a 192k \
		-f mpegts "$cut" || { echo "bench: making the A/V stream failed" >&2; exit 1; }
	GUEST_ARGS=$cut
	export VM_QEMU_ARGS="-device bochs-display ${VM_QEMU_ARGS:-}"
fi

LOG=${BENCH_LOG:-$(mktemp)}
status=0
"$VM" "sh $ROOT/bench/$SUITE-guest.sh $BIN $SCALE $GUEST_ARGS" >"$LOG" 2>&1 </dev/null || status=$?
if [ "$status" = 77 ]; then
	tr -d '\r' <"$LOG" | grep 'SKIP' >&2
	echo "bench: SKIP: the VM cannot start on this machine; no figures" >&2
	[ -n "${BENCH_LOG:-}" ] || rm -f "$LOG"
	exit 77
fi
if [ "$status" != 0 ]; then
	echo "bench: the $SUITE suite failed in the VM (exit $status); its console:" >&2
	tr -d '\r' <"$LOG" | tail -n 60 >&2
	[ -n "${BENCH_LOG:-}" ] || rm -f "$LOG"
	exit 1
fi

# the figures measured in the VM, then the ratios between them
tr -d '\r' <"$LOG" | grep -E '^figure [A-Za-z0-9_]+ -?[0-9.]+ [A-Za-z/]+$' |
	awk -v suite="$SUITE" -v have_vidtv="$HAVE_VIDTV" '
	{ print; value[$2] = $3 }
	function ratio(name, a, b) {
		if (!(a in value) || !(b in value)) {
			print "bench: cannot compute " name ": " a " or " b " missing" > "/dev/stderr"
			missing = 1
			return
		}
		printf "figure %s %.3f ratio\n", name, value[b] ? value[a] / value[b] : 0
	}
	function rtt_ratio(base, x, y) {
		ratio(base "_" x "_" y "_median", base "_" x "_median", base "_" y "_median")
		ratio(base "_" x "_" y "_p99", base "_" x "_p99", base "_" y "_p99")
	}
	END {
		if (suite == "tuner") {
			if (!have_vidtv)
				exit 0
			# the emulated dvr0 against the one of vidtv, measured in this run
			ratio("tuner_dvr_read_emul_direct_median", "tuner_dvr_read_emul_median", "tuner_dvr_read_direct_median")
			ratio("tuner_dvr_read_emul_direct_p99", "tuner_dvr_read_emul_p99", "tuner_dvr_read_direct_p99")
			ratio("tuner_dvr_drain_emul_direct", "tuner_dvr_drain_emul", "tuner_dvr_drain_direct")
			ratio("tuner_dvr_live_emul_direct", "tuner_dvr_live_emul", "tuner_dvr_live_direct")
			exit missing
		}
		if (suite != "core")
			exit 0
		if ("rtt_ioctl_noarg_base_median" in value) {
			# the same daemon built from another commit, in the same run
			rtt_ratio("rtt_ioctl_noarg", "ours", "base")
			rtt_ratio("rtt_dmx_get_stc", "ours", "base")
			rtt_ratio("rtt_write188", "ours", "base")
			ratio("tput_write188_ours_base", "tput_write188_ours", "tput_write188_base")
			ratio("tput_write64k_ours_base", "tput_write64k_ours", "tput_write64k_base")
			rtt_ratio("rtt_ioctl_noarg", "base", "bare")
			rtt_ratio("rtt_dmx_get_stc", "base", "bare")
			rtt_ratio("rtt_write188", "base", "bare")
			ratio("tput_write188_base_bare", "tput_write188_base", "tput_write188_bare")
			ratio("tput_write64k_base_bare", "tput_write64k_base", "tput_write64k_bare")
		}
		rtt_ratio("rtt_ioctl_noarg", "ours", "bare")
		rtt_ratio("rtt_dmx_get_stc", "ours", "bare")
		rtt_ratio("rtt_write188", "ours", "bare")
		ratio("tput_write188_ours_bare", "tput_write188_ours", "tput_write188_bare")
		ratio("tput_write64k_ours_bare", "tput_write64k_ours", "tput_write64k_bare")
		# libfuse multi-threaded loop against its single-threaded loop, both bare
		rtt_ratio("rtt_ioctl_noarg", "baremt", "bare")
		# the same on two CPUs (the figures above run pinned to one)
		rtt_ratio("rtt_ioctl_noarg_2cpu", "ours", "bare")
		rtt_ratio("rtt_ioctl_noarg_2cpu", "baremt", "bare")
		exit missing
	}' || status=1
[ -n "${BENCH_LOG:-}" ] || rm -f "$LOG"
exit "$status"
