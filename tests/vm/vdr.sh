#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# usage: vdr.sh BINDIR STREAMDIR                        (inside the VM, as root: scripts/vm.sh)
# Unmodified VDR 2.6 + vdr-plugin-dvbsddevice on the emulated adapter (docs/vdr.md):
# ffdvbd headless (--output none --record), its synthetic /sys/class/dvb view, VDR started by
# scripts/ffdvb-run-vdr as user vdr with -P"dvbsddevice -o", its syslog captured by busybox
# syslogd. Checks: the view matches the frontend node; VDR creates cDvbSdFfDevice for adapter 0
# and makes it primary; HITK Menu puts VDR's menu on screen (screenshot, OSD region) and HITK
# Back removes it; a recording (vdr-host.sh: ffmpeg + vdr --genindex) started over SVDRP plays:
# screenshot, pictures equal to ffmpeg's decode in order, DMX_GET_STC advancing with play and
# standing still in pause, VDR's STC calls succeeding; VDR and the daemon exit cleanly.
# Prints PASS/FAIL and "vdr.sh: N passed, M failed".
set -u
bin=${1:?usage: vdr.sh BINDIR STREAMDIR}
streams=${2:?usage: vdr.sh BINDIR STREAMDIR}
here=$(cd "$(dirname "$0")" && pwd)
out=${VM_OUT:-$(mktemp -d)}
syslog=$out/syslog.log
log=$syslog
script_name=vdr.sh
. "$here/lib.sh"
video=$streams/vdr-video
. "$here/vdr-lib.sh"

for f in ffdvbd ffdvbctl; do
	[ -x "$bin/$f" ] || { fail "setup: $bin/$f is not built"; finish; }
done
[ -s "$streams/vdr-video.framemd5" ] || { fail "setup: $streams/vdr-video.framemd5 missing (vdr-host.sh makes it)"; finish; }

# rgb24 dump of a PNG (ffmpeg CLI) cropped to the default OSD area (58,46)-(681,529)
osd_rgb() {
	ffmpeg -hide_banner -loglevel error -nostdin -y -i "$1" -vf crop=624:484:58:46 \
		-f rawvideo -pix_fmt rgb24 "$2"
}
png_dims() { od -An -tu1 -j16 -N8 "$1" 2>/dev/null | awk '{ print $3 * 256 + $4 "x" $7 * 256 + $8 }'; }

vdr_env_start

# the view: dev of the frontend entry = the node's MAJ:MIN, an av7110 subsystem id
view=/run/ffdvb/sys-class-dvb
fe=/dev/dvb/adapter0/frontend0
want=$(printf '%d:%d' "0x$(stat -c %t $fe)" "0x$(stat -c %T $fe)")
got=$(cat "$view/dvb0.frontend0/dev" 2> /dev/null)
[ "$got" = "$want" ]
check $? "sysfs view: dvb0.frontend0/dev is $want (got '$got')"
[ "$(cat "$view/dvb0.frontend0/device/subsystem_vendor" 2> /dev/null)" = 0x13c2 ] &&
	[ "$(cat "$view/dvb0.frontend0/device/subsystem_device" 2> /dev/null)" = 0x0003 ]
check $? "sysfs view: subsystem id 0x13c2:0x0003 (TechnoTrend av7110)"

vdr_start
grep -q 'probing /dev/dvb/adapter0/frontend0' "$syslog"
check $? "vdr: probes /dev/dvb/adapter0/frontend0"
grep -q 'creating cDvbSdFfDevice' "$syslog"
check $? "vdr: 'creating cDvbSdFfDevice' (dvbsddevice accepted the emulated adapter)"
grep -q 'setting primary device to 1' "$syslog"
check $? "vdr: 'setting primary device to 1'"
wait_log 100 'OSD size changed to 720x576'
check $? "vdr: 'OSD size changed to 720x576' (VIDEO_GET_SIZE answered)"

