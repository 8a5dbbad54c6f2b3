# SPDX-License-Identifier: GPL-2.0-or-later
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
# wait_for COMMAND TENTHS: waits up to TENTHS tenths of a second for COMMAND (eval'd) to succeed
wait_for() { _i=0; until eval "$1" > /dev/null 2>&1 || [ $_i -gt "$2" ]; do _i=$((_i + 1)); sleep 0.1; done; eval "$1" > /dev/null 2>&1; }
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
# match_pictures PICTURES_LOG FRAMEMD5 DIR: compares the pictures the headless sink showed
# (PICTURES_LOG of 'ffdvbctl record'; blank ones left out) with ffmpeg's decode of the stream
# (FRAMEMD5, ffmpeg -f framemd5). A shown picture is good when it is one of ffmpeg's after the
# previous good one; any other (foreign content, or out of place) is bad, listed in DIR/bad-pictures,
# and the match goes on from the last good one. A picture with the time stamp of the one before
# is one time shown twice: the client wrote that frame again (VDR does at the end of a recording
# until the STC stops) and the card must drop the copy (as late), so it is counted apart.
# Writes DIR/ours.md5 (every picture shown) and DIR/ffmpeg.md5, prints the first bad ones and sets
# pm_total (ffmpeg's pictures), pm_shown (twice-shown left out), pm_bad, pm_twice and pm_last
# (ffmpeg's number of the last picture shown, 0 when it is bad). Each test judges these by its own
# bounds.
match_pictures() {
  _pm_dir=$3
  grep '^picture' "$1" | awk '$6 == 0 { print $3, $7 }' > "$3/shown.pts-md5"
  awk '{ print $2 }' "$3/shown.pts-md5" > "$3/ours.md5"
  grep -v '^#' "$2" | awk -F', *' '{ print $6 }' > "$3/ffmpeg.md5"
  : > "$3/bad-pictures"
  # shellcheck disable=SC2046  # five numbers
  set -- $(awk -v bad_list="$3/bad-pictures" '
	BEGIN { i = 0; n = 0 }
	NR == FNR { want[n++] = $1; next }
	FNR > 1 && $1 == pts && $1 >= 0 { twice++; print "shown twice: " FNR ", pts " $1 > bad_list; next }
	{ pts = $1; shown++
	  j = i; while (j < n && want[j] != $2) j++
	  if (j == n) { bad++; last = 0; print "bad picture: shown " FNR ", pts " $1 ", " $2 ", after ffmpeg'\''s " i > bad_list }
	  else { i = j + 1; last = i } }
	END { printf "%d %d %d %d %d\n", n, shown, bad, last, twice; close(bad_list) }' \
	"$3/ffmpeg.md5" "$3/shown.pts-md5")
  head -n 8 "$_pm_dir/bad-pictures" # CI keeps nothing but the output
  pm_total=${1:-0} pm_shown=${2:-0} pm_bad=${3:-0} pm_last=${4:-0} pm_twice=${5:-0}
}
