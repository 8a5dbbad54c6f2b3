#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# gen-streams.sh OUTDIR NAME...: makes the named test streams in OUTDIR with the ffmpeg CLI
# (lavfi sources, bit-exact flags), each only if it is not there yet (written to a temporary
# name, then renamed), and prints the path of each. `gen-streams.sh --help` lists the names.
# Exit status: 0 done, 2 usage or unknown name, 1 ffmpeg failed, 77 no ffmpeg CLI (tests skip).
set -eu

usage() {
	cat <<'USAGE'
usage: gen-streams.sh OUTDIR NAME...
Streams (2 s each unless said otherwise; video 25 fps, audio 48 kHz stereo unless said):
  sd_mpeg2_mp2.ts    720x576 interlaced-coded MPEG-2 (B-frames) + MP2, MPEG-TS
  sd_mpeg2_mp2.mpg   the same as an MPEG-2 program stream (-f vob, bounded PES)
  sd_mpeg2_ac3.ts    MPEG-2 + AC-3 5.1
  sd_mpeg2_ac3.mpg   MPEG-2 + AC-3 stereo as a DVD program stream (AC-3 substream 0x80)
  sd_mpeg2_lpcm.mpg  MPEG-2 + DVD LPCM (pcm_s16be), -f vob
  sd_mpeg1_mp3.mpg   352x288 MPEG-1 video + MP3 44.1 kHz, MPEG-1 system stream
  hd_mpeg2_1080i.ts  1920x1080 interlaced MPEG-2 + MP2
  hd_h264_1080i.ts   1920x1080 interlaced H.264 (x264, tff) + MP2
  sd_h264_mp2.ts     720x576 progressive H.264 + MP2
  hd_h264_1080i_20s.ts    20 s 1920x1080 interlaced H.264 (x264 MBAFF, tff, 8 Mbit/s, one
                          slice a picture) + MP2 (bench/run.sh decode)
  hd_hevc_1080p50_20s.ts  20 s 1920x1080 progressive HEVC at 50 fps (x265, 6 Mbit/s, wavefront
                          rows: WPP) + AAC-LC (bench/run.sh decode)
  eac3.ts            MPEG-2 + E-AC-3
  sd_hevc_aac.ts     720x576 HEVC (x265) + AAC-LC in ADTS (DVB-T2 style), transport stream id 3
  sd_h264_latm.ts    720x576 H.264 + AAC-LC in LATM/LOAS (German DVB-T2 HD style), ts id 2
  zap_h264_latm.ts   sd_h264_latm.ts with testsrc's picture (4:3), zap_hevc_aac.ts sd_hevc_aac.ts
                     with testsrc2's turned upside down (4:3): three services a screen capture
                     tells apart from sd_mpeg2_mp2.ts and each other (vm_vdr_zap)
                     (the ids: VDR takes a new transponder with the old one's ids for the old)
  dts.ts, dts.mpg    MPEG-2 + DTS (ffmpeg's encoder): raw in TS, DVD substream 0x88 in PS
  s302m.ts           MPEG-2 + SMPTE 302M 16-bit stereo (DVB uncompressed audio, as vidtv sends)
  still.m2v          the first picture of sd_mpeg2_mp2.ts as a raw MPEG-2 elementary stream
                     (sequence header + I-picture, as VIDEO_STILLPICTURE gets it)
  tone.ac3           raw AC-3 stereo (for IEC 61937 bursts built by the tests)
  avsync.ts          60 s 720x576 MPEG-2 + MP2: black, a white frame at every whole second
                     and a 40 ms 1 kHz tone burst starting at the same instant
  resize_a.ts        720x576 MPEG-2 + MP2, 1 s
  resize_b.ts        544x576 MPEG-2 + MP2, 1 s, timestamps continuing resize_a.ts
  resize.ts          resize_a.ts and resize_b.ts concatenated byte-wise
USAGE
}

if [ $# -ge 1 ] && { [ "$1" = --help ] || [ "$1" = -h ]; }; then
	usage
	exit 0
fi
if [ $# -lt 2 ]; then
	usage >&2
	exit 2
fi
if ! command -v ffmpeg >/dev/null 2>&1; then
	echo "gen-streams.sh: SKIP: the ffmpeg command-line tool is missing (apt-get install ffmpeg)" >&2
	exit 77
fi

out=$1
shift
mkdir -p "$out"

ff() { ffmpeg -hide_banner -loglevel error -nostdin -y "$@"; }
BX="-fflags +bitexact"
SD="testsrc2=size=720x576:rate=25"
# distinct tones left and right, so that a channel swap shows
ST="aevalsrc=0.4*sin(2*PI*440*t)|0.4*sin(2*PI*660*t):s=48000:c=stereo"
S51="aevalsrc=0.3*sin(2*PI*440*t)|0.3*sin(2*PI*550*t)|0.3*sin(2*PI*660*t)|0.1*sin(2*PI*60*t)|0.3*sin(2*PI*770*t)|0.3*sin(2*PI*880*t):s=48000:c=5.1"
MPEG2_I="-aspect 4:3 -c:v mpeg2video -b:v 5M -maxrate 8M -bufsize 1835k -g 12 -bf 2 -flags +bitexact+ilme+ildct -top 1"

gen_one() { # gen_one NAME TMPFILE: writes stream NAME to TMPFILE
	case $1 in
	sd_mpeg2_mp2.ts)
		ff $BX -f lavfi -i "$SD:duration=2" -f lavfi -i "$ST:d=2" $MPEG2_I \
			-c:a mp2 -b:a 192k -f mpegts "$2" ;;
	sd_mpeg2_mp2.mpg)
		ff $BX -f lavfi -i "$SD:duration=2" -f lavfi -i "$ST:d=2" $MPEG2_I \
			-c:a mp2 -b:a 192k -f vob "$2" ;;
	sd_mpeg2_ac3.ts)
		ff $BX -f lavfi -i "smptebars=size=720x576:rate=25:duration=2" -f lavfi -i "$S51:d=2" \
			$MPEG2_I -c:a ac3 -b:a 384k -f mpegts "$2" ;;
	sd_mpeg2_ac3.mpg)
		ff $BX -f lavfi -i "smptebars=size=720x576:rate=25:duration=2" -f lavfi -i "$ST:d=2" \
			$MPEG2_I -c:a ac3 -b:a 192k -f vob "$2" ;;
	sd_mpeg2_lpcm.mpg)
		ff $BX -f lavfi -i "$SD:duration=2" -f lavfi -i "$ST:d=2" $MPEG2_I \
			-c:a pcm_s16be -f vob "$2" 2>&1 | grep -v 'buffer underflow\|Last message\|packet too large' >&2 || true
		[ -s "$2" ] ;;
	sd_mpeg1_mp3.mpg)
		ff $BX -f lavfi -i "testsrc2=size=352x288:rate=25:duration=2" \
			-f lavfi -i "aevalsrc=0.4*sin(2*PI*440*t)|0.4*sin(2*PI*660*t):s=44100:c=stereo:d=2" \
			-c:v mpeg1video -b:v 1500k -g 12 -bf 2 -flags +bitexact \
			-c:a libmp3lame -b:a 128k -f mpeg "$2" ;;
	hd_mpeg2_1080i.ts)
		ff $BX -f lavfi -i "testsrc2=size=1920x1080:rate=25:duration=2" -f lavfi -i "$ST:d=2" \
			-aspect 16:9 -c:v mpeg2video -b:v 15M -maxrate 20M -bufsize 7M -g 12 -bf 2 \
			-flags +bitexact+ilme+ildct -top 1 -c:a mp2 -b:a 192k -f mpegts "$2" ;;
	hd_h264_1080i.ts)
		ff $BX -f lavfi -i "testsrc2=size=1920x1080:rate=25:duration=2" -f lavfi -i "$ST:d=2" \
			-c:v libx264 -preset veryfast -threads 2 -b:v 8M -g 25 -bf 2 -pix_fmt yuv420p \
			-flags +bitexact+ilme+ildct -x264-params tff=1 -c:a mp2 -b:a 192k \
			-f mpegts "$2" ;;
	hd_h264_1080i_20s.ts)
		ff $BX -f lavfi -i "testsrc2=size=1920x1080:rate=25:duration=20" -f lavfi -i "$ST:d=20" \
			-c:v libx264 -preset veryfast -threads 2 -b:v 8M -maxrate 10M -bufsize 8M -g 25 \
			-bf 2 -pix_fmt yuv420p -flags +bitexact+ilme+ildct -x264-params tff=1 \
			-c:a mp2 -b:a 192k -f mpegts "$2" ;;
	hd_hevc_1080p50_20s.ts)
		ff $BX -f lavfi -i "testsrc2=size=1920x1080:rate=50:duration=20" -f lavfi -i "$ST:d=20" \
			-c:v libx265 -preset ultrafast -x265-params log-level=error:pools=2:frame-threads=1:wpp=1 \
			-b:v 6M -maxrate 8M -bufsize 6M -g 50 -bf 2 -pix_fmt yuv420p -c:a aac -b:a 128k \
			-f mpegts "$2" ;;
	sd_h264_mp2.ts)
		ff $BX -f lavfi -i "$SD:duration=2" -f lavfi -i "$ST:d=2" \
			-c:v libx264 -preset veryfast -threads 2 -b:v 2M -g 25 -bf 2 -pix_fmt yuv420p \
			-flags +bitexact -c:a mp2 -b:a 192k -f mpegts "$2" ;;
	sd_hevc_aac.ts)
		ff $BX -f lavfi -i "$SD:duration=2" -f lavfi -i "$ST:d=2" \
			-c:v libx265 -preset ultrafast -x265-params log-level=error:pools=none:frame-threads=1 \
			-b:v 2M -g 25 -bf 2 -pix_fmt yuv420p -c:a aac -b:a 128k \
			-mpegts_transport_stream_id 3 -f mpegts "$2" ;;
	sd_h264_latm.ts)
		ff $BX -f lavfi -i "$SD:duration=2" -f lavfi -i "$ST:d=2" \
			-c:v libx264 -preset veryfast -threads 2 -b:v 2M -g 25 -bf 2 -pix_fmt yuv420p \
			-flags +bitexact -c:a aac -b:a 128k -mpegts_flags latm \
			-mpegts_transport_stream_id 2 -f mpegts "$2" ;;
	zap_h264_latm.ts)
		ff $BX -f lavfi -i "testsrc=size=720x576:rate=25:duration=2" -f lavfi -i "$ST:d=2" \
			-c:v libx264 -preset veryfast -threads 2 -b:v 2M -g 25 -bf 2 -pix_fmt yuv420p \
			-aspect 4:3 -flags +bitexact -c:a aac -b:a 128k -mpegts_flags latm \
			-mpegts_transport_stream_id 2 -f mpegts "$2" ;;
	zap_hevc_aac.ts)
		ff $BX -f lavfi -i "$SD:duration=2,hflip,vflip" -f lavfi -i "$ST:d=2" \
			-c:v libx265 -preset ultrafast -x265-params log-level=error:pools=none:frame-threads=1 \
			-b:v 2M -g 25 -bf 2 -pix_fmt yuv420p -aspect 4:3 -c:a aac -b:a 128k \
			-mpegts_transport_stream_id 3 -f mpegts "$2" ;;
	dts.ts)
		ff $BX -f lavfi -i "$SD:duration=2" -f lavfi -i "$ST:d=2" $MPEG2_I \
			-c:a dca -strict -2 -b:a 768k -f mpegts "$2" ;;
	dts.mpg)
		ff $BX -f lavfi -i "$SD:duration=2" -f lavfi -i "$ST:d=2" $MPEG2_I \
			-c:a dca -strict -2 -b:a 768k -f vob "$2" ;;
	eac3.ts)
		ff $BX -f lavfi -i "$SD:duration=2" -f lavfi -i "$ST:d=2" $MPEG2_I \
			-c:a eac3 -b:a 192k -f mpegts "$2" ;;
	s302m.ts)
		ff $BX -f lavfi -i "$SD:duration=2" -f lavfi -i "$ST:d=2" $MPEG2_I \
			-c:a s302m -sample_fmt s16 -strict -2 -f mpegts "$2" ;;
	still.m2v)
		sh "$0" "$out" sd_mpeg2_mp2.ts >/dev/null
		ff -i "$out/sd_mpeg2_mp2.ts" -map 0:v -frames:v 1 -c copy -f mpeg2video "$2" ;;
	tone.ac3)
		ff $BX -f lavfi -i "$ST:d=2" -c:a ac3 -b:a 192k -flags +bitexact -f ac3 "$2" ;;
	avsync.ts)
		ff $BX -f lavfi -i "color=c=black:size=720x576:rate=25:duration=60,format=yuv420p,drawbox=x=0:y=0:w=iw:h=ih:color=white:t=fill:enable='eq(mod(n\,25)\,0)'" \
			-f lavfi -i "aevalsrc=lt(mod(t\,1)\,0.04)*0.5*sin(2*PI*1000*t):s=48000:d=60" \
			-c:v mpeg2video -b:v 2M -g 12 -bf 2 -flags +bitexact -ac 2 -c:a mp2 -b:a 192k \
			-f mpegts "$2" ;;
	resize_a.ts)
		ff $BX -f lavfi -i "$SD:duration=1" -f lavfi -i "$ST:d=1" $MPEG2_I \
			-c:a mp2 -b:a 192k -f mpegts "$2" ;;
	resize_b.ts)
		ff $BX -f lavfi -i "testsrc2=size=544x576:rate=25:duration=1" -f lavfi -i "$ST:d=1" \
			$MPEG2_I -c:a mp2 -b:a 192k -output_ts_offset 1 -f mpegts "$2" ;;
	resize.ts)
		sh "$0" "$out" resize_a.ts resize_b.ts >/dev/null
		cat "$out/resize_a.ts" "$out/resize_b.ts" >"$2" ;;
	esac
}

