#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# usage: conform.sh BINDIR [DAEMON [DAEMON-ARG...]]      (inside the VM, as root: scripts/vm.sh)
# The daemon's life cycle around the conformance tool, on a real kernel with CUSE:
#   start BINDIR/DAEMON (ffdvbd by default; ffdvbd-asan for the sanitizer run) on adapter 0,
#   wait for its control socket, check the six nodes (root:video 0660), run ffdvb-conform
#   (and ffdvb-conform32 if built, and the robustness group if the tool has it), check the
#   daemon survived, SIGTERM it, check it exited 0 and its nodes are gone.
# Prints PASS/FAIL lines and "N passed, M failed"; exit 0 iff nothing failed. Logs go to
# $VM_OUT (the results share) when vm.sh runs this.
set -u
bin=${1:?usage: conform.sh BINDIR [DAEMON [DAEMON-ARG...]]}
daemon=${2:-ffdvbd}
if [ $# -ge 2 ]; then shift 2; else shift $#; fi
adapter=0
dev=/dev/dvb/adapter$adapter
nodes="video0 audio0 osd0 demux0 frontend0 dvr0"
out=${VM_OUT:-$(mktemp -d)}
log=$out/$daemon.log
ready_timeout=20                            # s; TCG and the sanitizers make start-up slow
tool_timeout=${FFDVB_CONFORM_TIMEOUT:-300}  # s per conformance tool run
hung=

script_name="conform.sh ($daemon)"
. "$(dirname "$0")/lib.sh"

for f in "$daemon" ffdvbctl ffdvb-conform; do
  [ -x "$bin/$f" ] || { fail "setup: $bin/$f is not built"; finish; }
done
[ -c /dev/cuse ] || modprobe cuse
check $? "setup: /dev/cuse exists"
[ ! -e "$dev" ]
check $? "setup: $dev does not exist before the daemon starts"

# any sanitizer report makes the daemon exit non-zero, and it is also searched for in the log
ASAN_OPTIONS=halt_on_error=1:detect_leaks=1:exitcode=66:print_summary=1
UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:exitcode=67
export ASAN_OPTIONS UBSAN_OPTIONS

echo "--- starting $daemon --adapter $adapter --foreground -v $*"
"$bin/$daemon" --adapter "$adapter" --foreground -v "$@" > "$log" 2>&1 &
pid=$!
i=0
until "$bin/ffdvbctl" --adapter "$adapter" status > /dev/null 2>&1; do
  i=$((i + 1))
  if ! alive "$pid" || [ "$i" -gt $((ready_timeout * 10)) ]; then break; fi
  sleep 0.1
done
"$bin/ffdvbctl" --adapter "$adapter" status > /dev/null 2>&1
check $? "daemon: 'ffdvbctl status' answers within $ready_timeout s"
if ! alive "$pid"; then
  wait "$pid"
  fail "daemon: exited early with status $?"
  finish
fi
grep -q "ready (adapter $adapter)" "$log"
check $? "daemon: printed 'ready (adapter $adapter)'"
case $daemon in
  *asan*) grep -q libasan "/proc/$pid/maps"
          check $? "sanitizers: the AddressSanitizer runtime is loaded in $daemon" ;;
esac

for n in $nodes; do
  if [ -c "$dev/$n" ]; then
    got=$(stat -c '%U:%G %a' "$dev/$n")
    [ "$got" = "root:video 660" ]
    check $? "node: $dev/$n is root:video 660 (got $got)"
  else
    fail "node: $dev/$n is not a character device"
  fi
done

