#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Clients that try to make ffdvbd hold memory and descriptors (tests/vm/exhaust.sh).

Both take the daemon's PID last and print its peak VmRSS (kB) and open descriptors.

  exhaust.py stills VIDEO0 MIB N PID
                                   N threads, one after the other, each blocked in a
                                   VIDEO_STILLPICTURE of MIB MiB on a card whose ring drains
                                   slowly; prints "stills waiting=W refused=R other=O"
  exhaust.py control SOCK IDLE SLOW HOLD PID
                                   SLOW clients ask "osd-plane" and never read, IDLE clients
                                   connect and send nothing; prints "control connected=C
                                   backlog_full=B" and holds them HOLD seconds
  exhaust.py silent PORT            listens on 127.0.0.1:PORT and never answers (a dvbv5-daemon
                                   that hangs): holds its connections until killed
  exhaust.py pace VIDEO0 OPENS FRONTEND0 PID
                                   writes PES to VIDEO0 (a card draining at its drain rate)
                                   while OPENS threads open FRONTEND0 (another adapter whose
                                   remote tuner's server is silent); prints "pace
                                   bytes_per_s=.. max_stall_ms=.. opens=errno,errno,..."
Both print their line and then exit with their clients still there: the daemon must clean up.
"""
import ctypes
import errno
import fcntl
import os
import socket
import sys
import threading
import time

libc = ctypes.CDLL(None, use_errno=True)


def iow(kind, nr, size):
    return (1 << 30) | (size << 16) | (ord(kind) << 8) | nr


VIDEO_STILLPICTURE = iow('o', 30, 16)
VIDEO_PLAY = (ord('o') << 8) | 22
VIDEO_SELECT_SOURCE = (ord('o') << 8) | 25  # struct video_still_picture: char *, int32 (64-bit)


class StillPicture(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("size", ctypes.c_int32)]


def usage_of(pid):
    with open(f"/proc/{pid}/status") as f:
        rss = next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))
    return rss, len(os.listdir(f"/proc/{pid}/fd"))


def stills(path, mib, n, pid):
    results = []
    lock = threading.Lock()
    fd = os.open(path, os.O_RDWR)  # video0 has one writer: the threads share it

    def one():
        buf = ctypes.create_string_buffer(mib << 20)
        sp = StillPicture(ctypes.cast(buf, ctypes.c_void_p), mib << 20)
        r = libc.ioctl(fd, VIDEO_STILLPICTURE, ctypes.byref(sp))  # releases the GIL
        with lock:
            results.append(0 if r == 0 else ctypes.get_errno())

    for _ in range(n):
        threading.Thread(target=one, daemon=True).start()
        time.sleep(3)  # the one before has parked (or been refused) by now
    with lock:
        refused = results.count(errno.ENOMEM)
        other = len(results) - refused
    rss, fds = usage_of(pid)
    print(f"stills waiting={n - refused - other} refused={refused} other={other} "
          f"rss_kb={rss} fds={fds}", flush=True)
    os._exit(0)  # the parked calls are interrupted by our exit


def control(path, idle, slow, hold, pid):
    socks, full = [], 0
    for i in range(slow + idle):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.setblocking(False)
        if s.connect_ex(path) != 0:
            full += 1  # EAGAIN: the listen backlog is full
            s.close()
            continue
        if i < slow:
            s.send(b"osd-plane\n")
            time.sleep(0.05)
        socks.append(s)
    time.sleep(hold)
    rss, fds = usage_of(pid)
    print(f"control connected={len(socks)} backlog_full={full} rss_kb={rss} fds={fds}",
          flush=True)
    os._exit(0)


def silent(port):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", port))
    s.listen(64)  # the kernel completes the connections; nobody reads or answers
    print("silent listening", flush=True)
    conns = []
    while True:
        c, _ = s.accept()
        conns.append(c)


def pace(video0, opens, frontend0, pid):
    results = []
    lock = threading.Lock()

    def one():
        try:
            os.close(os.open(frontend0, os.O_RDONLY | os.O_NONBLOCK))  # readers: no EBUSY
            r = "ok"
        except OSError as e:
            r = errno.errorcode.get(e.errno, str(e.errno))
        with lock:
            results.append(r)

    # a video PES packet of 2 KiB without a timestamp: queued and drained, never decoded
    pes = bytes([0, 0, 1, 0xE0, 0x07, 0xFA, 0x80, 0, 0]) + bytes(2039)
    fd = os.open(video0, os.O_WRONLY)
    fcntl.ioctl(fd, VIDEO_SELECT_SOURCE, 1)  # VIDEO_SOURCE_MEMORY: writes are taken
    fcntl.ioctl(fd, VIDEO_PLAY)
    threads = [threading.Thread(target=one, daemon=True) for _ in range(opens)]
    start = last = time.monotonic()
    total, stall = 0, 0.0
    for i in range(800):  # 1.6 MiB: 16 s at 100 kB/s, while the opens wait
        if i == 20:
            for t in threads:
                t.start()
        total += os.write(fd, pes)
        now = time.monotonic()
        stall = max(stall, now - last)
        last = now
    rate = total / (last - start)
    for t in threads:
        t.join(30)
    rss, fds = usage_of(pid)
    print(f"pace bytes_per_s={rate:.0f} max_stall_ms={stall * 1000:.0f} "
          f"opens={','.join(sorted(results))} rss_kb={rss} fds={fds}", flush=True)
    os._exit(0)


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "silent":
        silent(int(sys.argv[2]))
    if len(sys.argv) == 6 and sys.argv[1] == "pace":
        pace(sys.argv[2], int(sys.argv[3]), sys.argv[4], int(sys.argv[5]))
    if len(sys.argv) == 6 and sys.argv[1] == "stills":
        stills(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]))
    elif len(sys.argv) == 7 and sys.argv[1] == "control":
        control(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5]),
                int(sys.argv[6]))
    sys.exit(__doc__)
