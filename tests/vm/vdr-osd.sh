#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# usage: vdr-osd.sh BINDIR STREAMDIR                    (inside the VM, as root: scripts/vm.sh)
# VDR's OSD on the emulated adapter (setup as vdr.sh, vdr-lib.sh) for the three built-in skins
# (lcars, classic, sttng), with ffdvbd's default OSD memory (1000000 bytes: one 8-bit window)
# and with the stock card's 92000 bytes (several 1/2/4-bit windows): HITK Menu opens the main
# menu, the screenshot equals the windows our OSD model rendered (ffdvbctl osd-dump) placed
# over black, and the menu covers a good part of the OSD area; HITK Back closes every window.
# Prints PASS/FAIL and "vdr-osd.sh: N passed, M failed".
set -u
bin=${1:?usage: vdr-osd.sh BINDIR STREAMDIR}
streams=${2:?usage: vdr-osd.sh BINDIR STREAMDIR}
here=$(cd "$(dirname "$0")" && pwd)
out=${VM_OUT:-$(mktemp -d)}
syslog=$out/syslog.log
log=$syslog
video=$streams/vdr-video
script_name=vdr-osd.sh
. "$here/lib.sh"
. "$here/vdr-lib.sh"

# the OSD windows shown (osd-dump into $1): prints their count
shown_windows() {
	rm -rf "$1"
	mkdir -p "$1"
	"$bin/ffdvbctl" osd-dump "$1" > "$1.out" 2>&1
	grep -c ', shown' "$1.out"
}
# the model: every shown window of osd-dump $1 at its position over black 720x576 -> rgb24 $2
model_rgb() {
	_in="-f lavfi -i color=black:s=720x576" _fc="" _last="0:v" _n=0
	while read -r _w _num _size _at _pos _rest; do
		_n=$((_n + 1))
		_num=${_num%:}
		_x=$(echo "$_pos" | sed 's/[(),]/ /g' | awk '{ print $1 }')
		_y=$(echo "$_pos" | sed 's/[(),]/ /g' | awk '{ print $2 }')
		_in="$_in -i $1/window-$_num.png"
		_fc="$_fc[$_last][$_n:v]overlay=$_x:$_y:format=auto[o$_n];"
		_last=o$_n
	done <<- END
	$(grep ', shown' "$1.out")
	END
	# shellcheck disable=SC2086
	ffmpeg -hide_banner -loglevel error -nostdin -y $_in -filter_complex "${_fc%;}" \
		-map "[$_last]" -frames:v 1 -f rawvideo -pix_fmt rgb24 "$2"
}
png_rgb() { ffmpeg -hide_banner -loglevel error -nostdin -y -i "$1" -f rawvideo -pix_fmt rgb24 "$2"; }
# bytes of two rgb24 files differing by more than 2
off_bytes() {
	cmp -l "$1" "$2" 2> /dev/null | awk '
	function oct(s,  v, i) { v = 0; for (i = 1; i <= length(s); i++) v = v * 8 + substr(s, i, 1); return v }
	{ d = oct($2) - oct($3); if (d > 2 || d < -2) n++ } END { print n + 0 }'
}

total=$((720 * 576 * 3))
for mem in 1000000 92000; do
	daemon_args="--osd-memsize $mem"
	vdr_env_start
	for skin in lcars classic sttng; do
		tag=$skin-$mem
		vdr_setup="OSDSkin = $skin
OSDTheme = default
"
		vdr_start
		# VDR shows the channel display after its start; a key would only close it: wait
		# until it has come and gone
		i=0
		while [ "$(shown_windows "$out/$tag-start")" = 0 ] && [ $i -lt 20 ]; do i=$((i + 1)); sleep 0.5; done
		i=0
		while [ "$(shown_windows "$out/$tag-start")" != 0 ] && [ $i -lt 30 ]; do i=$((i + 1)); sleep 0.5; done
		"$bin/ffdvbctl" screenshot "$out/$tag-black.png"
		svdrp HITK Menu
		sleep 3
		n=$(shown_windows "$out/$tag-menu")
		"$bin/ffdvbctl" screenshot "$out/$tag-menu.png"
		# the main menu starts at the top of the OSD area, the channel display does not
		[ "$n" -ge 1 ] && grep -q 'at (58,46), .*shown' "$out/$tag-menu.out"
		check $? "$tag: HITK Menu opens $n window(s): $(grep ', shown' "$out/$tag-menu.out" | sed 's/ ->.*//' | tr '\n' ';')"
		png_rgb "$out/$tag-black.png" "$out/$tag-black.rgb"
		png_rgb "$out/$tag-menu.png" "$out/$tag-menu.rgb"
		model_rgb "$out/$tag-menu" "$out/$tag-model.rgb"
		off=$(off_bytes "$out/$tag-model.rgb" "$out/$tag-menu.rgb")
		[ -s "$out/$tag-model.rgb" ] && [ "$off" -le $((total / 100)) ]
		check $? "$tag: the screenshot is the OSD model's windows over black ($off bytes off by more than 2)"
		cover=$(off_bytes "$out/$tag-black.rgb" "$out/$tag-menu.rgb")
		[ "$cover" -ge $((total / 20)) ]
		check $? "$tag: the menu is on screen ($cover of $total bytes differ from the screen before)"
		svdrp HITK Back
		sleep 2
		n=$(shown_windows "$out/$tag-back")
		[ "$n" = 0 ]
		check $? "$tag: HITK Back closes the menu ($n windows shown)"
		vdr_stop
	done
	vdr_env_stop keep-syslog
done
if [ -n "${VDR_DAEMON_RUN_AS:-}" ]; then
	grep -q "callers' memory is not readable" "$out/ffdvbd.log"
	check $? "daemon: dropped to $VDR_DAEMON_RUN_AS, VDR's payloads through CUSE retries"
fi
errs=$(vdr_log_errors)
[ "$errs" = 0 ]
check $? "vdr: no ERROR lines in its log ($errs)"
kill "$syslogd" 2> /dev/null
finish
