#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# usage: vdr-restart.sh BINDIR STREAMDIR                 (inside the VM, as root: vdr-host.sh)
# Bad input around unmodified VDR 2.6 + dvbsddevice -o on ffdvbd (docs/vdr.md, "Restarts"):
#   1. VDR killed with SIGKILL while replaying: ffdvbd lives on and sees all of VDR's opens
#      released; a new VDR replays again.
#   2. ffdvbd stopped (SIGTERM) under a VDR that is replaying: ffdvbd exits 0, VDR lives on;
#      ffdvbd started again comes up while the old VDR still holds the dead nodes' fds; VDR,
#      restarted (SIGTERM, start), replays again.
#   3. VDR started before ffdvbd: without the view folder ffdvb-run-vdr refuses with a message;
#      with the folder left by a stopped ffdvbd VDR finds no device and ends by itself (its
#      "no primary device found"); once ffdvbd runs, VDR started again finds it and replays.
# "Replays": `PLAY 1 begin` answered 250 and DMX_GET_STC (status stc) advancing.
# Prints PASS/FAIL and "vdr-restart.sh: N passed, M failed".
set -u
bin=${1:?usage: vdr-restart.sh BINDIR STREAMDIR}
streams=${2:?usage: vdr-restart.sh BINDIR STREAMDIR}
here=$(cd "$(dirname "$0")" && pwd)
out=${VM_OUT:-$(mktemp -d)}
syslog=$out/syslog.log
log=$syslog
script_name=vdr-restart.sh
. "$here/lib.sh"
video=$streams/vdr-video
. "$here/vdr-lib.sh"
view=/run/ffdvb/sys-class-dvb

for f in ffdvbd ffdvbctl; do
	[ -x "$bin/$f" ] || { fail "setup: $bin/$f is not built"; finish; }
done
[ -d "$video" ] || { fail "setup: $video missing (vdr-host.sh makes it)"; finish; }

# replays WHAT: PLAY 1 begin over SVDRP, then the STC must advance
replays() {
	: > "$out/svdrp-play.log"
	svdrpsend -d 127.0.0.1 -p $port PLAY 1 begin > "$out/svdrp-play.log" 2>&1
	cat "$out/svdrp-play.log" >> "$out/svdrp.log"
	grep -q '^250 Playing recording' "$out/svdrp-play.log"
	check $? "$1: PLAY 1 begin answered 250"
	sleep 3
	_s1=$(json stc); sleep 2; _s2=$(json stc)
	[ "${_s2:-0}" -gt "${_s1:-0}" ] 2> /dev/null
	check $? "$1: replay runs (STC $_s1 -> $_s2 in 2 s)"
}
# openers of all nodes summed (ffdvbctl status' table)
openers() { ctl status 2> /dev/null | awk '$1 ~ /^(video|audio|osd|demux|frontend|dvr)0$/ { n += $2 } END { print n + 0 }'; }
# gone PID SECONDS: waits until PID has exited (and reaps it: $gone_rc); 1 if it is still there
gone() {
	_i=0
	while alive "$1" && [ $_i -lt $(($2 * 10)) ]; do _i=$((_i + 1)); sleep 0.1; done
	alive "$1" && return 1
	wait "$1" 2> /dev/null
	gone_rc=$?   # its exit status
	return 0
}
end_tracer() { kill "$tracer" 2> /dev/null; wait "$tracer" 2> /dev/null; }

vdr_env_start
vdr_start
new_log 'creating cDvbSdFfDevice'
check $? "vdr: 'creating cDvbSdFfDevice'"
replays "first VDR"

# 1. SIGKILL while replaying
kill -KILL "$vdr"
gone "$vdr" 10
check $? "1: VDR killed (SIGKILL) while replaying"
end_tracer
sleep 1
alive "$pid"
check $? "1: ffdvbd still runs"
n=$(openers)
[ "$n" = 0 ]
check $? "1: ffdvbd saw all of VDR's opens released ($n open)"
ctl status > "$out/status-after-kill.txt" 2>&1
vdr_start
new_log 'creating cDvbSdFfDevice'
check $? "1: restarted VDR creates cDvbSdFfDevice again"
replays "1: restarted VDR"

# 2. ffdvbd stopped and started under a running, replaying VDR
log_mark
stop_daemon "$pid"
sleep 3
alive "$vdr"
check $? "2: VDR still runs after ffdvbd stopped"
tail -n +$((mark + 1)) "$syslog" > "$out/syslog-ffdvbd-gone.log"
vdr_env_start
alive "$vdr"
check $? "2: ffdvbd started again while the old VDR holds the old nodes open; VDR still runs"
[ -e "$view/dvb0.frontend0/dev" ]
check $? "2: the new ffdvbd's view entries are there"
svdrpsend -d 127.0.0.1 -p $port PLAY 1 begin > "$out/svdrp-old-vdr.log" 2>&1
sleep 3
echo "old VDR after the ffdvbd restart: PLAY -> $(grep -E '^[0-9]{3}' "$out/svdrp-old-vdr.log" | sed -n 2p); STC $(json stc); audio0 bytes $(ctl status | awk '$1 == "audio0" { print $5 }')" |
	tee "$out/old-vdr.txt"
tail -n +$((mark + 1)) "$syslog" > "$out/syslog-ffdvbd-restart.log"
kill -TERM "$vdr"
gone "$vdr" 30
check $? "2: the old VDR ends on SIGTERM (within 30 s)"
end_tracer
alive "$pid"
check $? "2: the new ffdvbd still runs"
vdr_start
new_log 'creating cDvbSdFfDevice'
check $? "2: restarted VDR creates cDvbSdFfDevice"
replays "2: VDR restarted after ffdvbd's restart"
vdr_stop
stop_daemon "$pid"

# 3. VDR before ffdvbd
mv "$view" "$view.saved"
"$here/../../scripts/ffdvb-run-vdr" -- -u vdr -c "$T/cfg" > "$out/run-vdr-noview.txt" 2>&1
rc=$?
[ "$rc" != 0 ] && grep -q 'is ffdvbd running' "$out/run-vdr-noview.txt"
check $? "3: no view folder: ffdvb-run-vdr refuses (exit $rc: $(head -n 1 "$out/run-vdr-noview.txt"))"
mv "$view.saved" "$view"
n=$(ls "$view" | grep -c '^dvb0\.')
[ "$n" = 0 ]
check $? "3: the stopped ffdvbd removed its view entries ($n left)"
# with no other DVB device VDR finds none and ends at once ("no primary device found")
vdr_start nowait
gone "$vdr" 30
rc=$?
vrc=${gone_rc:-?}
[ "$rc" = 0 ] && ! new_log 'creating cDvbSdFfDevice'
check $? "3: VDR started before ffdvbd ends by itself (exit status $vrc), having found no device"
tail -n +$((mark + 1)) "$syslog" | grep -E 'DVB device|primary device|exiting' > "$out/vdr-before-ffdvbd.txt"
echo "VDR started before ffdvbd: $(tr '\n' ' ' < "$out/vdr-before-ffdvbd.txt" | cut -c 1-400)" | tee -a "$out/old-vdr.txt"
vdr_env_start
end_tracer
vdr_start
new_log 'creating cDvbSdFfDevice'
check $? "3: VDR restarted after ffdvbd: creates cDvbSdFfDevice"
replays "3: VDR restarted after ffdvbd"
vdr_stop
alive "$pid"
check $? "ffdvbd never died"
vdr_env_stop
finish