# OSD over the black screen. VDR shows the channel display first (its channel cannot be
# tuned with -o); a key would only close it, so wait until no OSD window is shown.
shown_windows() {
	mkdir -p "$1"
	"$bin/ffdvbctl" osd-dump "$1" > "$1.out" 2>&1
	grep -c 'shown' "$1.out"
}
i=0
while [ "$(shown_windows "$out/osd-start")" = 0 ] && [ $i -lt 20 ]; do i=$((i + 1)); sleep 0.5; done
i=0
while [ "$(shown_windows "$out/osd-start")" != 0 ] && [ $i -lt 30 ]; do i=$((i + 1)); sleep 0.5; done
"$bin/ffdvbctl" screenshot "$out/shot-black.png"
check $? "screenshot before the menu"
svdrp HITK Menu
sleep 2
"$bin/ffdvbctl" screenshot "$out/shot-menu.png"
check $? "screenshot with the menu ($(png_dims "$out/shot-menu.png"))"
mkdir -p "$out/osd-menu"
shown_windows "$out/osd-menu" > /dev/null
# lcars with the default 1000000-byte OSD memory: one 8-bit window 624x484 at (58,46)
grep -q '^window 1: 624x484 at (58,46), 8 bit, shown' "$out/osd-menu.out"
check $? "HITK Menu: VDR's menu window is open on osd0 ($(grep shown "$out/osd-menu.out" | head -1))"
svdrp HITK Back
sleep 2
"$bin/ffdvbctl" screenshot "$out/shot-back.png"
mkdir -p "$out/osd-back"
n=$(shown_windows "$out/osd-back")
[ "$n" = 0 ]
check $? "HITK Back: no OSD window shown any more ($n)"
osd_rgb "$out/shot-black.png" "$out/black.rgb" && osd_rgb "$out/shot-menu.png" "$out/menu.rgb" &&
	osd_rgb "$out/shot-back.png" "$out/back.rgb"
check $? "screenshots cropped to the OSD area"
# differing bytes in the OSD area: the menu covers most of it
diff_menu=$(cmp -l "$out/black.rgb" "$out/menu.rgb" 2> /dev/null | wc -l)
total=$((624 * 484 * 3))
[ "$diff_menu" -ge $((total / 3)) ]
check $? "screenshot: the menu is on screen ($diff_menu of $total bytes of the OSD area differ from black)"
# the OSD area of the screenshot is the window our OSD model rendered (osd-dump, with its
# alpha) blended over black: every byte within 2 of it
ffmpeg -hide_banner -loglevel error -nostdin -y -f lavfi -i color=black:s=624x484 \
	-i "$out/osd-menu/window-1.png" -filter_complex overlay=format=auto -frames:v 1 \
	-f rawvideo -pix_fmt rgb24 "$out/model.rgb" 2> "$out/model.err"
