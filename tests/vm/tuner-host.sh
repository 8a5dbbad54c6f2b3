#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# usage: tuner-host.sh BINDIR BUILDDIR [dvb|remote|file|all]
# Host side of the VM tuner test, then tests/vm/tuner.sh inside scripts/vm.sh:
#   dvb, remote: builds vidtv for the VM's kernel into BUILDDIR/vidtv (scripts/vm/build-vidtv.sh;
#                cached);
#   file:        makes BUILDDIR/streams/sd_mpeg2_mp2.ts (scripts/gen-streams.sh), ffmpeg's
#                per-picture MD5 list of it (.framemd5) and its pictures' luma at 90x72 (.y8);
#                needs no vidtv;
#   all:         both.
# Exit status: tuner.sh's; 77 (loudly) when vidtv cannot be built here (no linux-source or
# headers) for dvb/remote, ffmpeg is missing for file, or the VM cannot start.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
usage='usage: tuner-host.sh BINDIR BUILDDIR [dvb|remote|file|all]'
bin=${1:?$usage}
build=${2:?$usage}
part=${3:-all}
skip() {
  echo "************************************************************" >&2
  echo "tuner-host.sh: SKIPPED (exit 77): $1" >&2
  shift
  for l in "$@"; do echo "  $l" >&2; done
  echo "************************************************************" >&2
  [ -n "${CI:-}" ] && exit 1
  exit 77
}
vidtv=- streams=
if [ "$part" = file ] || [ "$part" = all ]; then
  command -v ffmpeg > /dev/null || skip "no ffmpeg CLI to make the file tuner's stream"
  streams=$build/streams
  sh "$here/stream-refs.sh" "$streams" sd_mpeg2_mp2.ts > /dev/null
fi
if [ "$part" != file ]; then
  rc=0
  vidtv=$(sh "$here/../../scripts/vm/build-vidtv.sh" "$build/vidtv") || rc=$?
  if [ "$rc" = 77 ]; then
    [ "$part" = all ] && [ -n "$streams" ] && part=file ||
      skip "vidtv cannot be built on this machine" \
        "(install linux-source-6.1 and linux-headers-<kernel version>)"
    echo "tuner-host.sh: vidtv cannot be built here: only the file part runs" >&2
  elif [ "$rc" != 0 ]; then
    echo "tuner-host.sh: building vidtv failed" >&2; exit 1
  fi
fi
exec bash "$here/../../scripts/vm.sh" "/bin/sh $here/tuner.sh $bin $vidtv $part $streams"
