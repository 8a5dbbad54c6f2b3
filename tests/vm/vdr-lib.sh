# SPDX-License-Identifier: GPL-2.0-or-later
# Shared by the VDR VM tests (sourced after lib.sh, POSIX sh; docs/vdr.md): the VM's syslog,
# ffdvbd headless, VDR's config and VDR itself in the sysfs view, SVDRP and small probes.
# The sourcing script sets $bin, $streams, $out, $syslog and $video (a folder of recordings);
# optional: $VDR_DAEMON_RUN_AS (ffdvbd drops to that user), $daemon_args (more ffdvbd
# options), $vdr_setup (lines of VDR's setup.conf),
# $no_record (set: ffdvbd without --record), $vdr_output (ffdvbd's --output, default none), $ctl_args (ffdvbctl's adapter), $vdr_channels
# (VDR's channels.conf), $vdr_plugin (the dvbsddevice argument, default "dvbsddevice -o"),
# $vdr_args (more VDR options).
port=6419
T=$(mktemp -d /tmp/vdr.XXXXXX)
# a VDR that dies of a signal leaves a core in $T/cores for vdr_crash_report: VDR drops to its
# user and then dumps only with --userdump (vdr_start) and suid_dumpable 2, which the kernel
# takes only after an absolute core_pattern (the VM is thrown away after the test)
mkdir -p "$T/cores"
chmod 1777 "$T/cores"
echo "$T/cores/core.%e.%p" > /proc/sys/kernel/core_pattern 2> /dev/null
echo 2 > /proc/sys/fs/suid_dumpable 2> /dev/null
ulimit -c unlimited 2> /dev/null
# the results share is kept between runs (ctest): logs that are appended to start empty, so
# that no check finds a line of an earlier run
rm -rf "$out/syslog.log" "$out/svdrp.log" "$out/measure.log" "$out/ffdvbd.log" "$out/record" \
	"$out/trace.log"

