#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# usage: install.sh BUILD_DIR          (inside the VM, as root: scripts/vm.sh)
# ffdvb installed as a package would be, then run from the installed files only:
#   - 'cmake --install BUILD_DIR --prefix /usr/local' into the guest (its writable overlay)
#   - the installed sysusers.d file makes the user ffdvb (groups video, render, audio) with systemd-sysusers
#   - /etc/ffdvb/ffdvbd.conf is the installed example (user = ffdvb) with a headless output
#   - the INSTALLED ffdvbd, started as root with that file (its compiled-in default), comes up;
#     /proc/PID/status: uid/gid of ffdvb, not root, CapEff and CapBnd empty
#   - the six nodes (dvr0 too) are root:video 0660
#   - the installed 'ffdvbctl status --json' parses: adapter 0, every node, tuner "none"
#   - SIGHUP after log-level = verbose and another osd-memsize in the file: the level is
#     reloaded, the osd-memsize logged as needing a restart
#   - the installed unit passes 'systemd-analyze verify' in the guest
#   - a tuner spec nobody understands: exit 2 with one line, nothing created; a tuner whose
#     hardware is missing (dvb:9): the daemon starts all the same, frontend0 answers ENODEV
#   - SIGTERM: exit 0, nodes gone
# Prints PASS/FAIL lines and "N passed, M failed"; exit 0 iff nothing failed.
set -u
build=${1:?usage: install.sh BUILD_DIR}
out=${VM_OUT:-$(mktemp -d)}
prefix=/usr/local
bin=$prefix/bin
conf=/etc/ffdvb/ffdvbd.conf
nodes="video0 audio0 osd0 demux0 frontend0 dvr0"
log=$out/ffdvbd.log
ready_timeout=30

script_name=install.sh
. "$(dirname "$0")/lib.sh"
answers() { "$bin/ffdvbctl" --adapter "$1" status > /dev/null 2>&1; }
nodes_left() {   # nodes_left ADAPTER: the nodes of this adapter that still exist
  for n in $nodes; do [ -e "/dev/dvb/adapter$1/$n" ] && printf ' %s' "$n"; done
}
# start_wait PID ADAPTER: until the adapter's control socket answers (or the daemon died)
start_wait() {
  i=0
  until answers "$2"; do
    i=$((i + 1))
    if ! alive "$1" || [ "$i" -gt $((ready_timeout * 10)) ]; then return 1; fi
    sleep 0.1
  done
}

[ -c /dev/cuse ] || modprobe cuse
check $? "setup: /dev/cuse exists"
[ ! -e "$bin/ffdvbd" ] && [ ! -e "$conf" ]
check $? "setup: nothing installed in $prefix, no $conf before the test"

# --- the installation
echo "--- cmake --install $build --prefix $prefix"
cmake --install "$build" --prefix "$prefix" > "$out/install.log" 2>&1
rc=$?
[ "$rc" = 0 ] || tail -n 20 "$out/install.log"
check $rc "install: 'cmake --install --prefix $prefix' (exit $rc)"
for f in bin/ffdvbd bin/ffdvbctl bin/ffdvb-conform; do
  [ -x "$prefix/$f" ]
  check $? "install: $prefix/$f is executable"
done
unit=$prefix/lib/systemd/system/ffdvbd.service
sysusers=$prefix/lib/sysusers.d/ffdvb.conf
example=$prefix/share/doc/ffdvb/ffdvbd.conf.example
for f in "$unit" "$sysusers" "$example" "$prefix/lib/udev/rules.d/60-ffdvb.rules" \
         "$prefix/share/man/man8/ffdvbd.8"; do
  [ -s "$f" ]
  check $? "install: $f"
done
grep -q "^ExecStart=$bin/ffdvbd --foreground --run-as ffdvb\$" "$unit"
check $? "install: the unit starts the installed daemon as ffdvb ($(grep '^ExecStart=' "$unit"))"

# --- the user, from the installed sysusers.d file
systemd-sysusers "$sysusers" > "$out/sysusers.log" 2>&1
rc=$?
cat "$out/sysusers.log"
check $rc "user: systemd-sysusers $sysusers (exit $rc)"
uid=$(id -u ffdvb 2>/dev/null) gid=$(id -g ffdvb 2>/dev/null)
groups=$(id -nG ffdvb 2>/dev/null | tr ' ' '\n')
in_groups() { for g in video render audio; do echo "$groups" | grep -qx "$g" || return 1; done; }
[ -n "$uid" ] && [ "$uid" != 0 ] && in_groups
check $? "user: ffdvb exists, uid ${uid:-none}, in groups video, render, audio ($(id ffdvb 2>&1))"

# --- the config: the installed example, headless
mkdir -p /etc/ffdvb &&
  sed 's/^output = auto$/output = none/' "$example" > "$conf"
check $? "config: $conf from the installed example"
grep -q '^user = ffdvb$' "$conf" && grep -q '^output = none$' "$conf"
check $? "config: user = ffdvb, output = none"
"$bin/ffdvbd" --check-config > "$out/check-config.log" 2>&1
rc=$?
cat "$out/check-config.log"
[ "$rc" = 0 ] && grep -q "^config $conf; user ffdvb;" "$out/check-config.log"
check $? "config: the installed ffdvbd --check-config reads $conf by default (exit $rc)"

# --- the installed daemon
echo "--- starting $bin/ffdvbd --foreground"
"$bin/ffdvbd" --foreground > "$log" 2>&1 &
pid=$!
start_wait "$pid" 0
check $? "daemon: the installed ffdvbd answers within $ready_timeout s"
if ! alive "$pid"; then
  wait "$pid"
  fail "daemon: exited early with status $?"
  finish
