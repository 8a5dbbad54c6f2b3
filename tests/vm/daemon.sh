#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# usage: daemon.sh BINDIR              (inside the VM, as root: scripts/vm.sh)
# ffdvbd as a system daemon, on a real kernel with CUSE: one daemon serving two adapters from
# a config file, started as root and dropped to an unprivileged user.
#   - a config with an unknown key: exit 2, FILE:LINE in the message, nothing created
#   - the daemon comes up: both control sockets answer, 'ready (adapter N)' for each
#   - /proc/PID/status: Uid/Gid of the user, no capability (CapEff, CapPrm, CapInh, CapAmb,
#     CapBnd all empty) in any thread, NoNewPrivs 1
#   - the six nodes of both adapters (dvr0 too) are root:video 0660 (adapter 1: as its section
#     says)
#   - 'ffdvbctl --adapter 1 status --json' answers with adapter 1, every node, tuner "none"
#   - ffdvb-conform passes on adapter 1, run by root, and its video and osd groups by a third
#     user of group video: the daemon, no longer root and without CAP_SYS_PTRACE, serves
#     callers of other users through CUSE's ioctl retries (it says so once in its log)
#   - a second ffdvbd for adapter 1 fails (exit 1) with a clear message, the first goes on
#   - SIGTERM: exit 0, every node and both sockets gone
# Prints PASS/FAIL lines and "N passed, M failed"; exit 0 iff nothing failed.
set -u
bin=${1:?usage: daemon.sh BINDIR}
out=${VM_OUT:-$(mktemp -d)}
user=ffdvb-test
nodes="video0 audio0 osd0 demux0 frontend0 dvr0"
log=$out/ffdvbd.log
conf=$out/ffdvbd.conf
ready_timeout=30

script_name=daemon.sh
. "$(dirname "$0")/lib.sh"
answers() { "$bin/ffdvbctl" --adapter "$1" status > /dev/null 2>&1; }
nodes_left() {   # nodes_left ADAPTER...: the nodes of these adapters that still exist
  for a in "$@"; do
    for n in $nodes; do [ -e "/dev/dvb/adapter$a/$n" ] && printf ' adapter%s/%s' "$a" "$n"; done
  done
}

for f in ffdvbd ffdvbctl ffdvb-conform; do
  [ -x "$bin/$f" ] || { fail "setup: $bin/$f is not built"; finish; }
done
[ -c /dev/cuse ] || modprobe cuse
check $? "setup: /dev/cuse exists"
id "$user" > /dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin "$user"
check $? "setup: user $user exists"
uid=$(id -u "$user") gid=$(id -g "$user")
client=ffdvb-client
id "$client" > /dev/null 2>&1 ||
  useradd --system --no-create-home --shell /usr/sbin/nologin --groups video "$client"
check $? "setup: user $client (group video) exists"
[ -z "$(nodes_left 0 1)" ]
check $? "setup: no adapter 0 or 1 before the daemon starts"

# --- a bad config: exit 2, FILE:LINE, nothing created
printf '[daemon]\nuser = %s\n\n[adapter0]\noutput = none\nbogus = 1\n' "$user" > "$out/bad.conf"
"$bin/ffdvbd" --config "$out/bad.conf" --foreground > "$out/bad.log" 2>&1
rc=$?
[ "$rc" = 2 ]
check $? "bad config: exit status 2 (got $rc)"
grep -q "^ffdvbd: $out/bad.conf:6: unknown key 'bogus' in \[adapter0\]" "$out/bad.log"
check $? "bad config: one line naming file:line and the key ($(head -n 1 "$out/bad.log"))"
[ "$(wc -l < "$out/bad.log")" = 1 ]
check $? "bad config: a one-line message"
[ -z "$(nodes_left 0 1)" ]
check $? "bad config: no node created"

# --- the daemon: two adapters, dropped to $user
cat > "$conf" <<CONF
# two emulated adapters, headless, served by an unprivileged user
[daemon]
user = $user
log-level = verbose

[adapter0]
output = none

[adapter1]
output = none
group = video
mode = 0660
osd-memsize = 92000
CONF
echo "--- starting ffdvbd --config $conf --foreground"
"$bin/ffdvbd" --config "$conf" --foreground > "$log" 2>&1 &
pid=$!
i=0
until answers 0 && answers 1; do
  i=$((i + 1))
  if ! alive "$pid" || [ "$i" -gt $((ready_timeout * 10)) ]; then break; fi
  sleep 0.1
done
answers 0 && answers 1
check $? "daemon: both control sockets answer within $ready_timeout s"
if ! alive "$pid"; then
  wait "$pid"
  fail "daemon: exited early with status $?"
  finish
fi
grep -q "ready (adapter 0)" "$log" && grep -q "ready (adapter 1)" "$log"
check $? "daemon: printed 'ready (adapter 0)' and 'ready (adapter 1)'"