# the names gen_one knows (checked before anything is made)
NAMES="sd_mpeg2_mp2.ts sd_mpeg2_mp2.mpg sd_mpeg2_ac3.ts sd_mpeg2_ac3.mpg sd_mpeg2_lpcm.mpg
sd_mpeg1_mp3.mpg hd_mpeg2_1080i.ts hd_h264_1080i.ts sd_h264_mp2.ts eac3.ts s302m.ts still.m2v tone.ac3
hd_h264_1080i_20s.ts hd_hevc_1080p50_20s.ts
sd_hevc_aac.ts sd_h264_latm.ts zap_h264_latm.ts zap_hevc_aac.ts dts.ts dts.mpg
avsync.ts resize_a.ts resize_b.ts resize.ts"
for name in "$@"; do
	case " $(echo $NAMES) " in
	*" $name "*) ;;
	*)
		echo "gen-streams.sh: unknown stream name '$name' (see --help)" >&2
		exit 2 ;;
	esac
done

rc=0
for name in "$@"; do
	dst=$out/$name
	if [ ! -s "$dst" ]; then
		tmp=$out/.tmp.$$.$name
		if gen_one "$name" "$tmp"; then
			mv -f "$tmp" "$dst"
		else
			rm -f "$tmp"
			echo "gen-streams.sh: ffmpeg failed making $name" >&2
			rc=1
			continue
		fi
	fi
	echo "$dst"
done
exit $rc
