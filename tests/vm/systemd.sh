#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# usage: systemd.sh BINDIR STREAMDIR BUILD_DIR
#        (inside a VM booted with VM_INIT=systemd, as root: vdr-host.sh, test vm_systemd)
# ffdvb as a user installs it, under systemd as PID 1, with Debian's own vdr.service:
#   - the README's install command, as written there ('cmake --install build && systemd-sysusers
#     && ... && systemctl enable --now ffdvbd'), with BUILD_DIR for 'build'
#   - ffdvbd.service active (Type=notify: READY=1), its watchdog set and pinged, running as
#     ffdvb; the six nodes root:video 0660
#   - 'systemctl reload' applies a new log-level (quiet: a reload that changes nothing is no
#     longer logged), same main PID
#   - a config mistake: the daemon's own line in 'journalctl -u ffdvbd -p err' with PRIORITY=3,
#     no restart loop (exit status 2 is not restarted)
#   - Debian's vdr.service (unmodified, configured through /etc/vdr/conf.avail as Debian intends)
#     with the installed drop-in: VDR probes the emulated card, replays a recording over SVDRP,
#     every picture presented equals ffmpeg's decode (the daemon's record), the status counters
#   - 'systemctl restart ffdvbd' while VDR replays, then a crash (SIGKILL) of ffdvbd: whether VDR
#     comes back by itself (new main PID, the card probed again, a replay that runs), with times
# Times are printed as figures, never judged. Prints PASS/FAIL and "systemd.sh: N passed, M failed".
set -u
: "${1:?usage: systemd.sh BINDIR STREAMDIR BUILD_DIR}"   # BINDIR unused: the installed programs run
streams=${2:?usage: systemd.sh BINDIR STREAMDIR BUILD_DIR}
build=${3:?usage: systemd.sh BINDIR STREAMDIR BUILD_DIR}
here=$(cd "$(dirname "$0")" && pwd)
out=${VM_OUT:-$(mktemp -d)}
script_name=systemd.sh
. "$here/lib.sh"
conf=/etc/ffdvb/ffdvbd.conf
ctl=/usr/local/bin/ffdvbctl
nodes="video0 audio0 osd0 demux0 frontend0 dvr0"
rm -f "$out"/*.log "$out"/*.txt "$out"/*.json

now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
prop() { systemctl show -P "$2" "$1"; }
# wait_for SECONDS COMMAND...: until the command succeeds (0) or the time is up (1), by the
# clock (one try of svdrpsend may itself take seconds)
wait_for() {
	_end=$(($(date +%s) + $1)); shift
	until "$@" > /dev/null 2>&1; do
		[ "$(date +%s)" -ge "$_end" ] && return 1
		sleep 0.2
	done
}
active() { [ "$(prop "$1" ActiveState)" = active ]; }
svdrp() { svdrpsend -d 127.0.0.1 -p 6419 "$@" 2>&1 | tee -a "$out/svdrp.log"; }
svdrp_up() { svdrpsend -d 127.0.0.1 -p 6419 STAT disk 2>/dev/null | grep -q '^250'; }
jget() {
	"$ctl" status --json 2>/dev/null | python3 -c "import json,sys
v=json.load(sys.stdin)
for k in sys.argv[1].split('.'): v=v.get(k) if isinstance(v, dict) else None
print(v)" "$1"
}
# journal lines of a unit since a cursor file's cursor (or the boot), plain text
jmark() { journalctl -n 0 --show-cursor -q 2>/dev/null | sed -n 's/^-- cursor: //p' > "$out/$1.cursor"; }
jsince() { journalctl -q --no-pager -u "$2" --after-cursor="$(cat "$out/$1.cursor")" -o cat; }
# replays WHAT: PLAY 1 begin answered 250, then the STC advances over 2 s
replays() {
	svdrp PLAY 1 begin > "$out/play.txt"
	grep -q '^250 Playing recording' "$out/play.txt"
	check $? "$1: SVDRP PLAY 1 begin answered 250 ($(head -n 1 "$out/play.txt" | tr -d '\r'))"
	sleep 3
	_s1=$(jget stc); sleep 2; _s2=$(jget stc)
	[ "${_s2:-0}" -gt "${_s1:-0}" ] 2>/dev/null
	check $? "$1: the replay runs (STC $_s1 -> $_s2 in 2 s)"
}

[ "$(cat /proc/1/comm)" = systemd ]
check $? "boot: systemd is PID 1 ($(cat /proc/1/comm))"
echo "--- systemd-analyze: $(systemd-analyze 2>&1 | head -n 1)"
[ ! -e /usr/local/bin/ffdvbd ] && [ ! -e "$conf" ]
check $? "setup: nothing installed in /usr/local, no $conf"
[ -s "$streams/vdr-video.framemd5" ]
check $? "setup: the recording and ffmpeg's decode of it (vdr-host.sh)"

# --- the README's install command, as it stands there
readme=$here/../../README.md
cmd=$(sed -n '/^## Installing it as a system service/,/^```$/{/^cmake --install build /p}' "$readme" |
	head -n 1)
[ -n "$cmd" ]
check $? "README: install command found ($cmd)"
# 'build' is the build folder relative to the project: this run's
cmd=$(printf '%s' "$cmd" | sed "s|^cmake --install build |cmake --install '$build' |")
t0=$(now)
sh -c "$cmd" > "$out/install.log" 2>&1
rc=$?
[ "$rc" = 0 ] || tail -n 20 "$out/install.log"
check $rc "install: the README's command (exit $rc, $(since "$t0") s)"
[ "$(systemctl is-enabled ffdvbd 2>&1)" = enabled ]
check $? "install: ffdvbd.service enabled ($(systemctl is-enabled ffdvbd 2>&1))"
id ffdvb > /dev/null 2>&1
check $? "install: systemd-sysusers made the user ffdvb ($(id ffdvb 2>&1))"
[ -s /usr/local/lib/systemd/system/vdr.service.d/ffdvb.conf ] &&
	systemctl show -P DropInPaths vdr | grep -q /usr/local/lib/systemd/system/vdr.service.d/ffdvb.conf
check $? "install: vdr.service has the drop-in ($(systemctl show -P DropInPaths vdr))"

# --- the service under systemd
wait_for 30 active ffdvbd
systemctl show -p Type,ActiveState,SubState,MainPID,WatchdogUSec,NRestarts ffdvbd > "$out/show.txt"
cat "$out/show.txt"
grep -qx 'Type=notify' "$out/show.txt" && grep -qx 'ActiveState=active' "$out/show.txt" &&
	grep -qx 'SubState=running' "$out/show.txt"
check $? "unit: Type=notify, active (running): ffdvbd sent READY=1"
grep -qx 'WatchdogUSec=10s' "$out/show.txt"
check $? "unit: the watchdog is set ($(grep WatchdogUSec "$out/show.txt"))"
pid=$(prop ffdvbd MainPID)
[ "$pid" -gt 1 ] 2>/dev/null && [ "$(stat -c %U "/proc/$pid" 2>/dev/null)" = ffdvb ]
check $? "unit: main PID $pid runs as ffdvb ($(stat -c %U "/proc/$pid" 2>&1))"
w1=$(prop ffdvbd WatchdogTimestampMonotonic); sleep 6; w2=$(prop ffdvbd WatchdogTimestampMonotonic)
[ "${w2:-0}" -gt "${w1:-0}" ] 2>/dev/null
check $? "unit: watchdog pings arrive (last ping at $w1 -> $w2 us after 6 s)"
for n in $nodes; do
	f=/dev/dvb/adapter0/$n
	got=$(stat -c '%F %U:%G %a' "$f" 2>&1)
	[ "$got" = "character special file root:video 660" ]
	check $? "node: $f root:video 0660 ($got)"
done
journalctl -q --no-pager -u ffdvbd -o cat > "$out/journal-start.txt"
grep -q 'systemd watchdog\|ready' "$out/journal-start.txt"
check $? "journal: ffdvbd's start lines are there ($(grep -c . "$out/journal-start.txt") lines)"
systemd-analyze security ffdvbd --no-pager > "$out/security.txt" 2>&1
echo "--- systemd-analyze security ffdvbd: $(grep 'Overall exposure level' "$out/security.txt")"

# --- reload: a new log level applies at once. No setting that SIGHUP applies shows in
# 'ffdvbctl status'; its effect is seen in the journal: a reload that changes nothing says
# "nothing changed" (notice), which log-level = quiet silences. Reloads are handled in order,
# so the line of the last one shows that the one before it was handled too.
count() { journalctl -q --no-pager -u ffdvbd -o cat | grep -c "$1"; }
reload_seen() { [ "$(count "$1")" -gt "$2" ]; }
same='nothing changed'
n0=$(count "$same")
systemctl reload ffdvbd
rc=$?
wait_for 20 reload_seen "$same" "$n0"
check $? "reload: 'systemctl reload' (exit $rc) with the file unchanged: 'reloaded $conf: $same' (notice)"
sed -i 's/^#log-level = normal$/log-level = quiet/' "$conf"
grep -q '^log-level = quiet$' "$conf"
check $? "reload: $conf edited (log-level = quiet)"
q0=$(count 'log-level quiet (was normal)')
systemctl reload ffdvbd
rc=$?
wait_for 20 reload_seen 'log-level quiet (was normal)' "$q0"
check $? "reload: 'systemctl reload' (exit $rc): 'reloaded $conf: log-level quiet (was normal)'"
n1=$(count "$same")
systemctl reload ffdvbd   # unchanged again: quiet now
sed -i 's/^log-level = quiet$/#log-level = normal/' "$conf"
r0=$(count 'log-level normal (was quiet)')
systemctl reload ffdvbd
wait_for 20 reload_seen 'log-level normal (was quiet)' "$r0"
check $? "reload: back to normal: 'log-level normal (was quiet)'"
n2=$(count "$same")
[ "$n2" = "$n1" ]
check $? "reload: applied: under quiet the unchanged reload logged no '$same' ($n1 such lines before it, $n2 after)"
[ "$(prop ffdvbd MainPID)" = "$pid" ] && active ffdvbd
check $? "reload: same main PID $pid, still active"

# --- a provoked error: a mistake in the config, seen by 'journalctl -p err'
cp "$conf" "$out/ffdvbd.conf.good"
sed -i 's/^output = auto$/output = bogus/' "$conf"
t0=$(now)
systemctl restart ffdvbd > "$out/restart-bad.txt" 2>&1
rc=$?
sleep 3
echo "--- restart with 'output = bogus': systemctl exit $rc; after $(since "$t0") s: $(systemctl show -p ActiveState,SubState,Result,NRestarts ffdvbd | tr '\n' ' ')"
[ "$rc" != 0 ]
check $? "error: 'systemctl restart' with output = bogus fails (exit $rc)"
# the stream's lines reach the journal a moment after systemd's own: wait for the daemon's
err_line() {
	journalctl -q --no-pager -u ffdvbd -p err -o json > "$out/journal-err.json"
	python3 -c "import json,sys
for l in open(sys.argv[1]):
    e = json.loads(l)
    m = e.get('MESSAGE', '')
    if e.get('SYSLOG_IDENTIFIER') == 'ffdvbd' and 'bogus' in str(m):
        print('PRIORITY=%s %s' % (e.get('PRIORITY'), m)); sys.exit(0)
sys.exit(1)" "$out/journal-err.json"
}
wait_for 20 err_line
line=$(err_line)
journalctl -q --no-pager -u ffdvbd -p err -o cat > "$out/journal-err.txt"
echo "--- journalctl -u ffdvbd -p err:"; sed 's/^/    /' "$out/journal-err.txt" | head -n 8
case $line in "PRIORITY=3 ffdvbd: "*bogus*) true ;; *) false ;; esac
check $? "error: the daemon's own line in 'journalctl -u ffdvbd -p err' with its priority: $line"
wait_for 30 systemctl is-failed -q ffdvbd
[ "$(prop ffdvbd NRestarts)" = 0 ] && [ "$(prop ffdvbd ActiveState)" = failed ]
check $? "error: failed without restarts: a config mistake is not restarted ($(systemctl show -p ActiveState,Result,NRestarts ffdvbd | tr '\n' ' '))"
cp "$out/ffdvbd.conf.good" "$conf"

# --- the record for the picture check: the example's own line (restart-only setting)
sed -i 's|^#record = /var/lib/ffdvb/record$|record = /var/lib/ffdvb/record|' "$conf"
grep -q '^record = /var/lib/ffdvb/record$' "$conf"
check $? "config: record = /var/lib/ffdvb/record (the example's line)"
systemctl reset-failed ffdvbd
t0=$(now)
systemctl start ffdvbd
rc=$?
check $rc "unit: started again with the good config (exit $rc, $(since "$t0") s)"

# --- Debian's vdr.service, configured as Debian intends: dvbsddevice output-only
printf '%s\n' -o >> /etc/vdr/conf.avail/dvbsddevice.conf
mkdir -p /var/lib/video && cp -r "$streams/vdr-video/." /var/lib/video/
# a finished recording (an index younger than an hour is taken for one still being written)
find /var/lib/video -name index -exec touch -d '2024-01-01 12:00' {} +
chown -R vdr:vdr /var/lib/video
jmark vdr
t0=$(now)
systemctl start vdr
rc=$?
check $rc "vdr: 'systemctl start vdr' (Debian's unit, Type=notify; exit $rc, $(since "$t0") s)"
wait_for 60 svdrp_up
check $? "vdr: SVDRP answers ($(since "$t0") s after the start)"
jsince vdr vdr > "$out/vdr-start.txt"
for want in 'probing /dev/dvb/adapter0/frontend0' 'creating cDvbSdFfDevice' 'setting primary device to 1'; do
	grep -q "$want" "$out/vdr-start.txt"
	check $? "vdr: '$want' in its journal"
done
svdrp LSTR > "$out/lstr.txt"
grep -q '^250 1 ' "$out/lstr.txt"
check $? "vdr: LSTR lists the recording"
shown0=$(jget decoder.video_shown)
replays "first replay"
echo "--- waiting for the end of the recording"
wait_for 90 sh -c "journalctl -q -u vdr --after-cursor='$(cat "$out/vdr.cursor")' -o cat | grep -q 'dvbplayer thread ended'"
check $? "vdr: the replay ran to its end (VDR's player thread ended)"
shown1=$(jget decoder.video_shown)
[ "$((shown1 - shown0))" -gt 0 ] 2>/dev/null
check $? "status: pictures shown during the replay ($shown0 -> $shown1; output $(jget decoder.output))"
"$ctl" record > "$out/record.txt" 2>&1
check $? "record: ffdvbctl record ($(head -n 1 "$out/record.txt"))"
match_pictures /var/lib/ffdvb/record/pictures.log "$streams/vdr-video.framemd5" "$out"
[ "$pm_bad" = 0 ] && [ "$pm_twice" = 0 ] && [ "$pm_shown" -ge $((pm_total * 9 / 10)) ]
check $? "pictures: $pm_shown presented ($pm_bad not equal, $pm_twice shown twice), each equal to ffmpeg's decode, in order ($pm_total in the recording)"

# --- restart of ffdvbd while VDR replays
replays "before the restart"
vpid=$(prop vdr MainPID) dpid=$(prop ffdvbd MainPID)
jmark restart
t0=$(now)
systemctl restart ffdvbd
rc=$?
t_ffdvbd=$(since "$t0")
wait_for 60 active vdr; t_vdr=$(since "$t0")
wait_for 60 svdrp_up; t_svdrp=$(since "$t0")
vpid2=$(prop vdr MainPID) dpid2=$(prop ffdvbd MainPID)
echo "--- systemctl restart ffdvbd: exit $rc in $t_ffdvbd s; vdr active after $t_vdr s, SVDRP after $t_svdrp s; ffdvbd $dpid -> $dpid2, vdr $vpid -> $vpid2 ($(prop vdr ActiveState)/$(prop vdr SubState))"
[ "$rc" = 0 ] && [ "$dpid2" != "$dpid" ] && active ffdvbd
check $? "restart: ffdvbd restarted (main PID $dpid -> $dpid2)"
[ "$vpid2" != "$vpid" ] && [ "$vpid2" != 0 ] && active vdr
check $? "restart: VDR restarted with it by systemd (main PID $vpid -> $vpid2)"
wait_for 30 sh -c "journalctl -q -u vdr --after-cursor='$(cat "$out/restart.cursor")' -o cat | grep -q 'setting primary device to 1'"
check $? "restart: the new VDR probed the emulated card again (primary device 1)"
replays "after the restart"

# --- a crash of ffdvbd (SIGKILL: Restart=on-failure) while VDR replays
vpid=$(prop vdr MainPID) dpid=$(prop ffdvbd MainPID)
jmark crash
t0=$(now)
kill -KILL "$dpid"
wait_for 30 sh -c "[ \"\$(systemctl show -P MainPID ffdvbd)\" != $dpid ] && [ \"\$(systemctl show -P ActiveState ffdvbd)\" = active ]"
t_ffdvbd=$(since "$t0")
wait_for 30 sh -c "[ \"\$(systemctl show -P MainPID vdr)\" != $vpid ] && [ \"\$(systemctl show -P ActiveState vdr)\" = active ]"
t_vdr=$(since "$t0")
wait_for 60 svdrp_up; t_svdrp=$(since "$t0")
vpid2=$(prop vdr MainPID) dpid2=$(prop ffdvbd MainPID)
echo "--- SIGKILL to ffdvbd: ffdvbd $dpid -> $dpid2 (NRestarts $(prop ffdvbd NRestarts)) after $t_ffdvbd s; vdr $vpid -> $vpid2 ($(prop vdr ActiveState)/$(prop vdr SubState)) after $t_vdr s, SVDRP after $t_svdrp s"
[ "$dpid2" != "$dpid" ] && active ffdvbd
check $? "crash: systemd restarted ffdvbd (main PID $dpid -> $dpid2)"
[ "$vpid2" != "$vpid" ] && [ "$vpid2" != 0 ] && active vdr
check $? "crash: VDR restarted with it (main PID $vpid -> $vpid2)"
replays "after the crash"
jsince crash ffdvbd > "$out/journal-crash.txt"
journalctl -q --no-pager -u vdr -u ffdvbd --after-cursor="$(cat "$out/crash.cursor")" -o short-monotonic > "$out/journal-crash-both.txt"

svdrp HITK Stop > /dev/null
t0=$(now)
systemctl stop vdr ffdvbd
rc=$?
echo "--- systemctl stop vdr ffdvbd: exit $rc in $(since "$t0") s"
[ "$rc" = 0 ] && [ "$(prop ffdvbd Result)" = success ] && [ "$(prop vdr Result)" = success ]
check $? "stop: both stopped cleanly (ffdvbd $(prop ffdvbd Result), vdr $(prop vdr Result))"
journalctl -q --no-pager -b -u ffdvbd -u vdr -o short-monotonic > "$out/journal.txt"
finish