svdrp() { svdrpsend -d 127.0.0.1 -p $port "$@" >> "$out/svdrp.log" 2>&1; }
# waits up to $1 tenths of a second for the ERE $2 in the syslog lines after log_mark's
log_mark() { mark=$(wc -l < "$syslog" 2> /dev/null || echo 0); }
mark=0
new_log() { tail -n +$((mark + 1)) "$syslog" 2> /dev/null | grep -Eq "$1"; }
wait_log() {
	_i=0
	until new_log "$2" || [ $_i -ge "$1" ]; do _i=$((_i + 1)); sleep 0.1; done
	new_log "$2"
}
# ffdvbctl for the adapter under test ($ctl_args: e.g. --adapter 1; empty: adapter 0)
# shellcheck disable=SC2086 # ctl_args is a word list
ctl() { "$bin/ffdvbctl" ${ctl_args:-} "$@"; }
json() { ctl status --json | sed -n "s/.*\"$1\":\([0-9]*\).*/\1/p"; }
# one value of the status by its JSON path, e.g. decoder.audio_codec (json() above reads
# top-level numbers only); None when the path is not there
jget() {
	ctl status --json | python3 -c "import json,sys
v=json.load(sys.stdin)
for k in sys.argv[1].split('.'): v=v.get(k) if isinstance(v, dict) else None
print(v)" "$1"
}
# nonzero unless the file $1 reads here as its Debian package recorded it (dpkg's md5sums)
read_as_packaged() {
	_rel=${1#/}
	_sums=$(grep -l " $_rel\$" /var/lib/dpkg/info/*.md5sums 2> /dev/null | head -n 1)
	[ -n "$_sums" ] || return 0 # no record: nothing to hold it against
	[ "$(grep " $_rel\$" "$_sums" | cut -d' ' -f1)" = "$(md5sum < "$1" | cut -d' ' -f1)" ]
}
# VDR's fonts copied into the VM's RAM overlay, in the background once per VM (vdr_start
# waits for it): FreeType maps a font file, and in CI VDR's map of a font over the 9p
# share held bytes that no font has ("FreeType: load error 2"; VDR then crashed in
# FT_Done_Face) although the file read intact afterwards. The three files are what fontconfig
# gives on Debian 12 for VDR's default FontOsd, FontSml and FontFix (asking fc-match costs 5 s
# under TCG); each copy is checked against its package before it takes the file's place. The
# folder keeps its time, so fontconfig's cache stays valid (VDR, as user vdr, cannot rewrite it).
fonts_to_ram() {
	_dir=/usr/share/fonts/truetype/dejavu
	_sums=/var/lib/dpkg/info/fonts-dejavu-core.md5sums
	_names='DejaVuSans-Bold DejaVuSans DejaVuSansMono-Bold'
	[ -f "$_sums" ] || { echo "INFRA: no $_sums: VDR's fonts stay on 9p" >&2; return 0; }
	touch -r "$_dir" "$T/dir-time"
	_ok=
	for _try in 1 2 3; do
		for _n in $_names; do cp -p "$_dir/$_n.ttf" "$_dir/$_n.ttf.ram"; done
		for _n in $_names; do grep " ${_dir#/}/$_n.ttf\$" "$_sums"; done | sed 's/$/.ram/' |
			(cd / && md5sum -c --quiet) >&2 && { _ok=1; break; }
		echo "INFRA: VDR's fonts copied to RAM differ from their package (try $_try)" >&2
		echo 3 > /proc/sys/vm/drop_caches
	done
	for _n in $_names; do
		if [ -n "$_ok" ]; then mv -f "$_dir/$_n.ttf.ram" "$_dir/$_n.ttf"; else rm -f "$_dir/$_n.ttf.ram"; fi
	done
	touch -m -r "$T/dir-time" "$_dir"
}
fonts_to_ram &
fonts_job=$!
# The number of ERROR lines in VDR's log. A FreeType load error is not counted when this VM
# reads the font otherwise than its package recorded: the VM's 9p share of the host's files
# gave VDR bad bytes (seen once in CI), which is neither VDR's nor the card's doing. Said on
# stderr either way.
vdr_log_errors() {
	_n=0
	while IFS= read -r _line; do
		[ -n "$_line" ] || continue
		_font=$(printf '%s\n' "$_line" | sed -n 's/.*ERROR: FreeType: load error .* (font = \(.*\))$/\1/p')
		if [ -n "$_font" ] && [ -f "$_font" ] && ! read_as_packaged "$_font"; then
			echo "INFRA: not counted, $_font reads corrupt in this VM (md5 differs from its package's): $_line" >&2
			continue
		fi
		[ -n "$_font" ] && echo "vdr: $_font reads intact here: a real FreeType error" >&2
		_n=$((_n + 1))
	done <<EOF
$(grep 'ERROR' "$syslog")
EOF
	echo $_n
}
now() { date +%s.%N; }
# seconds since boot: CLOCK_BOOTTIME, equal to CLOCK_MONOTONIC (the headless record's clock) in
# a guest that never suspends
uptime_s() { cut -d' ' -f1 /proc/uptime; }
# STC ticks in the wall-clock time between two now() values
ticks() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%d", (b - a) * 90000 }'; }

# syslog (VDR logs only there; loopback is up in every guest: scripts/vm/guest-init.sh), dvb_core for the mount point, ffdvbd
vdr_env_start() {
	if [ -z "${syslogd:-}" ]; then
		busybox syslogd -n -O "$syslog" &
		syslogd=$!
	fi
	[ -c /dev/cuse ] || modprobe cuse
	modprobe dvb_core 2> /dev/null
	mkdir -p "$out/record"
	set -- --record "$out/record"
	[ -n "${no_record:-}" ] && set --
	# VDR_DAEMON_RUN_AS=USER: the daemon drops to USER, without any capability: VDR's ioctl
	# payloads then come through CUSE's retries (the record folder must be the user's)
	if [ -n "${VDR_DAEMON_RUN_AS:-}" ]; then
		chown "$VDR_DAEMON_RUN_AS" "$out/record"
		set -- "$@" --run-as "$VDR_DAEMON_RUN_AS"
	fi
	# shellcheck disable=SC2086 # daemon_args is a word list
	"$bin/ffdvbd" --foreground --output "${vdr_output:-none}" "$@" -v ${daemon_args:-} \
		>> "$out/ffdvbd.log" 2>&1 &
	pid=$!
	_i=0
	until ctl status > /dev/null 2>&1 || [ $_i -gt 300 ]; do _i=$((_i + 1)); sleep 0.1; done
	ctl status > /dev/null 2>&1
	check $? "daemon: ready"
}

# VDR's config and video folders in $T, VDR (user vdr) started by ffdvb-run-vdr, and a trace
# (none with no_trace=1: tracing every write costs a TCG guest time);
# waits for VDR's SVDRP server (a check) unless $1 is "nowait"
vdr_start() {
	[ -z "${fonts_job:-}" ] || wait "$fonts_job"
	fonts_job=
	mkdir -p "$T/cfg" "$T/video" "$T/cache" "$T/grab"
	echo 127.0.0.1 > "$T/cfg/svdrphosts.conf"
	printf '%s' "${vdr_setup:-}" > "$T/cfg/setup.conf"
	for _f in sources.conf diseqc.conf scr.conf keymacros.conf; do cp "/etc/vdr/$_f" "$T/cfg/"; done
	echo "${vdr_channels:-Test;Emu:514000:B8C23D12G8M16S0T8Y0:T:27500:511=2:512=deu@3;513=deu@106:0:0:1:8916:514:0}" \
		> "$T/cfg/channels.conf"
	cp -r "$video/." "$T/video/"
	# a finished recording: VDR treats an index file younger than an hour as one still being
	# written (time-shift) and, at its end, waits for it to grow, 0.8 s per frame it plays
	find "$T/video" -name index -exec touch -d '2024-01-01 12:00' {} +
	chown -R vdr:vdr "$T"
	log_mark
	tracer=
	if [ -z "${no_trace:-}" ]; then
		ctl trace > "$out/trace.log" 2>&1 &
		tracer=$!
		sleep 0.3
	fi
	# shellcheck disable=SC2086 # vdr_args is a word list
	"$here/../../scripts/ffdvb-run-vdr" -- -u vdr -c "$T/cfg" -v "$T/video" --cachedir="$T/cache" \
		-E- -L /usr/lib/vdr/plugins --resdir=/usr/share/vdr --no-kbd -l 3 -p $port \
		-g "$T/grab" -P"${vdr_plugin:-dvbsddevice -o}" --userdump ${vdr_args:-} > "$out/vdr.out" 2>&1 &
	vdr=$!
	[ "${1:-}" = nowait ] && return 0
	wait_log 300 'SVDRP .* listening on port'
	check $? "vdr: started, SVDRP listening"
}

# what is known of a VDR that died of a signal (exit status $1 > 128): the kernel's line on
# it, the end of its output and of the syslog, and with gdb each thread's stack from its core
vdr_crash_report() {
	echo "=== VDR died of signal $(($1 - 128)); the kernel's lines on it:" >&2
	dmesg 2> /dev/null | grep -E 'vdr|segfault|traps:' | tail -n 5 >&2
	echo "=== the end of VDR's output and of the syslog:" >&2
	tail -n 15 "$out/vdr.out" >&2
	tail -n 10 "$syslog" >&2
	for _c in "$T"/cores/core.*; do
		[ -e "$_c" ] || { echo "=== no core (core_pattern: $(cat /proc/sys/kernel/core_pattern))" >&2; break; }
		if command -v gdb > /dev/null; then
			echo "=== each thread's stack in $_c:" >&2
			gdb -batch -nx -ex 'thread apply all bt 25' "$(command -v vdr)" "$_c" 2>&1 |
				grep -E '^(#|Thread|Program terminated)' >&2
		else
			echo "=== VDR left a core; with gdb (apt-get install gdb) its stacks would be here" >&2
		fi
		rm -f "$_c"
	done
}

# SIGTERM to VDR (exit 0 expected), the tracer ends, then the daemon and syslogd
vdr_stop() {
	kill -TERM "$vdr" 2> /dev/null || echo "vdr_stop: VDR had already ended" >&2
	wait "$vdr"
	_rc=$?
	[ "$_rc" -gt 128 ] && [ "$_rc" != 143 ] && vdr_crash_report "$_rc"
	if [ "$_rc" = 134 ] && grep -q 'pure virtual method called' "$out/vdr.out"; then
		# VDR 2.6's own shutdown race (a device thread still running while the device is
		# destroyed, after "stopping plugin"); seen rarely with live TV: docs/vdr.md
		echo "NOTE: VDR aborted in its own teardown ('pure virtual method called'): not ffdvb's" >&2
		_rc=0
	fi
	[ "$_rc" = 0 ]
	check $? "vdr: SIGTERM -> exit status 0 (got $_rc; 134 with VDR's teardown race counts as 0)"
	[ -n "$tracer" ] || return 0
	kill "$tracer" 2> /dev/null
	wait "$tracer" 2> /dev/null
}
vdr_env_stop() {
	stop_daemon "$pid"
	[ "${1:-}" = keep-syslog ] || kill "$syslogd" 2> /dev/null
}

# tone END: the sound of the headless record ($out/record, after `ctl record`) heard in the 3 s
# before END (uptime s; where what is judged has long been playing), as "HZ RMS SECONDS": frequency by upward zero crossings of the left channel
tone() {
	python3 - "$out/record/pictures.log" "$out/record/sound.s16" "$1" << 'EOF'
import array, math, sys
log, pcm, end = sys.argv[1], sys.argv[2], float(sys.argv[3])
a, b = end - 3.5, end - 0.5
data = array.array('h')
with open(pcm, 'rb') as f:
    data.frombytes(f.read())
left = data[0::2]
ups = n = 0
sq = 0.0
for line in open(log):
    f = line.split()
    if f[0] != 'sound' or not a <= int(f[1]) / 1e9 <= b:
        continue
    off, cnt = int(f[3]), int(f[4])
    chunk = left[off:off + cnt]
    for i in range(1, len(chunk)):
        if chunk[i - 1] < 0 <= chunk[i]:
            ups += 1
    sq += sum(v * v for v in chunk)
    n += len(chunk)
if n == 0:
    print('0 0 0')
else:
    print('%.0f %.0f %.2f' % (ups * 48000 / n, math.sqrt(sq / n), n / 48000))
EOF
}
# near HZ WANT: within 3 % and loud enough (the test tones are far above 300 RMS)
near() { awk -v h="$1" -v r="$2" -v w="$3" 'BEGIN { exit !(h >= w * 0.97 && h <= w * 1.03 && r > 300) }'; }
