#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# usage: vdr-zap.sh BINDIR VIDTVDIR STREAMDIR [ROUNDS]   (inside the VM, as root: vdr-live-host.sh)
# Zapping in unmodified VDR 2.6 + dvbsddevice (no -o, VDR tunes the emulated frontend) between
# three services of ffdvbd's file tuner on three frequencies: MPEG-2 + MP2 (474 MHz), H.264 +
# AAC in LATM (482 MHz) and HEVC + AAC in ADTS (490 MHz), the streams of STREAMDIR with
# ffmpeg's per-picture MD5 lists. VIDTVDIR is not used (the host script's common argument).
# SVDRP `CHAN N` 2 3 1 3 2 1 (ROUNDS times), 5 s apart (tests/vm/vdr-zap.py drive); each zap is
# judged from ffdvbd's picture record (tests/vm/vdr-zap.py judge): a picture of the new
# service's own stream (equal to ffmpeg's decode) is shown, no picture of the old service after
# it (no flash of the old channel), no picture of neither. The zap time (CHAN sent to that first
# picture) is printed per codec, not asserted (bench/run.sh vdr gives the figures).
# With FFDVB_CAPTURE=1 (vdr-live-host.sh boots qemu's display: capture-lib.sh) ffdvbd drives the
# display (--output drm) and 2.5 s after each zap a screendump is asked of the host, which judges
# it after the run against ffmpeg's pictures of the three services: the new one's, none of the
# old one's (each service a different picture: testsrc2, testsrc, testsrc2 upside down).
# Prints PASS/FAIL and "vdr-zap.sh: N passed, M failed".
set -u
usage='usage: vdr-zap.sh BINDIR VIDTVDIR STREAMDIR [ROUNDS]'
bin=${1:?$usage}
streams=${3:?$usage}
rounds=${4:-1}
here=$(cd "$(dirname "$0")" && pwd)
out=${VM_OUT:-$(mktemp -d)}
syslog=$out/syslog.log
log=$syslog
script_name=vdr-zap.sh
. "$here/lib.sh"
video=$(mktemp -d /tmp/vdr-novideo.XXXXXX)
A=0
conf=$out/file-channels.conf
: > "$conf"
# channel: name frequency(MHz) file VDR's video type, audio type (PMT stream types)
services='MPEG2 474 sd_mpeg2_mp2.ts 2 3
H264 482 zap_h264_latm.ts 27 17
HEVC 490 zap_hevc_aac.ts 36 15'
vdr_channels=
n=0
while read -r name mhz file vt at; do
	n=$((n + 1))
	printf '[%s]\n\tSERVICE_ID = 1\n\tVIDEO_PID = 256\n\tAUDIO_PID = 257\n\tFREQUENCY = %s000000\n\tDELIVERY_SYSTEM = DVBT\n\tBANDWIDTH_HZ = 8000000\n\tFILE = %s\n' \
		"$name" "$mhz" "$streams/$file" >> "$conf"
	# the ids the files' SDT carries: network 65281 (ffmpeg's), transport stream 1, 2, 3
	# (scripts/gen-streams.sh; VDR takes a new transponder with the old one's ids for the old
	# one and retunes), service 1
	vdr_channels="$vdr_channels${vdr_channels:+
}$name;ffdvb:${mhz}000:B8S0:T:27500:256=$vt:257=deu@$at:0:0:1:65281:$n:0"
	eval "ref_$n=\$streams/\$file.framemd5 name_$n=\$name ts_$n=\$streams/\$file"
done <<EOF
$services
EOF
# --no-deinterlace: the streams are judged against ffmpeg's own (not deinterlaced) pictures
daemon_args="--adapter 0 --tuner file:$conf --no-deinterlace"
vdr_plugin=dvbsddevice
vdr_args="-D 0"
vdr_setup="UpdateChannels = 0
"
ctl_args="--adapter $A"
. "$here/vdr-lib.sh"
. "$here/capture-lib.sh"
capture=
if [ -n "${FFDVB_CAPTURE:-}" ]; then
	capture_display_up
	vdr_output=drm
	daemon_args="$daemon_args --no-audio"
	capture="--capture $out:2.5"
else
	echo "NOTE: no capture devices (FFDVB_CAPTURE unset, as in bench/): the zaps are judged" \
		"from the daemon's record only, not from a screen"
fi
for f in ffdvbd ffdvbctl; do
	[ -x "$bin/$f" ] || { fail "setup: $bin/$f is not built"; finish; }