off=$(cmp -l "$out/model.rgb" "$out/menu.rgb" 2> /dev/null | awk '
	function oct(s,  v, i) { v = 0; for (i = 1; i <= length(s); i++) v = v * 8 + substr(s, i, 1); return v }
	{ d = oct($2) - oct($3); if (d > 2 || d < -2) n++ } END { print n + 0 }')
[ -s "$out/model.rgb" ] && [ "$off" -le $((total / 100)) ]
check $? "screenshot: the OSD area is the OSD model's window over black ($off bytes off by more than 2)"
cmp -s "$out/black.rgb" "$out/back.rgb"
check $? "screenshot: the menu is gone after Back (OSD area as before)"

# replay over SVDRP
svdrp LSTR
grep -q '^250 1 ' "$out/svdrp.log"
check $? "SVDRP LSTR lists the recording"
svdrp PLAY 1 begin
grep -q '^250 Playing recording' "$out/svdrp.log"
check $? "SVDRP PLAY 1 begin"
t0=$(date +%s.%N)
sleep 2
"$bin/ffdvbctl" screenshot "$out/shot-play.png"
check $? "screenshot while playing"
[ "$(png_dims "$out/shot-play.png")" = 720x576 ]
check $? "screenshot: 720x576"
a=$(date +%s.%N); stc1=$(json stc); sleep 1; b=$(date +%s.%N); stc2=$(json stc)
d=$((stc2 - stc1))
want=$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%d", (b - a) * 90000 }')
# never faster than real time; slower only when a loaded TCG guest cannot decode in time
[ "$d" -gt 0 ] && [ "$d" -le $((want + want / 10 + 9000)) ]
check $? "DMX_GET_STC advances while playing ($stc1 -> $stc2: $d in the time of $want)"
svdrp HITK Pause
p0=$(date +%s.%N)
sleep 1
stc1=$(json stc); sleep 1; stc2=$(json stc)
[ "$stc1" = "$stc2" ] && [ "$stc1" != 0 ]
check $? "pause: STC stands still ($stc1 -> $stc2)"
svdrp HITK Play
p1=$(date +%s.%N)
sleep 1
stc3=$(json stc)
[ "$stc3" -gt "$stc2" ]
check $? "play after pause: STC moves on ($stc2 -> $stc3)"

# the end of the recording: VDR's player stops by itself (it watches the STC reach the end)
wait_log 1200 'dvbplayer thread ended'
check $? "end of recording detected by VDR (its player thread ended by itself)"
t1=$(date +%s.%N)
"$bin/ffdvbctl" status > "$out/status-end.txt" 2>&1
# paced by the device: replay time without the pause is about the recording's length (VDR
# takes up to ~4 s more to decide that the end is reached: MAXSTUCKATEOF)
pictures=$(grep -vc '^#' "$streams/vdr-video.framemd5")
took=$(awk -v a="$t0" -v b="$t1" -v p="$p0" -v q="$p1" 'BEGIN { printf "%.1f", b - a - (q - p) }')
# lower bound only: a loaded TCG guest manages fewer CUSE round trips than the stream needs
awk -v t="$took" -v n="$pictures" 'BEGIN { exit !(t >= n / 25 - 1.5) }'
check $? "pacing: $((pictures / 25)) s of recording replayed in $took s (pause excluded; at least $((pictures / 25)) - 1.5)"
sleep 1

grep -q 'ERROR: stc' "$syslog"
[ $? != 0 ]
check $? "vdr: no 'ERROR: stc' (DMX_GET_STC answered)"
errs=$(vdr_log_errors)
[ "$errs" = 0 ]
check $? "vdr: no ERROR lines in its log ($errs)"

"$bin/ffdvbctl" record > /dev/null
check $? "ffdvbctl record"
match_pictures "$out/record/pictures.log" "$streams/vdr-video.framemd5" "$out"
# each presented picture equals ffmpeg's decode and comes in order (the pause shows one
# picture longer, not twice); up to 10% may be missing (a TCG guest under load drops late
# ones), none may differ
[ "$pm_bad" = 0 ] && [ "$pm_twice" = 0 ] && [ "$pm_shown" -ge $((pm_total * 9 / 10)) ]
check $? "pictures: $pm_shown presented ($pm_bad not equal, $pm_twice shown twice), in order, each equal to ffmpeg's decode ($pm_total in the recording)"
# the replay ran to the end: the last picture of the recording (or one of the last 25 when
# pictures were dropped) was shown before VDR stopped
[ "$pm_last" -ge $((pictures - 25)) ]
check $? "end of recording: the last picture shown is number $pm_last of $pictures"

vdr_stop
# (the trace drops lines when its reader falls behind: only presence is checked)
for want in 'AUDIO_PAUSE' 'VIDEO_FREEZE' 'VIDEO_CONTINUE' 'DMX_GET_STC({...}) = 0'; do
	grep -qF "$want" "$out/trace.log"
	check $? "trace: VDR called $want"
done
vdr_env_stop
finish
