#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# usage: scripts/test.sh      (from anywhere; CI runs it through .ci/run)
# The whole test suite: configures and builds build/ (normal) and build-asan/ (AddressSanitizer
# and UBSan), runs every test of build/ (unit tests and the real-kernel VM tests) and the unit
# tests of build-asan/. Ends with one line "N passed, M failed, K skipped, F flaky" over both
# runs (a failed configure or build counts as one failure; "skipped" and "flaky" only when
# nonzero; flaky: a VM test that failed and passed when run again alone, rerun_vm_tests);
# exits 0 iff nothing failed.
# Env: FFDVB_JOBS (2) parallel build jobs and tests; CMAKE_ARGS extra configure arguments.
set -u
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root" || exit 1
jobs=${FFDVB_JOBS:-2}
passed=0 failed=0 skipped=0 flaky=0
problems=()

step() { echo; echo "==> $*"; }

# build DIR CMAKE-ARG...: configure and build; a failure is counted, the tests still run
build() {
  local dir=$1; shift
  step "configure $dir $*"
  # shellcheck disable=SC2086  # CMAKE_ARGS is a word list
  if ! cmake -S . -B "$dir" "$@" ${CMAKE_ARGS:-}; then
    failed=$((failed + 1)); problems+=("configure of $dir failed"); return 1
  fi
  step "build $dir"
  if ! cmake --build "$dir" -j "$jobs"; then
    failed=$((failed + 1)); problems+=("build of $dir failed")
  fi
  return 0
}

# run_ctest DIR CTEST-ARG...: run, print, count each test's verdict from ctest's status lines
run_ctest() {
  local dir=$1; shift
  local log=$dir/test-summary.log line name
  local -a vm_failed=()
  step "ctest --test-dir $dir $*"
  ctest --test-dir "$dir" --output-on-failure -j "$jobs" "$@" 2>&1 | tee "$log"
  # status lines: " 3/12 Test  #3: vm_smoke .......   Passed   11.44 sec", "...***Failed ...",
  # "***Skipped", "***Not Run", "***Timeout", "***Exception: SegFault"
  while read -r line; do
    name=$(sed -E 's/^ *[0-9]+\/[0-9]+ +Test +#[0-9]+: ([^ ]+) .*/\1/' <<< "$line")
    case $line in
      *" Passed "*) passed=$((passed + 1)) ;;
      *"***Skipped"*) skipped=$((skipped + 1)) ;;
      *) if is_vm_test "$dir" "$name"; then vm_failed+=("$name"); else failed=$((failed + 1)); fi ;;
    esac
  done < <(grep -E '^ *[0-9]+/[0-9]+ +Test +#[0-9]+: ' "$log")
  [ ${#vm_failed[@]} = 0 ] || rerun_vm_tests "$dir" "${vm_failed[@]}"
  if ! grep -qE '^ *[0-9]+/[0-9]+ +Test +#' "$log"; then
    failed=$((failed + 1)); problems+=("ctest in $dir ran no tests")
  fi
  if grep -q '\*\*\*Skipped' "$log"; then
    problems+=("tests were SKIPPED in $dir (see their messages above)")
  fi
  return 0
}

# is_vm_test DIR NAME: NAME carries the label vm (a test in a qemu guest)
is_vm_test() { ctest --test-dir "$1" -N -L '^vm$' | grep -qE "Test +#[0-9]+: $2\$"; }

# rerun_vm_tests DIR NAME...: a VM test that failed runs once more, alone. Its first run's
# output stays above. One that passes then counts as flaky, not passed, and is named at the
# end: the guest's emulated hardware under TCG on a loaded host (a 9p share, the kernel's
# vidtv) has failed in ways no run here could reproduce (docs/testing.md). One that fails
# again counts as failed.
rerun_vm_tests() {
  local dir=$1 name log; shift
  for name in "$@"; do
    log=$dir/test-rerun-$name.log
    step "ctest --test-dir $dir -R ^$name\$ (its first run failed: once more, alone)"
    ctest --test-dir "$dir" --output-on-failure -R "^$name\$" 2>&1 | tee "$log"
    if grep -qE "Test +#[0-9]+: $name \.* +Passed " "$log"; then
      flaky=$((flaky + 1)); problems+=("FLAKY: $name failed, then passed when run again alone")
    else
      failed=$((failed + 1))
    fi
  done
}

# the conformance results of the real-kernel runs (full logs in build/vm-out/<test>/)
conform_summary() {
  local f
  step "ffdvb-conform in the VM"
  for f in "$1"/vm-out/*/ffdvb-conform*.log; do
    [ -f "$f" ] || continue
    printf '  %s %s: %s\n' "$(basename "$(dirname "$f")")" "$(basename "$f" .log)" \
      "$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$f" | tail -n 1)"
    grep -E '^(FAIL|SKIP) ' "$f" | sed 's/^/    /'
  done
}

start=$SECONDS
build build && run_ctest build && conform_summary build
build build-asan -DFFDVB_SANITIZE=ON && run_ctest build-asan -L unit

echo
for p in "${problems[@]}"; do echo "test.sh: $p"; done
echo "test.sh: took $((SECONDS - start)) s"
summary="$passed passed, $failed failed"
[ "$skipped" -gt 0 ] && summary="$summary, $skipped skipped"
[ "$flaky" -gt 0 ] && summary="$summary, $flaky flaky"
echo "$summary"
[ "$failed" = 0 ]