status=/proc/$pid/status
grep -qE "^Uid:[[:space:]]+$uid[[:space:]]+$uid[[:space:]]+$uid[[:space:]]+$uid\$" "$status"
check $? "privileges: real/effective/saved/fs uid $uid ($(grep '^Uid:' "$status" | tr '\t' ' '))"
grep -qE "^Gid:[[:space:]]+$gid[[:space:]]+$gid[[:space:]]+$gid[[:space:]]+$gid\$" "$status"
check $? "privileges: gid $gid ($(grep '^Gid:' "$status" | tr '\t' ' '))"
! grep -qE '^Groups:.*(^|[[:space:]])0([[:space:]]|$)' "$status"
check $? "privileges: no supplementary group root ($(grep '^Groups:' "$status" | tr '\t' ' '))"
for set in CapEff CapPrm CapInh CapAmb CapBnd; do
  got=$(sed -n "s/^$set:[[:space:]]*//p" "$status")
  [ "$got" = 0000000000000000 ]
  check $? "privileges: $set empty (got $got)"
done
grep -qE '^NoNewPrivs:[[:space:]]+1$' "$status"
check $? "privileges: no_new_privs set ($(grep '^NoNewPrivs:' "$status" | tr '\t' ' '))"
# every thread: none may keep anything
extra=
for t in /proc/$pid/task/*; do
  for set in CapEff CapPrm CapBnd; do
    e=$(sed -n "s/^$set:[[:space:]]*//p" "$t/status")
    [ "$e" = 0000000000000000 ] || extra="$extra ${t##*/}:$set=$e"
  done
  grep -qE "^Uid:[[:space:]]+$uid[[:space:]]" "$t/status" || extra="$extra ${t##*/}:uid"
done
[ -z "$extra" ]
check $? "privileges: every thread dropped too${extra:+ (not:$extra)}"

for a in 0 1; do
  for n in $nodes; do
    f=/dev/dvb/adapter$a/$n
    if [ -c "$f" ]; then
      got=$(stat -c '%U:%G %a' "$f")
      [ "$got" = "root:video 660" ]
      check $? "node: $f is root:video 660 (got $got)"
    else
      fail "node: $f is not a character device"
    fi
  done
done
got=$(stat -c '%G %a' /run/ffdvb/adapter1.sock 2>&1)
[ "$got" = "video 660" ]
check $? "control: /run/ffdvb/adapter1.sock is group video, mode 660 (got $got)"

"$bin/ffdvbctl" --adapter 1 status --json > "$out/status1.json" 2>&1
check $? "control: 'ffdvbctl --adapter 1 status --json' answers"
python3 - "$out/status1.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
assert s["adapter"] == 1, s["adapter"]
assert set(s["nodes"]) >= {"video0", "audio0", "osd0", "demux0", "frontend0", "dvr0"}, s["nodes"]
assert s["tuner"]["spec"] == "none", s.get("tuner")
PY
check $? "control: the JSON parses and names adapter 1"

# a client of another user (root): the daemon cannot read its memory, the retries carry
# every payload
echo "--- ffdvb-conform /dev/dvb/adapter1"
timeout 400 "$bin/ffdvb-conform" --payloads-by-retry --control /run/ffdvb/adapter1.sock \
  /dev/dvb/adapter1 \
  > "$out/conform.log" 2>&1
rc=$?
summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$out/conform.log" | tail -n 1)
grep '^FAIL' "$out/conform.log" | head -n 20
[ "$rc" = 0 ] && [ -n "$summary" ] && [ "$(echo "$summary" | cut -d' ' -f3)" = 0 ]
check $? "conform: ffdvb-conform on adapter 1 by root, exit $rc, '${summary:-no summary}'"
echo "--- ffdvb-conform --only video,osd /dev/dvb/adapter1 as $client"
timeout 300 setpriv --reuid "$client" --regid "$client" --init-groups \
  "$bin/ffdvb-conform" --payloads-by-retry --only video,osd /dev/dvb/adapter1 \
  > "$out/conform-client.log" 2>&1
rc=$?
summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$out/conform-client.log" | tail -n 1)
grep '^FAIL' "$out/conform-client.log" | head -n 20
[ "$rc" = 0 ] && [ -n "$summary" ] && [ "${summary%% *}" -gt 50 ] &&
  [ "$(echo "$summary" | cut -d' ' -f3)" = 0 ]
check $? "conform: video and osd groups by $client, exit $rc, '${summary:-no summary}'"
grep -q "callers' memory is not readable" "$log"
check $? "cuse: payloads through ioctl retries, said in the log"
alive "$pid"
check $? "daemon: still running after the conformance runs"

# --- a second daemon for an adapter that is taken
"$bin/ffdvbd" --adapter 1 --output none --foreground > "$out/second.log" 2>&1
rc=$?
[ "$rc" = 1 ]
check $? "second daemon: exit status 1 (got $rc)"
grep -q "^ffdvbd: adapter 1 is taken: /dev/dvb/adapter1/video0 exists" "$out/second.log"
check $? "second daemon: says adapter 1 is taken ($(head -n 1 "$out/second.log"))"
alive "$pid" && answers 1 && [ -c /dev/dvb/adapter1/video0 ]
check $? "second daemon: the first one and its nodes are untouched"

# --- SIGTERM: exit 0, nodes and sockets gone
stop_daemon "$pid"
i=0
while [ -n "$(nodes_left 0 1)" ] && [ "$i" -lt 50 ]; do i=$((i + 1)); sleep 0.1; done
left=$(nodes_left 0 1)
[ -z "$left" ]
check $? "daemon: every node of both adapters removed${left:+ (left:$left)}"
[ ! -e /run/ffdvb/adapter0.sock ] && [ ! -e /run/ffdvb/adapter1.sock ]
check $? "daemon: both control sockets removed"
finish
