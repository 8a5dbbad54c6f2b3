# Shared by the VM test scripts (sourced, POSIX sh): PASS/FAIL counting and the summary line.
# The sourcing script sets $script_name (for the summary) and may set $log (shown on failure).
passed=0 failed=0

pass() { echo "PASS $*"; passed=$((passed + 1)); }
fail() { echo "FAIL $*"; failed=$((failed + 1)); }
check() { if [ "$1" = 0 ]; then shift; pass "$@"; else shift; fail "$@"; fi; }
finish() {
  if [ "$failed" != 0 ] && [ -n "${log:-}" ] && [ -s "$log" ]; then
    echo "--- last lines of $log"
    tail -n 40 "$log"
  fi
  echo "$script_name: $passed passed, $failed failed"
  [ "$failed" = 0 ]
  exit $?
}
alive() { [ -d "/proc/$1" ] && ! grep -q '^State:.*Z' "/proc/$1/status" 2>/dev/null; }
# stop_daemon PID: SIGTERM, then SIGKILL after 15 s if it hangs; checks it exited 0
stop_daemon() {
  kill -TERM "$1"
  ( sleep 15; kill -KILL "$1" 2>/dev/null ) &
  _watchdog=$!
  wait "$1"
  _rc=$?
  kill "$_watchdog" 2>/dev/null
  [ "$_rc" = 0 ]
  check $? "daemon: SIGTERM -> exit status 0 (got $_rc)"
}
