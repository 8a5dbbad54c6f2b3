#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Zapping in VDR, driven over SVDRP and judged from the pictures shown.

  vdr-zap.py drive PORT DWELL_S [--capture DIR:AT_S] CHANNEL...
      sends `CHAN N` for each CHANNEL on one SVDRP connection, DWELL_S seconds apart, and
      prints `zap N SENT_NS REPLY` (SENT_NS: CLOCK_MONOTONIC when the command left, the
      clock of ffdvbd's picture record). With --capture, AT_S seconds after the K-th zap's
      command it asks the host for a screendump DIR/zapK.ppm (DIR/req-zapK, tests/vm/capture-lib.sh).
  vdr-zap.py judge PICTURES_LOG ZAPS START_CHANNEL N=FRAMEMD5...
      reads the record (`picture T PTS W H BLANK MD5`), the drive's output and, per channel
      N, ffmpeg's framemd5 list of its stream; prints per zap one line
      `zap FROM TO first_ms=MS old_after=K foreign=F new=P` (first_ms -1: no picture of the new
      service) and a `same` line if two services share a picture (the judgement would be void).

A zap is the window from its SENT_NS to the next one's (the last one's as long as the others'). Its first correct picture is the first
one of the new service's stream; old_after counts pictures of the previous service shown after
it (a flash of the old channel), foreign those of neither.
"""
import os
import socket
import sys
import time


def drive(port, dwell, channels, capture=None):
    s = socket.create_connection(("127.0.0.1", port), timeout=30)
    f = s.makefile("rwb", buffering=0)

    def reply():
        lines = []
        while True:
            line = f.readline().decode("utf-8", "replace").rstrip("\r\n")
            if not line:
                return " | ".join(lines) or "(connection closed)"
            lines.append(line)
            if len(line) < 4 or line[3] != "-":
                return " | ".join(lines)

    reply()  # the greeting
    for k, ch in enumerate(channels, 1):
        sent = time.monotonic_ns()
        f.write(b"CHAN %s\r\n" % ch.encode())
        print("zap %s %d %s" % (ch, sent, reply()), flush=True)
        if capture:
            at = float(capture[1])
            time.sleep(max(0.0, at - (time.monotonic_ns() - sent) / 1e9))
            open(os.path.join(capture[0], "req-zap%d" % k), "w").close()
            time.sleep(max(0.0, dwell - (time.monotonic_ns() - sent) / 1e9))
        else:
            time.sleep(dwell)
    f.write(b"QUIT\r\n")
    reply()


def md5_set(path):
    out = set()
    with open(path) as fh:
        for line in fh:
            if line.startswith("#"):
                continue
            fields = [x.strip() for x in line.split(",")]
            if len(fields) >= 6:
                out.add(fields[5])
    return out


def judge(log, zaps_path, start, refs):
    sets = {}
    for r in refs:
        ch, path = r.split("=", 1)
        sets[ch] = md5_set(path)
    chans = list(sets)
    for i, a in enumerate(chans):
        for b in chans[i + 1:]:
            common = sets[a] & sets[b]
            if common:
                print("same %s %s %d" % (a, b, len(common)))
    pics = []
    with open(log) as fh:
        for line in fh:
            p = line.split()
            if len(p) == 7 and p[0] == "picture" and p[5] == "0":
                pics.append((int(p[1]), p[6]))
    zaps = []
    with open(zaps_path) as fh:
        for line in fh:
            p = line.split()
            if len(p) >= 3 and p[0] == "zap":
                zaps.append((p[1], int(p[2])))
    prev = start
    # the last zap's window as long as the others (the dwell), not up to the record's end
    dwell = (zaps[-1][1] - zaps[0][1]) // (len(zaps) - 1) if len(zaps) > 1 else None
    for i, (ch, sent) in enumerate(zaps):
        end = zaps[i + 1][1] if i + 1 < len(zaps) else (sent + dwell if dwell else None)
        window = [(t, m) for t, m in pics if t >= sent and (end is None or t < end)]
        first = None
        old_after = foreign = new = 0
        for t, m in window:
            if m in sets.get(ch, ()):
                new += 1
                if first is None:
                    first = t
            elif m in sets.get(prev, ()):
                if first is not None:
                    old_after += 1
            else:
                foreign += 1
        ms = (first - sent) / 1e6 if first is not None else -1
        print("zap %s %s first_ms=%.1f old_after=%d foreign=%d new=%d" %
              (prev, ch, ms, old_after, foreign, new))
        prev = ch


def main(argv):
    if len(argv) >= 4 and argv[1] == "drive":
        capture = None
        if len(argv) > 5 and argv[4] == "--capture":
            capture = argv[5].rsplit(":", 1)
            argv = argv[:4] + argv[6:]
        drive(int(argv[2]), float(argv[3]), argv[4:], capture)
    elif len(argv) >= 5 and argv[1] == "judge":
        judge(argv[2], argv[3], argv[4], argv[5:])
    else:
        sys.stderr.write(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
