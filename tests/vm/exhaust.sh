#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# usage: exhaust.sh BINDIR              (inside the VM, as root: scripts/vm.sh)
# Clients that try to make ffdvbd hold memory and descriptors (exhaust.py), against two
# daemons: adapter 0 as root (payloads read from the caller's memory) and adapter 1 dropped to
# nobody (payloads through CUSE's retries). Both decode nothing and drain 100 bytes/s, so a
# still picture waits. Limits: ffdvbd.conf(5), LIMITS.
#   - 4 threads each blocked in a 30 MiB VIDEO_STILLPICTURE: two wait, two get ENOMEM
#     (FFDVB_CUSE_HELD_MAX, 80 MiB a device), the refusal is logged, RSS stays within the
#     limit and goes back down when the client exits; the daemon answers after it
#   - 40 clients ask "osd-plane" (1.6 MB each) and never read, 300 more connect idle: at most
#     32 are served (descriptors bounded), the answers waiting stay within 16 MiB, "busy" is
#     logged; once they are gone, status answers and the descriptors are back
#   - a third daemon serves adapters 4 and 5 on one loop; adapter 4's tuner is remote: to a
#     server that accepts and never answers. 3 clients open its frontend0 while a writer
#     replays into adapter 5's video0 (draining 100 kB/s): the opens end with ENODEV after
#     the reply timeout (5 s), the replay keeps its pace (no stall near the 5 s the old
#     tuner froze the loop for), descriptors stay bounded
# Prints PASS/FAIL lines and "N passed, M failed"; exit 0 iff nothing failed.
set -u
bin=${1:?usage: exhaust.sh BINDIR}
here=$(dirname "$0")
out=${VM_OUT:-$(mktemp -d)}
script_name=exhaust.sh
. "$here/lib.sh"
log=$out/ffdvbd-0.log
held_max_kb=$((80 * 1024)) answers_max_kb=$((16 * 1024)) slack_kb=$((16 * 1024))

rss() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"; }
fds() { ls "/proc/$1/fd" | wc -l; }
answers() { "$bin/ffdvbctl" --adapter "$1" status > /dev/null 2>&1; }
field() { printf '%s\n' "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"; }

[ -c /dev/cuse ] || modprobe cuse
check $? "setup: /dev/cuse exists"
pids=
for a in 0 1; do
  set -- --adapter "$a" --foreground --no-decode --drain-rate 100 --output none -v
  [ "$a" = 1 ] && set -- "$@" --run-as nobody
  "$bin/ffdvbd" "$@" > "$out/ffdvbd-$a.log" 2>&1 &
  pids="$pids $!"
done
set -- $pids
pid0=$1 pid1=$2
for a in 0 1; do
  i=0
  until answers "$a" || [ $i -ge 60 ]; do sleep 0.5; i=$((i + 1)); done
  answers "$a"
  check $? "setup: adapter $a answers"
done

# --- parked still pictures: the bytes a device keeps for waiting calls are bounded
for a in 0 1; do
  eval "pid=\$pid$a"
  base=$(rss "$pid")
  r=$(python3 "$here/exhaust.py" stills "/dev/dvb/adapter$a/video0" 30 4 "$pid")
  echo "adapter $a: $r (RSS before: $base kB)"
  [ "$(field waiting "$r")" = 2 ] && [ "$(field refused "$r")" = 2 ] &&
    [ "$(field other "$r")" = 0 ]
  check $? "adapter $a: 4 stills of 30 MiB: two wait, two get ENOMEM ($r)"
  peak=$(field rss_kb "$r")
  [ -n "$peak" ] && [ "$peak" -le $((base + held_max_kb + slack_kb)) ]
  check $? "adapter $a: RSS while they wait $peak kB <= $base + 80 MiB + 16 MiB"
  sleep 2
  after=$(rss "$pid")
  [ "$after" -le $((base + slack_kb)) ]
  check $? "adapter $a: RSS after the client's exit $after kB, back within 16 MiB of $base"
  grep -q "refused (ENOMEM)" "$out/ffdvbd-$a.log"
  check $? "adapter $a: the refusal is in the log"
  answers "$a" && alive "$pid"
  check $? "adapter $a: the daemon answers after it"
done

# --- control clients: served at once and answer bytes bounded
base_fds=$(fds "$pid0") base=$(rss "$pid0")
r=$(python3 "$here/exhaust.py" control /run/ffdvb/adapter0.sock 300 40 3 "$pid0")
echo "adapter 0: $r (before: RSS $base kB, $base_fds descriptors)"
n=$(field fds "$r")
[ -n "$n" ] && [ "$n" -le $((base_fds + 32)) ]
check $? "control: $n descriptors with 340 clients trying, <= $base_fds + 32"
peak=$(field rss_kb "$r")
[ -n "$peak" ] && [ "$peak" -le $((base + answers_max_kb + slack_kb)) ]
check $? "control: RSS $peak kB with 40 slow readers of 1.6 MB, <= $base + 16 MiB + 16 MiB"
grep -q "control socket: answer of .* refused" "$log"
check $? "control: answers beyond the budget refused, in the log"
sleep 6 # clients that sent nothing or read nothing are dropped after 5 s
answers 0
check $? "control: status answers after them"
n=$(fds "$pid0")
[ "$n" -le $((base_fds + 1)) ]
check $? "control: descriptors back to $n (before: $base_fds)"

# --- a silent remote server does not hold up the other adapter of the same daemon
python3 "$here/exhaust.py" silent 5599 > "$out/silent.log" 2>&1 &
silent=$!
printf '[adapter4]\noutput = none\ndecode = no\ntuner = remote:127.0.0.1:5599\n[adapter5]\noutput = none\ndecode = no\ndrain-rate = 100000\n' > "$out/two.conf"
"$bin/ffdvbd" --config "$out/two.conf" --foreground -v > "$out/ffdvbd-45.log" 2>&1 &
pid45=$!
i=0
until { answers 4 && answers 5; } || [ $i -ge 60 ]; do sleep 0.5; i=$((i + 1)); done
answers 5
check $? "setup: adapters 4 and 5 answer (one daemon)"
base_fds=$(fds "$pid45")
r=$(python3 "$here/exhaust.py" pace /dev/dvb/adapter5/video0 3 /dev/dvb/adapter4/frontend0 "$pid45")
echo "adapters 4+5: $r (before: $base_fds descriptors)"
[ "$(field opens "$r")" = "ENODEV,ENODEV,ENODEV" ]
check $? "remote: 3 opens of a silent server's frontend0 end with ENODEV ($(field opens "$r"))"
stall=$(field max_stall_ms "$r")
[ -n "$stall" ] && [ "$stall" -lt 2500 ]
check $? "remote: adapter 5's replay keeps its pace meanwhile (longest write $stall ms; the old tuner froze the loop 5000 ms a command; $(field bytes_per_s "$r") bytes/s for a drain of 100000)"
n=$(field fds "$r")
[ -n "$n" ] && [ "$n" -le $((base_fds + 16)) ]
check $? "remote: $n descriptors (before: $base_fds)"
answers 4 && alive "$pid45"
check $? "remote: adapter 4 answers status after them"
kill "$silent" 2> /dev/null

for pid in $pid0 $pid1 $pid45; do stop_daemon "$pid"; done
finish