# run one conformance tool, in its own process group, with its output streamed. After
# $tool_timeout s the group is killed. A process stuck in the device (a request the daemon
# never answers cannot be interrupted, not even by SIGKILL) is only released by ending the
# daemon: that is done, and the remaining steps fail.
group_alive() { for p in $(pgrep -g "$1"); do alive "$p" && return 0; done; return 1; }
conform() {   # conform NAME TOOL-ARG...
  name=$1; shift
  if [ -n "$hung" ]; then fail "$name: not run (the daemon was killed after a hang)"; return; fi
  echo "--- $name $*"
  setsid "$@" > "$out/$name.log" 2>&1 &   # no fork: a background job is no group leader
  tpid=$!
  tail -n +1 -f --pid="$tpid" "$out/$name.log" &
  tailpid=$!
  t=0
  while alive "$tpid" && [ "$t" -lt "$tool_timeout" ]; do sleep 1; t=$((t + 1)); done
  if alive "$tpid"; then
    fail "$name: still running after $tool_timeout s: killed"
    kill -KILL "-$tpid"
    sleep 2
    kill "$tailpid" 2>/dev/null
  else
    wait "$tpid"
    rc=$?
    wait "$tailpid"
    summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$out/$name.log" | tail -n 1)
    [ "$rc" = 0 ] && [ -n "$summary" ] && ! grep -q '^FAIL' "$out/$name.log" \
      && [ "${summary%% *}" -gt 0 ] && [ "$(echo "$summary" | cut -d' ' -f3)" = 0 ]
    check $? "$name: exit status $rc, '${summary:-no summary line}'"
    kill -KILL "-$tpid" 2>/dev/null && sleep 2   # processes it left behind
  fi
  if group_alive "$tpid"; then
    hung=1
    fail "$name: processes stuck in the device ($(pgrep -g "$tpid" | tr '\n' ' ')); killing the daemon to release them"
    kill -KILL "$pid"
    t=0; while group_alive "$tpid" && [ "$t" -lt 10 ]; do sleep 1; t=$((t + 1)); done
  fi
}
tool=$bin/ffdvb-conform
control=
"$tool" --help 2>&1 | grep -q -- '--control' && control="--control /run/ffdvb/adapter$adapter.sock"
# shellcheck disable=SC2086  # $control is empty or two words
conform ffdvb-conform "$tool" $control "$dev"
if [ -x "$bin/ffdvb-conform32" ]; then
  # shellcheck disable=SC2086
  conform ffdvb-conform32 "$bin/ffdvb-conform32" $control "$dev"
else
  echo "--- note: ffdvb-conform32 is not built (no gcc -m32): 32-bit callers untested"
fi
if "$tool" --help 2>&1 | grep -q -- '--robustness'; then
  # shellcheck disable=SC2086
  conform ffdvb-conform-robustness "$tool" $control --robustness --only robustness "$dev"
fi

if [ -n "$hung" ]; then
  fail "daemon: could not be stopped cleanly (killed to release a stuck client)"
else
  alive "$pid"
  check $? "daemon: still running after the conformance runs"
  "$bin/ffdvbctl" --adapter "$adapter" status --json > "$out/status.json" 2>&1
  check $? "daemon: 'ffdvbctl status --json' answers"
  echo "--- status: $(cat "$out/status.json")"
  # the JSON is for programs: parse it, and check what the runs above must have left behind
  python3 - "$out/status.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
nodes = ("video0", "audio0", "osd0", "demux0", "frontend0", "dvr0")
assert all(s["nodes"][n]["openers"] == 0 for n in nodes), "files still open"
assert s["nodes"]["video0"]["bytes_accepted"] > 0, "no video data accepted"
assert s["nodes"]["video0"]["errors"] > 0, "refused calls not counted"
assert s["video"]["ring_size"] == 131072 and s["audio"]["ring_size"] == 65536
assert s["last_still"]["size"] > 0 and s["stream"]["garbage_bytes"] > 0
PY
  check $? "daemon: status JSON parses, no files left open, data and errors counted"

  # SIGTERM: clean exit 0, nodes gone. A watchdog kills a daemon that hangs.
  stop_daemon "$pid"
  i=0 left=
  while [ "$i" -lt 50 ]; do
    left=
    for n in $nodes; do [ -e "$dev/$n" ] && left="$left $n"; done
    [ -z "$left" ] && break
    i=$((i + 1)); sleep 0.1
  done
  [ -z "$left" ]
  check $? "daemon: nodes removed after exit${left:+ (left:$left)}"
fi

# sanitizer reports that did not change the exit status (e.g. in a thread at exit)
if grep -qE 'ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:' "$log"; then
  fail "sanitizers: reports in $log:"
  grep -E -A 20 'ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:' "$log" | head -n 60
else
  pass "sanitizers: no AddressSanitizer/LeakSanitizer/UBSan report in the daemon log"
fi
finish