fi
status=/proc/$pid/status
grep -qE "^Uid:[[:space:]]+$uid[[:space:]]+$uid[[:space:]]+$uid[[:space:]]+$uid\$" "$status"
check $? "privileges: runs as ffdvb, uid $uid ($(grep '^Uid:' "$status" | tr '\t' ' '))"
grep -qE "^Gid:[[:space:]]+$gid[[:space:]]+$gid[[:space:]]+$gid[[:space:]]+$gid\$" "$status"
check $? "privileges: gid $gid ($(grep '^Gid:' "$status" | tr '\t' ' '))"
for set in CapEff CapBnd; do
  got=$(sed -n "s/^$set:[[:space:]]*//p" "$status")
  [ "$got" = 0000000000000000 ]
  check $? "privileges: $set empty (got $got)"
done
for n in $nodes; do
  f=/dev/dvb/adapter0/$n
  if [ -c "$f" ]; then
    got=$(stat -c '%U:%G %a' "$f")
    [ "$got" = "root:video 660" ]
    check $? "node: $f is root:video 660 (got $got)"
  else
    fail "node: $f is not a character device"
  fi
done

"$bin/ffdvbctl" status --json > "$out/status.json" 2>&1
check $? "control: the installed 'ffdvbctl status --json' answers"
python3 - "$out/status.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
assert s["adapter"] == 0, s["adapter"]
want = {"video0", "audio0", "osd0", "demux0", "frontend0", "dvr0"}
assert set(s["nodes"]) >= want, sorted(s["nodes"])
assert s["tuner"]["spec"] == "none", s.get("tuner")
PY
check $? "control: the JSON parses: adapter 0, all six nodes, tuner none"
"$bin/ffdvbctl" status > "$out/status.txt" 2>&1
[ "$(grep -c '^tuner: {"spec":"none",' "$out/status.txt")" = 1 ]
check $? "control: 'ffdvbctl status' names the tuner once ($(grep '^tuner' "$out/status.txt"))"

# --- SIGHUP: the log level reloaded, a restart-only change reported
sed -i -e 's/^#log-level = normal$/log-level = verbose/' \
  -e 's/^#osd-memsize = 1000000$/osd-memsize = 92000/' "$conf"
grep -q '^log-level = verbose$' "$conf" && grep -q '^osd-memsize = 92000$' "$conf"
check $? "reload: $conf edited (log-level verbose, osd-memsize 92000)"
kill -HUP "$pid"
i=0
while ! grep -q "needs a restart" "$log" && [ "$i" -lt 100 ]; do i=$((i + 1)); sleep 0.1; done
grep -q "^ffdvbd: reloaded $conf: log-level verbose (was normal)\$" "$log"
check $? "reload: 'reloaded $conf: log-level verbose (was normal)' logged"
grep -q "^ffdvbd: $conf: adapter 0: osd-memsize changed: needs a restart\$" "$log"
check $? "reload: 'adapter 0: osd-memsize changed: needs a restart' logged"
alive "$pid" && answers 0
check $? "reload: the daemon still serves"

# --- the installed unit, checked by the guest's systemd-analyze
if command -v systemd-analyze > /dev/null 2>&1; then
  systemd-analyze verify --man=no "$unit" > "$out/verify.log" 2>&1
  rc=$?
  cat "$out/verify.log"
  [ "$rc" = 0 ] && [ ! -s "$out/verify.log" ]
  check $? "unit: systemd-analyze verify $unit (exit $rc, no message)"
else
  fail "unit: no systemd-analyze in the guest"
fi

# --- tuner specs: one the tuner cannot understand; hardware that is missing
"$bin/ffdvbd" --adapter 3 --output none --foreground --tuner bogus:1 > "$out/bad-tuner.log" 2>&1
rc=$?
[ "$rc" = 2 ]
check $? "tuner: --tuner bogus:1 -> exit 2 (got $rc)"
[ "$(wc -l < "$out/bad-tuner.log")" = 1 ] &&
  grep -q "^ffdvbd: adapter 3: tuner bogus:1: unknown tuner" "$out/bad-tuner.log"
check $? "tuner: one line naming the spec ($(head -n 1 "$out/bad-tuner.log"))"
[ -z "$(nodes_left 3)" ]
check $? "tuner: nothing created for adapter 3"
"$bin/ffdvbd" --adapter 3 --output none --foreground --tuner dvb:9 > "$out/dvb9.log" 2>&1 &
pid3=$!
start_wait "$pid3" 3
check $? "tuner: --tuner dvb:9 (no such adapter) starts all the same"
python3 - <<'PY'
import errno, os, sys
try:
    os.close(os.open("/dev/dvb/adapter3/frontend0", os.O_RDONLY | os.O_NONBLOCK))
except OSError as e:
    sys.exit(0 if e.errno == errno.ENODEV else "open: %s" % e)
sys.exit("open of frontend0 succeeded without hardware")
PY
check $? "tuner: dvb:9: open of frontend0 gives ENODEV"
if alive "$pid3"; then stop_daemon "$pid3"; else fail "tuner: dvb:9 daemon died"; fi

# --- SIGTERM
stop_daemon "$pid"
i=0
while [ -n "$(nodes_left 0)" ] && [ "$i" -lt 50 ]; do i=$((i + 1)); sleep 0.1; done
left=$(nodes_left 0)
[ -z "$left" ]
check $? "daemon: every node removed${left:+ (left:$left)}"
finish
