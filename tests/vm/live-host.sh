#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# usage: live-host.sh BINDIR BUILDDIR
# Host side of the live-decoding VM test: vidtv for the VM's kernel (scripts/vm/build-vidtv.sh,
# cached in BUILDDIR/vidtv), then tests/vm/live.sh inside scripts/vm.sh. Exit status: live.sh's;
# 77 (loudly; 1 under CI) when vidtv cannot be built here.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
bin=${1:?usage: live-host.sh BINDIR BUILDDIR}
build=${2:?usage: live-host.sh BINDIR BUILDDIR}
rc=0
vidtv=$(sh "$here/../../scripts/vm/build-vidtv.sh" "$build/vidtv") || rc=$?
if [ "$rc" = 77 ]; then
  echo "live-host.sh: SKIPPED (exit 77): vidtv cannot be built here (linux-source, headers)" >&2
  [ -n "${CI:-}" ] && exit 1
  exit 77
fi
[ "$rc" = 0 ] || { echo "live-host.sh: building vidtv failed" >&2; exit 1; }
exec bash "$here/../../scripts/vm.sh" "/bin/sh $here/live.sh $bin $vidtv"
