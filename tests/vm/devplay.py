#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# usage: devplay.py ADAPTER FILE.ts LOG [T:COMMAND ...]
# A replay client like ffdvb-play (VDR's pmAudioVideo: 188-byte blocking writes of each PES PID to
# video0 or audio0, paced by the device) that also changes the sound while it plays, as a user's
# remote control would through VDR: COMMAND is mute1, mute0 or mixerL,R (AUDIO_SET_MUTE,
# AUDIO_SET_MIXER), sent T seconds after the first write. Each command's time since the first
# write goes to LOG as "T COMMAND", for the host to find in what the sound card played.
import fcntl
import os
import struct
import sys
import time

# _IO('o', n) and _IOW('o', 14, audio_mixer_t) on every Linux architecture ffdvb serves
AUDIO_PLAY, AUDIO_SELECT_SOURCE, AUDIO_SET_MUTE, AUDIO_SET_AV_SYNC = 0x6F02, 0x6F05, 0x6F06, 0x6F07
AUDIO_SET_MIXER = 0x40086F0E
VIDEO_PLAY, VIDEO_SELECT_SOURCE, VIDEO_SET_BLANK = 0x6F16, 0x6F19, 0x6F1A
SOURCE_MEMORY = 1


def pes_kind(pkt):
    """'v', 'a' or None for the stream id of the PES a TS packet starts (None: no PES start)"""
    if not pkt[1] & 0x40:
        return None
    off = 4
    if pkt[3] & 0x20:
        off += 1 + pkt[4]
    if off + 4 > 188 or pkt[off:off + 3] != b'\0\0\1':
        return None
    sid = pkt[off + 3]
    if 0xE0 <= sid <= 0xEF:
        return 'v'
    if 0xC0 <= sid <= 0xDF or sid == 0xBD:
        return 'a'
    return None


def command(afd, cmd):
    if cmd in ('mute1', 'mute0'):
        fcntl.ioctl(afd, AUDIO_SET_MUTE, int(cmd[-1]))
    elif cmd.startswith('mixer'):
        left, right = (int(v) for v in cmd[5:].split(','))
        fcntl.ioctl(afd, AUDIO_SET_MIXER, struct.pack('II', left, right))
    else:
        raise SystemExit('devplay: unknown command ' + cmd)


def main():
    adapter, path, log = sys.argv[1:4]
    plan = sorted((float(t), c) for t, c in (a.split(':', 1) for a in sys.argv[4:]))
    base = '/dev/dvb/adapter%s/' % adapter
    vfd = os.open(base + 'video0', os.O_RDWR)
    afd = os.open(base + 'audio0', os.O_RDWR)
    fcntl.ioctl(vfd, VIDEO_SET_BLANK, 1)
    fcntl.ioctl(afd, AUDIO_SELECT_SOURCE, SOURCE_MEMORY)
    fcntl.ioctl(afd, AUDIO_SET_AV_SYNC, 1)
    fcntl.ioctl(afd, AUDIO_PLAY)
    fcntl.ioctl(vfd, VIDEO_SELECT_SOURCE, SOURCE_MEMORY)
    fcntl.ioctl(vfd, VIDEO_PLAY)
    kinds = {}
    t0 = None
    with open(path, 'rb') as f, open(log, 'w') as out:
        while True:
            pkt = f.read(188)
            if len(pkt) < 188:
                break
            pid = (pkt[1] & 0x1F) << 8 | pkt[2]
            if pid not in kinds:
                kinds[pid] = pes_kind(pkt)
            kind = kinds[pid]
            if kind is None:
                del kinds[pid]   # PAT, PMT, or before the PID's first PES start
                continue
            os.write(vfd if kind == 'v' else afd, pkt)
            now = time.monotonic()
            t0 = t0 or now
            while plan and now - t0 >= plan[0][0]:
                command(afd, plan[0][1])
                out.write('%.3f %s\n' % (now - t0, plan[0][1]))
                out.flush()
                plan.pop(0)
    print('devplay: wrote %s in %.2f s' % (path, time.monotonic() - (t0 or time.monotonic())))
    time.sleep(2)   # what is buffered plays out before the nodes close
    os.close(afd)
    os.close(vfd)


if __name__ == '__main__':
    main()
