#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# usage: stream-refs.sh STREAMDIR NAME
# Host side, for the VM tests that compare what ffdvbd shows with ffmpeg: makes the test stream
# NAME in STREAMDIR (scripts/gen-streams.sh; exit 77 without the ffmpeg CLI), ffmpeg's
# per-picture MD5 list of it (NAME.framemd5) and its pictures' luma at 90x72 (NAME.y8), once;
# prints the stream's path.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
streams=${1:?usage: stream-refs.sh STREAMDIR NAME}
name=${2:?usage: stream-refs.sh STREAMDIR NAME}
s=$(sh "$here/../../scripts/gen-streams.sh" "$streams" "$name")
if [ ! -s "$s.framemd5" ] || [ ! -s "$s.y8" ] || [ "$s.y8" -ot "$s" ]; then
  ffmpeg -hide_banner -loglevel error -nostdin -threads 1 -i "$s" -map 0:v -f framemd5 \
    "$s.framemd5.tmp"
  ffmpeg -hide_banner -loglevel error -nostdin -y -threads 1 -i "$s" -map 0:v \
    -vf scale=90:72 -pix_fmt gray -f rawvideo "$s.y8.tmp"
  mv "$s.framemd5.tmp" "$s.framemd5"
  mv "$s.y8.tmp" "$s.y8"
fi
echo "$s"
