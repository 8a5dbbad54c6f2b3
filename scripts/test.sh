#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# usage: scripts/test.sh      (from anywhere; CI runs it through .ci/run)
# The whole test suite: configures and builds build/ (normal) and build-asan/ (AddressSanitizer
# and UBSan), runs every test of build/ (unit tests and the real-kernel VM tests) and the unit
# tests of build-asan/. Ends with one line "N passed, M failed, K skipped" over both runs (a
# failed configure or build counts as one failure); exits 0 iff nothing failed.
# Env: FFDVB_JOBS (2) parallel build jobs and tests; CMAKE_ARGS extra configure arguments.
set -u
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root" || exit 1
jobs=${FFDVB_JOBS:-2}
passed=0 failed=0 skipped=0
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
  local log=$dir/test-summary.log line
  step "ctest --test-dir $dir $*"
  ctest --test-dir "$dir" --output-on-failure -j "$jobs" "$@" 2>&1 | tee "$log"
  # status lines: " 3/12 Test  #3: vm_smoke .......   Passed   11.44 sec", "...***Failed ...",
  # "***Skipped", "***Not Run", "***Timeout", "***Exception: SegFault"
  while read -r line; do
    case $line in
      *" Passed "*) passed=$((passed + 1)) ;;
      *"***Skipped"*) skipped=$((skipped + 1)) ;;
      *) failed=$((failed + 1)) ;;
    esac
  done < <(grep -E '^ *[0-9]+/[0-9]+ +Test +#[0-9]+: ' "$log")
  if ! grep -qE '^ *[0-9]+/[0-9]+ +Test +#' "$log"; then
    failed=$((failed + 1)); problems+=("ctest in $dir ran no tests")
  fi
  if grep -q '\*\*\*Skipped' "$log"; then
    problems+=("tests were SKIPPED in $dir (see their messages above)")
  fi
  return 0
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
if [ "$skipped" -gt 0 ]; then
  echo "$passed passed, $failed failed, $skipped skipped"
else
  echo "$passed passed, $failed failed"
fi
[ "$failed" = 0 ]