done
for i in 1 2 3; do
	eval "r=\$ref_$i"
	[ -s "$r" ] || { fail "setup: $r is missing"; finish; }
done
vdr_env_start
vdr_start
grep -q "probing /dev/dvb/adapter$A/frontend0" "$syslog"
check $? "vdr: probes /dev/dvb/adapter$A/frontend0"
grep -q 'creating cDvbSdFfDevice' "$syslog"
check $? "vdr: 'creating cDvbSdFfDevice' for the emulated adapter"

svdrp CHAN
grep -q '^250 1 MPEG2' "$out/svdrp.log"
check $? "SVDRP CHAN: VDR starts on channel 1 ($(grep -E '^250 1 ' "$out/svdrp.log" | tail -n 1))"
# channel 1's pictures first: the first zap starts from a channel on screen
i=0
until [ "$(jget decoder.video_shown)" -gt 25 ] 2> /dev/null || [ $i -ge 60 ]; do
	i=$((i + 1)); sleep 0.5
done
[ "$(jget decoder.video_shown)" -gt 25 ] 2> /dev/null
check $? "decoder: channel 1's pictures are shown before the first zap ($(jget decoder.video_shown))"

seq=
r=0
while [ $r -lt "$rounds" ]; do seq="$seq 2 3 1 3 2 1"; r=$((r + 1)); done
# shellcheck disable=SC2086 # capture and seq are word lists
python3 "$here/vdr-zap.py" drive "$port" 5 $capture $seq > "$out/zaps.txt" 2> "$out/zaps.err"
check $? "SVDRP: $(grep -c . "$out/zaps.txt") zaps sent ($(tr '\n' ';' < "$out/zaps.err"))"
bad=$(awk '$4 != "250" { n++ } END { print n + 0 }' "$out/zaps.txt")
[ "$bad" = 0 ]
check $? "SVDRP: every CHAN answered 250 ($bad not: $(awk '$4 != "250"' "$out/zaps.txt" | head -n 1))"
ctl status > "$out/status.txt" 2>&1
ctl record > /dev/null
check $? "ffdvbctl record"
python3 "$here/vdr-zap.py" judge "$out/record/pictures.log" "$out/zaps.txt" 1 \
	"1=$ref_1" "2=$ref_2" "3=$ref_3" > "$out/judged.txt"
check $? "judge: ran ($(wc -l < "$out/judged.txt") lines)"
same=$(grep -c '^same' "$out/judged.txt")
[ "$same" = 0 ]
check $? "the three services share no picture (else a zap could not be judged: $same)"
while read -r _ from to first old foreign newp; do
	eval "fn=\$name_$from tn=\$name_$to"
	ms=${first#first_ms=}
	[ "$ms" != -1.0 ] && [ "$old" = old_after=0 ] && [ "$foreign" = foreign=0 ] &&
		[ "${newp#new=}" -ge 25 ]
	check $? "zap $fn -> $tn: its first picture of $tn's own stream after $ms ms, then no picture of $fn ($old), none of neither ($foreign), $newp pictures of $tn"
	echo "zap_ms $tn $ms"
done <<EOF
$(grep '^zap' "$out/judged.txt")
EOF
# each zap's screendump, for the host: the new service's picture, none of the other two's
if [ -n "$capture" ]; then
	k=0 from=1
	for to in $seq; do
		k=$((k + 1))
		eval "fn=\$name_$from tn=\$name_$to good=\$ts_$to"
		capture_wait zap$k
		check $? "zap $k ($fn -> $tn): screendump taken by the host (zap$k.ppm)"
		others=
		for i in 1 2 3; do
			[ "$i" = "$to" ] || eval "others=\"\$others \$ts_$i\""
		done
		# shellcheck disable=SC2086 # others is a word list
		# VDR's channel display covers the lines from about 325 of 576 on (lcars)
		capture_expect match "zap$k" --above 320 "$good" $others
		from=$to
	done
fi
errors=$(jget decoder.decode_errors)
echo "NOTE: decoder.decode_errors $errors (a zap may cut a unit)"
errs=$(vdr_log_errors)
[ "$errs" = 0 ]
check $? "vdr: no ERROR lines in its log ($errs)"
vdr_stop
grep -q 'FE_SET_PROPERTY' "$out/trace.log"
check $? "trace: VDR tuned the emulated frontend (FE_SET_PROPERTY)"
n=$(grep -c '\(audio0\|video0\)#[0-9]* write' "$out/trace.log")
[ "$n" = 0 ]
check $? "trace: no writes to video0 or audio0 (live through the demux: $n)"
vdr_env_stop
finish
