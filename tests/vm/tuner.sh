#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# usage: tuner.sh BINDIR VIDTVDIR|- [dvb|remote|file|all] [STREAMDIR]
#                                                     (inside the VM, as root: tuner-host.sh)
# The tuner forwarding through the real kernel, with vidtv (built by scripts/vm/build-vidtv.sh
# into VIDTVDIR) as the real budget card, adapter 0:
#   dvb:     ffdvbd serves adapter 1 with --tuner dvb:0, --output none
#     - unmodified dvbv5-scan and dvbv5-zap (dvb-tools) on the emulated adapter 1: the scan finds
#       what the same scan finds on vidtv's adapter 0; zap locks; -r -o records from the
#       emulated dvr0 for 5 s; the same command on adapter 0: same PIDs, continuity counters
#       intact in both, the service's audio (SMPTE 302M PES payload) byte-identical over the
#       common length (the TS bytes themselves cannot be: vidtv's mux restarts on each zap and
#       cuts PES by elapsed time; see docs/tuner.md)
#     - parameters the real frontend rejects: the real errno on both adapters
#     - a client that never reads dvr0: EOVERFLOW once as the kernel reports it, then data;
#       the daemon fine
#     - the card vanishes under a client blocked in read(dvr0) (driver unbound): ENODEV to it,
#       video0 and the control socket keep working, tuning works again after it is back
#     - vidtv's modules removed while no client is open: open gives ENODEV, the daemon goes
#       on, after insmod dvbv5-zap locks again
#   remote:  Debian's dvbv5-daemon serving vidtv, ffdvbd adapter 2 with
#            --tuner remote:127.0.0.1:PORT (our own client of the daemon's wire protocol)
#     - FE_GET_INFO names vidtv's frontend before any tune; rejected parameters: vidtv's errno
#     - dvbv5-zap on adapter 2 locks and records (PIDs, continuity counters); dvbv5-scan on
#       adapter 2 gives the channel file it gives on vidtv's adapter 0 (section filters)
#     - a client that never reads dvr0: EOVERFLOW once, then data
#     - ffdvbd lets go of its idle connection, the daemon exits on SIGTERM; stopped: open
#       gives ENODEV, ffdvbd answers; restarted: the next open connects again
#   file:    no hardware (needs no vidtv; VIDTVDIR may be -): ffdvbd adapter 3 with --tuner
#            file:CHANNELS --output none --no-deinterlace --record, CHANNELS naming
#            STREAMDIR/sd_mpeg2_mp2.ts (ffmpeg-made MPEG-2 + MP2; tuner-host.sh makes it,
#            its framemd5 and its pictures' luma at 90x72 as .y8), a corrupt copy of it and a
#            missing file
#     - dvbv5-zap -a 3 without -r locks and sets two DMX_SET_PES_FILTER (ffdvbctl trace) that
#       feed the decoder (status: live video/audio PIDs): video_shown grows, every presented
#       picture equals one of ffmpeg's decode of the file (MD5), a screenshot shows one of
#       them, the tuner status says locked
#     - dvbv5-zap -a 3 -r -o records from the emulated dvr0 the file's own packets of the
#       service's PIDs in the file's order (continuity counters as in the file, across loops)
#     - a truncated/corrupt file: locks, bad bytes and TEI packets skipped and counted, the
#       recording in sync and without TEI packets, no crash; a missing file: no lock
#     - a client that never reads dvr0: EOVERFLOW once, then data; the daemon fine
# libdvbv5 (dvbv5-zap) finds devices through udev, which only lists /sys/class/dvb: the tools
# run in a mount namespace where a copy of that class with the emulated adapters' entries is
# bind-mounted over it (tuner-view.sh; the daemon itself sees the real sysfs).
# Prints PASS/FAIL lines and "N passed, M failed"; exit 0 iff nothing failed.
set -u
usage='usage: tuner.sh BINDIR VIDTVDIR|- [dvb|remote|file|all] [STREAMDIR]'
bin=${1:?$usage}
vidtv=${2:?$usage}
parts=${3:-all}
streams=${4:-}
out=${VM_OUT:-$(mktemp -d)}
script_name=tuner.sh
. "$(dirname "$0")/lib.sh"
py=$out/dvbio.py
pids=
cleanup() { for p in $pids; do kill "$p" 2>/dev/null; done; }
trap cleanup EXIT

# ---------------------------------------------------------------- helpers
# dvbio.py: the few raw ioctls the checks need (python3, struct layouts of linux/dvb/*.h, x86-64)
cat > "$py" <<'PY'
import ctypes, errno, fcntl, os, struct, sys, time
FE_SET_PROPERTY, FE_READ_STATUS = 0x40106f52, 0x80046f45
DMX_SET_PES_FILTER, DMX_SET_BUFFER_SIZE = 0x40146f2c, 0x6f2d
DTV_TUNE, DTV_CLEAR, DTV_FREQUENCY, DTV_MODULATION = 1, 2, 3, 4
DTV_SYMBOL_RATE, DTV_INNER_FEC, DTV_DELIVERY_SYSTEM = 8, 9, 17
SYS_DVBC_ANNEX_A, SYS_DVBT, SYS_ATSC = 1, 3, 11
DTV_BANDWIDTH_HZ = 5
def name(e): return errno.errorcode.get(e, str(e))
def tune(fd, freq, delsys=SYS_DVBC_ANNEX_A):
    props = [(DTV_CLEAR, 0), (DTV_DELIVERY_SYSTEM, delsys), (DTV_FREQUENCY, freq),
             (DTV_MODULATION, 6), (DTV_SYMBOL_RATE, 6940000), (DTV_INNER_FEC, 9), (DTV_TUNE, 0)]
    arr = b"".join(struct.pack("<I12xI52xi", c, v, 0) for c, v in props)  # struct dtv_property: 76 bytes
    buf = ctypes.create_string_buffer(arr, len(arr))
    fcntl.ioctl(fd, FE_SET_PROPERTY, struct.pack("<I4xQ", len(props), ctypes.addressof(buf)))
def tune_t(fd, freq):    # DVB-T, 8 MHz (the file tuner's channel file)
    props = [(DTV_CLEAR, 0), (DTV_DELIVERY_SYSTEM, SYS_DVBT), (DTV_FREQUENCY, freq),
             (DTV_BANDWIDTH_HZ, 8000000), (DTV_TUNE, 0)]
    arr = b"".join(struct.pack("<I12xI52xi", c, v, 0) for c, v in props)
    buf = ctypes.create_string_buffer(arr, len(arr))
    fcntl.ioctl(fd, FE_SET_PROPERTY, struct.pack("<I4xQ", len(props), ctypes.addressof(buf)))
def status(fd):
    return struct.unpack("<I", fcntl.ioctl(fd, FE_READ_STATUS, b"\0" * 4))[0]
def wait_lock(fd, secs=10):
    end = time.time() + secs
    while time.time() < end:
        if status(fd) & 0x10: return True
        time.sleep(0.05)
    return False
def pes_filter(fd, pid):  # DMX_IN_FRONTEND, DMX_OUT_TS_TAP, DMX_PES_OTHER, DMX_IMMEDIATE_START
    fcntl.ioctl(fd, DMX_SET_PES_FILTER, struct.pack("<HxxiiiI", pid, 0, 2, 20, 4))
def op(f, *a):
    try:
        r = f(*a)
        return "ok" if r is None else r
    except OSError as e:
        return name(e.errno)
cmd, d = sys.argv[1], sys.argv[2]  # d: /dev/dvb/adapterN
if cmd == "open":        # open(frontend0, O_RDWR): ok or the errno's name
    print(op(lambda: os.close(os.open(d + "/frontend0", os.O_RDWR))))
elif cmd == "info":      # FE_GET_INFO's name, then FE_READ_STATUS (read-only file)
    fe = os.open(d + "/frontend0", os.O_RDONLY)
    info = fcntl.ioctl(fe, 0x80a86f3d, b"\0" * 168)
    print(info[:128].split(b"\0")[0].decode(errors="replace").replace(" ", "_"), op(status, fe))
elif cmd == "overflow-t": # the same on a DVB-T entry of the file tuner: FREQ PID
    fe = os.open(d + "/frontend0", os.O_RDWR)
    tune_t(fe, int(sys.argv[3]))
    print("lock", wait_lock(fe))
    dvr = os.open(d + "/dvr0", os.O_RDONLY)
    print("bufsize", op(fcntl.ioctl, dvr, DMX_SET_BUFFER_SIZE, 188 * 512))
    dmx = os.open(d + "/demux0", os.O_RDWR)
    pes_filter(dmx, int(sys.argv[4], 0))
    time.sleep(4)
    print("read1", op(lambda: len(os.read(dvr, 188 * 64))))
    print("read2", op(lambda: len(os.read(dvr, 188 * 64))))
elif cmd == "reject":    # FE_SET_PROPERTY with parameters vidtv refuses
    fe = os.open(d + "/frontend0", os.O_RDWR)
    print("freq_10MHz", op(tune, fe, 10000000), "atsc", op(tune, fe, 474000000, SYS_ATSC),
          "freq_3GHz", op(tune, fe, 3000000000))
elif cmd == "overflow":  # the service to dvr0, a 96 kB buffer (0.3 s of it), nobody reads for 4 s
    fe = os.open(d + "/frontend0", os.O_RDWR)
    tune(fe, 474000000)
    print("lock", wait_lock(fe))
    dvr = os.open(d + "/dvr0", os.O_RDONLY)
    print("bufsize", op(fcntl.ioctl, dvr, DMX_SET_BUFFER_SIZE, 188 * 512))
    dmx = os.open(d + "/demux0", os.O_RDWR)
    pes_filter(dmx, 0x111)
    time.sleep(4)
    print("read1", op(lambda: len(os.read(dvr, 188 * 64))))
    print("read2", op(lambda: len(os.read(dvr, 188 * 64))))
elif cmd == "record-until-error":  # tune, PID 0x111 to dvr0, blocking reads until one fails
    fe = os.open(d + "/frontend0", os.O_RDWR)
    tune(fe, 474000000)
    print("lock", wait_lock(fe), flush=True)
    dvr = os.open(d + "/dvr0", os.O_RDONLY)
    dmx = os.open(d + "/demux0", os.O_RDWR)
    pes_filter(dmx, 0x111)
    n, t0 = 0, time.time()
    while time.time() - t0 < 1:
        n += len(os.read(dvr, 188 * 64))
    # vidtv's removal frees its multiplexer and frontend while files may still be open; a
    # feed stopped or a frontend closed after that corrupts the kernel's heap (GPFs in the VM
    # in 2 of 4 runs): the client stops its filter and closes the frontend first, then waits
    # in a blocking read of dvr0, which the removal must end with ENODEV
    fcntl.ioctl(dmx, 0x6f2a)
    os.close(fe)
    print("recorded", n, "bytes; filter stopped, waiting in read(dvr0)", flush=True)
    t0 = time.time()
    while time.time() - t0 < 60:
        try:
            n += len(os.read(dvr, 188 * 64))
        except OSError as e:
            print("read_error", name(e.errno), "after", n, "bytes", flush=True)
            print("demux_read", op(lambda: os.read(dmx, 188)), "demux_stop",
                  op(fcntl.ioctl, dmx, 0x6f2a), flush=True)
            break
    else:
        print("no error in 60 s")
PY

# tsinfo FILE: "PIDS <pid,...> PACKETS n CC_ERRORS n SYNC_ERRORS n" (PID 0x1fff ignored)
tsinfo() {
  python3 - "$1" <<'PY'
import sys
data = open(sys.argv[1], "rb").read()
pids, cc, ccerr, sync = {}, {}, 0, 0
for i in range(0, len(data) - 187, 188):
    p = data[i:i + 188]
    if p[0] != 0x47: sync += 1; continue
    pid = ((p[1] & 0x1f) << 8) | p[2]
    if pid == 0x1fff: continue
    pids[pid] = pids.get(pid, 0) + 1
    if p[3] & 0x10:
        c = p[3] & 15
        if pid in cc and c != (cc[pid] + 1) & 15 and c != cc[pid]: ccerr += 1
        cc[pid] = c
print("PIDS", ",".join("0x%x" % k for k in sorted(pids)), "PACKETS", sum(pids.values()),
      "CC_ERRORS", ccerr, "SYNC_ERRORS", sync, "BYTES", len(data))
PY
}
# audio_overlap A.ts B.ts PID: the SMPTE 302M samples of PID in both recordings (PES and AES3
# headers stripped: the PES cuts follow vidtv's clock), aligned where B's first samples occur in
# A (or A's in B); prints "OVERLAP n EQUAL n" (bytes of the common part, bytes equal there)
audio_overlap() {
  python3 - "$1" "$2" "$3" <<'PY'
import sys
def samples(path, pid):
    data, out, pes = open(path, "rb").read(), bytearray(), None
    def flush(b):
        if b and len(b) > 13 and b[:3] == b"\0\0\1": out.extend(b[9 + b[8] + 4:])
    for i in range(0, len(data) - 187, 188):
        p = data[i:i + 188]
        if p[0] != 0x47 or (((p[1] & 0x1f) << 8) | p[2]) != pid or not p[3] & 0x10: continue
        off = 4 + (1 + p[4] if p[3] & 0x20 else 0)
        if p[1] & 0x40:
            flush(pes); pes = bytearray(p[off:])
        elif pes is not None:
            pes.extend(p[off:])
    return bytes(out)   # the last PES may be incomplete: left out
def align(a, b):        # b starts somewhere in a (5-byte sample pairs): best (overlap, equal)
    best, key, pos = (0, 0), b[:4000], a.find(b[:4000])
    while pos >= 0:
        n = min(len(a) - pos, len(b))
        w = min(n, 65536)
        if pos % 5 == 0 and a[pos:pos + w] == b[:w]:
            eq = 0
            while eq < n and a[pos + eq:pos + eq + 4096] == b[eq:eq + 4096]: eq += 4096
            while eq < n and a[pos + eq] == b[eq]: eq += 1
            eq = min(eq, n)
            if eq > best[1]: best = (n, eq)
            if eq == n: break
        pos = a.find(key, pos + 1)
    return best
pid = int(sys.argv[3], 0)
a, b = samples(sys.argv[1], pid), samples(sys.argv[2], pid)
n, eq = max(align(a, b), align(b, a), key=lambda r: r[1])
print("OVERLAP", n, "EQUAL", eq, "SIZES", len(a), len(b))
PY
}
# common_prefix A B: "SAME n OF m" (bytes equal from the start, length of the shorter)
common_prefix() {
  python3 - "$1" "$2" <<'PY'
import sys
a, b = open(sys.argv[1], "rb").read(), open(sys.argv[2], "rb").read()
n = min(len(a), len(b)); i = 0
while i < n and a[i] == b[i]: i += 1
print("SAME", i, "OF", n)
PY
}

. "$(dirname "$0")/tuner-view.sh"

load_vidtv() { sh "$vidtv/load.sh" > "$out/load.log" 2>&1; }
bridge_dev() { ls /sys/bus/platform/drivers/vidtv/ 2>/dev/null | grep '^vidtv' | head -n 1; }
wait_ready() {  # wait_ready PID ADAPTER LOG
  i=0
  until grep -q "ready (adapter $2)" "$3"; do
    i=$((i + 1))
    if ! alive "$1" || [ $i -gt 300 ]; then return 1; fi
    sleep 0.1
  done
}
# zap ADAPTER OUTFILE [SECS]: dvbv5-zap -r -o on the service, log in OUTFILE.log
zap() {
  timeout 60 "$in_view" dvbv5-zap -a "$1" -c "$out/channels.conf" -r -o "$2" -t "${3:-5}" \
    Beethoven > "$2.log" 2>&1
}
locked() { grep -q 'Lock' "$1"; }
ctl_ok() { "$bin/ffdvbctl" --adapter "$1" status > /dev/null 2>&1; }

for f in ffdvbd ffdvbctl; do
  [ -x "$bin/$f" ] || { fail "setup: $bin/$f is not built"; finish; }
done
for t in dvbv5-zap dvbv5-scan dvbv5-daemon python3 unshare; do
  command -v "$t" > /dev/null || { fail "setup: $t is not installed (dvb-tools, python3, util-linux)"; finish; }
done
[ -c /dev/cuse ] || modprobe cuse
if [ "$parts" != file ]; then
load_vidtv
check $? "setup: vidtv loaded from $vidtv"
[ -c /dev/dvb/adapter0/frontend0 ] && [ -c /dev/dvb/adapter0/dvr0 ] || { fail "setup: no vidtv adapter 0"; finish; }
fi

cat > "$out/scan.conf" <<'EOF'
[Channel]
FREQUENCY = 474000000
MODULATION = QAM/AUTO
SYMBOL_RATE = 6940000
INNER_FEC = AUTO
DELIVERY_SYSTEM = DVBC/ANNEX_A
EOF

# ---------------------------------------------------------------- dvb:
if [ "$parts" = all ] || [ "$parts" = dvb ]; then
log=$out/ffdvbd-dvb.log
"$bin/ffdvbd" --adapter 1 --foreground --output none --tuner dvb:0 > "$log" 2>&1 &
dpid=$!; pids="$pids $dpid"
wait_ready "$dpid" 1 "$log"
check $? "dvb: ffdvbd --adapter 1 --tuner dvb:0 ready"
make_view 1

timeout 120 "$in_view" dvbv5-scan -a 1 -o "$out/channels.conf" "$out/scan.conf" > "$out/scan1.log" 2>&1
rc=$?
grep -q '^\[Beethoven\]' "$out/channels.conf" 2>/dev/null && grep -q 'AUDIO_PID = 273' "$out/channels.conf"
check $? "dvb: dvbv5-scan -a 1 (emulated) finds Beethoven, AUDIO_PID 273 (exit $rc)"
timeout 120 "$in_view" dvbv5-scan -a 0 -o "$out/channels0.conf" "$out/scan.conf" > "$out/scan0.log" 2>&1
cmp -s "$out/channels.conf" "$out/channels0.conf"
check $? "dvb: the channel file equals the one scanned on vidtv's adapter 0"

zap 1 "$out/emul.ts"
rc=$?
locked "$out/emul.ts.log"
check $? "dvb: dvbv5-zap -a 1 locks (exit $rc: $(grep -m1 -o 'Lock.*' "$out/emul.ts.log" | cut -c1-40))"
zap 0 "$out/real.ts"
locked "$out/real.ts.log"
check $? "dvb: dvbv5-zap -a 0 (vidtv itself) locks"
ie=$(tsinfo "$out/emul.ts"); ir=$(tsinfo "$out/real.ts")
echo "    emulated: $ie"; echo "    vidtv:    $ir"
set -- $ie; epids=$2 epk=$4 ecc=$6 esync=$8
set -- $ir; rpids=$2 rpk=$4 rcc=$6
[ "$epids" = "$rpids" ] && [ "$epids" = 0x111 ]
check $? "dvb: same PIDs recorded ($epids / $rpids)"
[ "$epk" -gt 2000 ] && [ "$ecc" = 0 ] && [ "$esync" = 0 ]
check $? "dvb: emulated recording: $epk packets, continuity counters intact, in sync"
[ "$rcc" = 0 ] && [ $((epk * 10)) -gt $((rpk * 8)) ] && [ $((epk * 10)) -lt $((rpk * 12)) ]
check $? "dvb: as many packets as vidtv's own dvr0 gives (within 20 %: $epk / $rpk)"
set -- $(audio_overlap "$out/emul.ts" "$out/real.ts" 0x111)
echo "    audio samples: $*"; ov=$2 eq=$4
[ "$ov" -gt 500000 ] && [ "$eq" = "$ov" ]
check $? "dvb: the service's audio samples byte-identical where both recordings overlap ($eq of $ov bytes)"
set -- $(common_prefix "$out/emul.ts" "$out/real.ts")
echo "    (TS bytes equal from the start: $2 of $4; PTS/PCR and PES cuts follow vidtv's clock)"

set -- $(python3 "$py" reject /dev/dvb/adapter1); got1="$*"
set -- $(python3 "$py" reject /dev/dvb/adapter0); got0="$*"
echo "    emulated: $got1"; echo "    vidtv:    $got0"
[ "$got1" = "$got0" ] && [ -n "$got1" ] && ! echo "$got1" | grep -q ' ok'
check $? "dvb: parameters vidtv rejects: the same errno through the emulated frontend"

python3 "$py" overflow /dev/dvb/adapter1 > "$out/overflow1.txt" 2>&1
python3 "$py" overflow /dev/dvb/adapter0 > "$out/overflow0.txt" 2>&1
echo "    emulated: $(tr '\n' ' ' < "$out/overflow1.txt")"; echo "    vidtv:    $(tr '\n' ' ' < "$out/overflow0.txt")"
# read2's size depends on how soon it follows read1 (through CUSE: later, so the flushed buffer
# has refilled less or more): only that it brings data is compared
for f in overflow1 overflow0; do sed 's/^read2 [1-9][0-9]*$/read2 DATA/' "$out/$f.txt" > "$out/$f.cmp"; done
grep -q '^read1 EOVERFLOW' "$out/overflow1.txt" && grep -q '^read2 DATA' "$out/overflow1.cmp" &&
  cmp -s "$out/overflow1.cmp" "$out/overflow0.cmp"
check $? "dvb: a dvr0 nobody reads: EOVERFLOW once, then data, as on vidtv's own"
alive "$dpid" && ctl_ok 1
check $? "dvb: daemon alive and answering after the overflow"

# the card vanishes under a client waiting in read(dvr0): unbind the bridge's platform device
python3 "$py" record-until-error /dev/dvb/adapter1 > "$out/vanish.txt" 2>&1 &
rp=$!
i=0; until grep -q '^recorded' "$out/vanish.txt" || [ $i -gt 300 ]; do sleep 0.1; i=$((i + 1)); done
sleep 0.5
dev=$(bridge_dev)
echo "$dev" > /sys/bus/platform/drivers/vidtv/unbind
check $? "dvb: vidtv's device $dev unbound under a client waiting in read(dvr0)"
i=0; while alive $rp && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
alive $rp && kill $rp
echo "    client: $(tr '\n' ' ' < "$out/vanish.txt")"
grep -q 'read_error ENODEV' "$out/vanish.txt" && grep -q 'demux_read ENODEV demux_stop ENODEV' "$out/vanish.txt"
check $? "dvb: the waiting client gets ENODEV from read(dvr0), and from demux0"
[ "$(python3 "$py" open /dev/dvb/adapter1)" = ENODEV ]
check $? "dvb: open(frontend0) while the card is gone: ENODEV"
alive "$dpid" && ctl_ok 1 && [ -c /dev/dvb/adapter1/video0 ] &&
  python3 -c 'import os; os.close(os.open("/dev/dvb/adapter1/video0", os.O_RDWR))'
check $? "dvb: daemon alive, control socket and video0 work while the card is gone"
"$bin/ffdvbctl" --adapter 1 status --json > "$out/status-gone.json" 2>&1
grep -q '"present":false' "$out/status-gone.json"
check $? "dvb: status says the tuner is not present"
echo "$dev" > /sys/bus/platform/drivers/vidtv/bind
i=0; until [ -c /dev/dvb/adapter0/dvr0 ] || [ $i -gt 50 ]; do sleep 0.1; i=$((i + 1)); done
zap 1 "$out/emul2.ts" 3
locked "$out/emul2.ts.log" && [ -s "$out/emul2.ts" ]
check $? "dvb: after the card is back, dvbv5-zap -a 1 locks and records again"

# modules removed while no client has a file open: ffdvbd holds no real file then
sh "$vidtv/unload.sh" > "$out/unload.log" 2>&1
check $? "dvb: vidtv's modules removed while ffdvbd runs ($(tr '\n' ' ' < "$out/unload.log"))"
[ "$(python3 "$py" open /dev/dvb/adapter1)" = ENODEV ]
check $? "dvb: open(frontend0) without the modules: ENODEV"
zap 1 "$out/emul3.ts" 2
! locked "$out/emul3.ts.log"
check $? "dvb: dvbv5-zap -a 1 fails cleanly ($(grep -m1 -i 'error\|no such\|fail' "$out/emul3.ts.log" | cut -c1-60))"
alive "$dpid" && ctl_ok 1
check $? "dvb: daemon alive and answering without the modules"
load_vidtv
zap 1 "$out/emul4.ts" 3
locked "$out/emul4.ts.log" && [ -s "$out/emul4.ts" ]
check $? "dvb: after insmod, dvbv5-zap -a 1 locks and records again ($(tsinfo "$out/emul4.ts" | cut -d' ' -f1-4))"
stop_daemon "$dpid"
pids=
fi

# ---------------------------------------------------------------- remote:
if [ "$parts" = all ] || [ "$parts" = remote ]; then
port=5555
start_dvbv5_daemon() {
  dvbv5-daemon -p $port >> "$out/dvbv5-daemon.log" 2>&1 &
  ddpid=$!
  i=0
  until python3 -c "import socket; socket.create_connection(('127.0.0.1', $port), 1).close()" 2> /dev/null; do
    i=$((i + 1)); [ $i -gt 50 ] && return 1; sleep 0.1
  done
}
start_dvbv5_daemon
check $? "remote: dvbv5-daemon -p $port serves vidtv"
log=$out/ffdvbd-remote.log
"$bin/ffdvbd" --adapter 2 --foreground --output none \
  --tuner remote:127.0.0.1:$port > "$log" 2>&1 &
rpid=$!; pids="$pids $rpid $ddpid"
wait_ready "$rpid" 2 "$log"
check $? "remote: ffdvbd --adapter 2 --tuner remote:127.0.0.1:$port ready"
make_view 2
got2=$(python3 "$py" info /dev/dvb/adapter2 2>&1); got0=$(python3 "$py" info /dev/dvb/adapter0 2>&1)
echo "    emulated: $got2"; echo "    vidtv:    $got0"
[ "${got2%% *}" = "${got0%% *}" ] && [ -n "${got0%% *}" ]
check $? "remote: FE_GET_INFO on the emulated frontend0 names vidtv's frontend"
[ "$(python3 "$py" reject /dev/dvb/adapter2)" = "$(python3 "$py" reject /dev/dvb/adapter0)" ]
check $? "remote: parameters vidtv rejects: the same errno ($(python3 "$py" reject /dev/dvb/adapter2))"
[ -s "$out/channels.conf" ] || cp "$out/channels0.conf" "$out/channels.conf" 2> /dev/null ||
  timeout 120 "$in_view" dvbv5-scan -a 0 -o "$out/channels.conf" "$out/scan.conf" > "$out/scan0.log" 2>&1
zap 2 "$out/remote.ts"
locked "$out/remote.ts.log"
check $? "remote: dvbv5-zap -a 2 locks ($(grep -m1 -o 'Lock.*' "$out/remote.ts.log" | cut -c1-40))"
ir=$(tsinfo "$out/remote.ts" 2>&1); echo "    remote: $ir"
set -- $ir
[ "${2:-}" = 0x111 ] && [ "${4:-0}" -gt 1000 ] && [ "${6:-1}" = 0 ] && [ "${8:-1}" = 0 ]
check $? "remote: dvbv5-zap -a 2 -r records the service from the emulated dvr0, continuity intact"
# section filters and reads of demux0 through the daemon: the scan finds what it finds on vidtv
timeout 120 "$in_view" dvbv5-scan -a 2 -o "$out/channels2.conf" "$out/scan.conf" > "$out/scan2.log" 2>&1
[ -s "$out/channels0.conf" ] ||
  timeout 120 "$in_view" dvbv5-scan -a 0 -o "$out/channels0.conf" "$out/scan.conf" > "$out/scan0.log" 2>&1
grep -q '^\[Beethoven\]' "$out/channels2.conf" 2> /dev/null && cmp -s "$out/channels2.conf" "$out/channels0.conf"
check $? "remote: dvbv5-scan -a 2 finds Beethoven, the same channel file as on vidtv's adapter 0"
# the daemon's reader may push data of the filter just replaced or stopped: not handed out
# (libdvbv5 gives up a table at a section of another table_id)
echo "    remote: $("$bin/ffdvbctl" --adapter 2 status --json 2>&1 | grep -o '"stale_frames":[0-9]*')"
python3 "$py" overflow /dev/dvb/adapter2 > "$out/overflow2.txt" 2>&1
echo "    client: $(tr '\n' ' ' < "$out/overflow2.txt")"
grep -q '^lock True' "$out/overflow2.txt" && grep -q '^read1 EOVERFLOW' "$out/overflow2.txt" &&
  grep -q '^read2 [1-9]' "$out/overflow2.txt"
check $? "remote: a dvr0 nobody reads: EOVERFLOW once, then data"
"$bin/ffdvbctl" --adapter 2 status --json > "$out/status-remote.json" 2>&1
grep -q '"present":true' "$out/status-remote.json" && grep -q '"open_files":0' "$out/status-remote.json"
check $? "remote: status: present, no file left open ($(grep -o '"tuner":{[^}]*}' "$out/status-remote.json" | cut -c1-160))"
# the daemon cannot exit while a connection is open: ffdvbd lets go of it once no file is open
# (REMOTE_IDLE_CLOSE_MS after the last close)
connected() { "$bin/ffdvbctl" --adapter 2 status --json 2>&1 | grep -q '"connected":true'; }
i=0; while connected && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
held=$(ss -tnH state established "( dport = :$port )" | wc -l)
! connected && [ "$held" = 0 ]
check $? "remote: ffdvbd lets go of dvbv5-daemon once no file is open ($held connections left)"
# the whole process, not only its main thread (which alone turns zombie on pthread_exit)
ended() { ! alive "$1" && [ "$(ls "/proc/$1/task" 2> /dev/null | wc -l)" -le 1 ]; }
kill "$ddpid"
i=0; while ! ended "$ddpid" && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
ended "$ddpid"
check $? "remote: dvbv5-daemon exits on SIGTERM"
if ! ended "$ddpid"; then # who holds it: a connection of ours, or one of its own threads
  echo "    tcp to :$port: $(ss -tnH state established "( sport = :$port or dport = :$port )" | wc -l)"
  "$bin/ffdvbctl" --adapter 2 status --json 2>&1 | grep -o '"connected":[a-z]*,"open_files":[0-9]*'
  for t in /proc/"$ddpid"/task/*; do
    echo "    dvbv5-daemon thread ${t##*/}: $(awk '{print $3}' "$t/stat") $(cat "$t/wchan")" \
      "$(tr '\n' ' ' < "$t/stack" 2> /dev/null | cut -c1-200)"
  done
  tail -n 5 "$out/dvbv5-daemon.log" | sed 's/^/    dvbv5-daemon: /'
fi
ended "$ddpid" || kill -9 "$ddpid"
wait "$ddpid" 2> /dev/null
[ "$(python3 "$py" open /dev/dvb/adapter2)" = ENODEV ]
check $? "remote: dvbv5-daemon stopped: open(frontend0) gives ENODEV"
alive "$rpid" && ctl_ok 2
check $? "remote: ffdvbd alive and answering without dvbv5-daemon"
start_dvbv5_daemon; pids="$pids $ddpid"
got2=$(python3 "$py" info /dev/dvb/adapter2 2>&1)
[ "${got2%% *}" = "${got0%% *}" ]
check $? "remote: dvbv5-daemon back: the next open connects again ($got2)"
stop_daemon "$rpid"
kill "$ddpid" 2> /dev/null
pids=
fi

# ---------------------------------------------------------------- file:
if { [ "$parts" = all ] && [ -n "$streams" ]; } || [ "$parts" = file ]; then
A=3
ts=$streams/sd_mpeg2_mp2.ts
conf=$out/file-channels.conf
for f in "$ts" "$ts.framemd5" "$ts.y8"; do
  [ -s "$f" ] || { fail "file: setup: $f is missing (tuner-host.sh makes it)"; finish; }
done
dvb_class_ready
check $? "file: setup: /sys/class/dvb is there (dvb-core only; no DVB driver)"

# ts_follow REC FILE: for each PID of REC, whether its packets are FILE's packets of that PID
# in FILE's order, cyclically (the player loops; it sets the discontinuity_indicator of the
# first PCR packet after the loop point, so that bit is not compared). Prints
# "PIDS p,.. PACKETS n FOLLOW n KNOWN n TEI n SYNC_ERRORS n": FOLLOW packets in the file's
# order from where the recording starts, KNOWN packets found anywhere in the file
ts_follow() {
  python3 - "$1" "$2" <<'PY'
import sys
def packets(path):
    data, out, sync = open(path, "rb").read(), [], 0
    for i in range(0, len(data) - 187, 188):
        p = bytearray(data[i:i + 188])
        if p[0] != 0x47: sync += 1; continue
        if p[3] & 0x20 and p[4] > 0: p[5] &= 0x7f      # discontinuity_indicator
        out.append(bytes(p))
    return out, sync
def pid(p): return ((p[1] & 0x1f) << 8) | p[2]
rec, sync = packets(sys.argv[1])
ref = {}
for p in packets(sys.argv[2])[0]: ref.setdefault(pid(p), []).append(p)
pids, follow, known, tei = sorted({pid(p) for p in rec if pid(p) != 0x1fff}), 0, 0, 0
for q in pids:
    got, want = [p for p in rec if pid(p) == q], ref.get(q, [])
    tei += sum(1 for p in got if p[1] & 0x80)
    kset = set(want)
    known += sum(1 for p in got if p in kset)
    best = 0
    for s in [i for i, p in enumerate(want) if got and p == got[0]][:8]:
        k = 0
        while k < len(got) and got[k] == want[(s + k) % len(want)]: k += 1
        best = max(best, k)
    follow += best
print("PIDS", ",".join("0x%x" % q for q in pids) or "-", "PACKETS", len(rec), "FOLLOW", follow,
      "KNOWN", known, "TEI", tei, "SYNC_ERRORS", sync)
PY
}
# jget FILE KEY...: a value of the JSON object in FILE (true/false as such), "-" if absent
jget() {
  python3 - "$@" <<'PY'
import json, sys
try:
    v = json.load(open(sys.argv[1]))
    for k in sys.argv[2:]: v = v[k]
    print(str(v).lower() if isinstance(v, bool) else v)
except Exception:
    print("-")
PY
}
shown_of() { sed -n 's/.*"video_shown":\([0-9]*\).*/\1/p' "$1"; }
fstatus() { "$bin/ffdvbctl" --adapter $A status --json > "$1" 2>&1; }

# a corrupt copy: bytes without a sync between packets, TEI set on some packets, the last
# packet truncated (the channel file names it relative to its own folder)
python3 - "$ts" "$out/corrupt.ts" > "$out/corrupt.txt" <<'PY'
import sys
data = open(sys.argv[1], "rb").read()
out, tei, junk = bytearray(), 0, 0
for k, i in enumerate(range(0, len(data) - 187, 188)):
    p = bytearray(data[i:i + 188])
    if k % 97 == 50: out += bytes(range(1, 62)); junk += 61   # no 0x47 in there
    if k % 41 == 20: p[1] |= 0x80; tei += 1                   # transport_error_indicator
    out += p
open(sys.argv[2], "wb").write(out[:-100])                     # a truncated last packet
print("TEI", tei, "JUNK", junk)
PY
entry() {  # entry NAME FREQ FILE
  printf '[%s]\n\tSERVICE_ID = 1\n\tVIDEO_PID = 256\n\tAUDIO_PID = 257\n\tFREQUENCY = %s\n\tDELIVERY_SYSTEM = DVBT\n\tBANDWIDTH_HZ = 8000000\n\tFILE = %s\n\n' "$@"
}
{ entry Test 474000000 "$ts"; entry Corrupt 482000000 corrupt.ts; entry Missing 490000000 missing.ts; } > "$conf"
rm -f "$out/missing.ts"

rec=$out/file-record
mkdir -p "$rec"
log=$out/ffdvbd-file.log
# --no-deinterlace: the stream is interlaced-coded, and bwdif's pictures are not ffmpeg's decode
"$bin/ffdvbd" --adapter $A --foreground --output none --no-deinterlace --record "$rec" \
  --tuner "file:$conf" > "$log" 2>&1 &
fpid=$!; pids="$pids $fpid"
wait_ready "$fpid" $A "$log"
check $? "file: ffdvbd --adapter $A --output none --tuner file:CHANNELS ready"
[ -c /dev/dvb/adapter$A/frontend0 ] && [ -c /dev/dvb/adapter$A/demux0 ] && [ -c /dev/dvb/adapter$A/dvr0 ]
check $? "file: frontend0, demux0, dvr0 of adapter $A are there"
make_view $A
"$bin/ffdvbctl" --adapter $A trace > "$out/file-trace.log" 2>&1 &
tpid=$!; pids="$pids $tpid"
sleep 0.5

# dvbv5-zap without -r: decoder filters (DMX_OUT_DECODER, as szap's default)
timeout -s INT 90 "$in_view" dvbv5-zap -a $A -c "$conf" -t 60 Test > "$out/file-zap.log" 2>&1 &
zp=$!
i=0 v1=0
until [ $i -ge 300 ] || ! alive $zp; do
  fstatus "$out/file-st1.json"
  v1=$(shown_of "$out/file-st1.json")
  [ "${v1:-0}" -gt 0 ] && break
  i=$((i + 1)); sleep 0.1
done
sleep 2
"$bin/ffdvbctl" --adapter $A screenshot "$out/file-shot.png"
shotrc=$?
sleep 2
fstatus "$out/file-st2.json"
v2=$(shown_of "$out/file-st2.json")
kill -INT $zp 2> /dev/null; wait $zp
locked "$out/file-zap.log"
check $? "file: dvbv5-zap -a $A (no -r) locks ($(grep -m1 -o 'Lock.*' "$out/file-zap.log" | cut -c1-40))"
[ "$(jget "$out/file-st1.json" tuner locked)" = true ] && [ "$(jget "$out/file-st1.json" tuner channel)" = Test ]
check $? "file: status: tuner locked on Test ($(jget "$out/file-st1.json" tuner))"
grep -q "adapter$A/frontend0#[0-9]* ioctl FE_SET_PROPERTY(.*) = 0\$" "$out/file-trace.log"
check $? "file: trace: dvbv5-zap's FE_SET_PROPERTY on frontend0 = 0"
nf=$(grep "adapter$A/demux0#[0-9]* ioctl DMX_SET_PES_FILTER(.*) = 0\$" "$out/file-trace.log" |
  sed 's/.*demux0#\([0-9]*\).*/\1/' | sort -u | wc -l)
[ "$nf" = 2 ]
check $? "file: trace: DMX_SET_PES_FILTER = 0 on 2 demux0 files ($nf)"
[ "$(jget "$out/file-st1.json" live video pid)" = 256 ] && [ "$(jget "$out/file-st1.json" live audio pid)" = 257 ]
check $? "file: the filters feed the decoder (DMX_OUT_DECODER): status live video PID $(jget "$out/file-st1.json" live video pid), audio $(jget "$out/file-st1.json" live audio pid)"
[ "${v1:-0}" -gt 0 ] && [ "${v2:-0}" -gt "${v1:-0}" ]
check $? "file: video_shown grows while zapped (${v1:-?} -> ${v2:-?})"
"$bin/ffdvbctl" --adapter $A record > /dev/null
check $? "file: ffdvbctl record"
grep '^picture' "$rec/pictures.log" 2> /dev/null | awk '$6 == 0 { print $7 }' > "$out/file-ours.md5"
# ffmpeg's decode in the VM, not the host's list: libavcodec picks its IDCT by the CPU's
# features, and the VM's (TCG) CPU decodes this interlaced stream to other bytes than the host
ffmpeg -nostdin -v error -threads 1 -i "$ts" -map 0:v -f framemd5 - 2> /dev/null |
  grep -v '^#' | awk -F', *' '{ print $6 }' > "$out/file-ffmpeg.md5"
hostsame=$(grep -v '^#' "$ts.framemd5" | awk -F', *' '{ print $6 }' | grep -cxFf - "$out/file-ffmpeg.md5")
echo "    ffmpeg's decode in the VM: $(wc -l < "$out/file-ffmpeg.md5") pictures, $hostsame equal to the host's"
# every picture is one of the file's, except a few decoded right after a loss the daemon
# counted: when a TCG guest falls behind real time, the video ring fills and the live feed's
# demux buffer overflows (live.video.overflows), and the pictures whose data or references
# fell in the gap, up to the next I-picture, differ (at most a GOP, 12, per overflow)
lov=$(jget "$out/file-st2.json" live video overflows)
case $lov in '' | *[!0-9]*) lov=0 ;; esac
set -- $(awk 'NR == FNR { want[$1] = 1; next } { n++; if (!($1 in want)) bad++ }
     END { print n + 0, bad + 0 }' "$out/file-ffmpeg.md5" "$out/file-ours.md5")
[ "$1" -ge 15 ] && [ "$2" -le $((12 * lov)) ]   # TCG decodes 720x576 at a few pictures a second
check $? "file: pictures: $1 presented, $2 not equal to one of ffmpeg's decode of the file ($(wc -l < "$out/file-ffmpeg.md5") pictures; live feed overflows: $lov)"
dims=$(od -An -tu1 -j16 -N8 "$out/file-shot.png" 2> /dev/null | awk '{ print $3 * 256 + $4 "x" $7 * 256 + $8 }')
[ "$shotrc" = 0 ] && [ "$dims" = 720x576 ]
check $? "file: ffdvbctl screenshot while zapped: a 720x576 PNG (got ${dims:-none})"
# the screenshot's luma at 90x72 against each picture's (made the same way from ffmpeg's
# decode on the host): the best correlation (colour conversions differ, so not bytes)
ffmpeg -nostdin -v error -y -i "$out/file-shot.png" -vf scale=90:72 -pix_fmt gray -f rawvideo "$out/file-shot.y8"
sm=$(python3 - "$out/file-shot.y8" "$ts.y8" <<'PY'
import sys
W = 90 * 72
shot, frames = open(sys.argv[1], "rb").read()[:W], open(sys.argv[2], "rb").read()
def norm(x):
    m = sum(x) / W; d = [v - m for v in x]; s = sum(v * v for v in d) ** 0.5 or 1
    return [v / s for v in d]
a, best = norm(shot), (-2, -1)
for k in range(len(frames) // W):
    b = norm(frames[k * W:(k + 1) * W])
    best = max(best, (sum(x * y for x, y in zip(a, b)), k))
print("%.4f %d" % best)
PY
)
set -- $sm
awk -v c="${1:-0}" 'BEGIN { exit !(c >= 0.97) }'
check $? "file: the screenshot is picture ${2:-?} of the file (luma correlation ${1:-?})"

# dvbv5-zap -r: the service's packets from the emulated dvr0, as in the file
timeout 60 "$in_view" dvbv5-zap -a $A -c "$conf" -r -o "$out/file-rec.ts" -t 5 Test > "$out/file-rec.ts.log" 2>&1
rc=$?
locked "$out/file-rec.ts.log"
check $? "file: dvbv5-zap -a $A -r -o locks (exit $rc)"
fi=$(ts_follow "$out/file-rec.ts" "$ts"); echo "    recorded: $fi"
set -- $fi
[ "$2" = 0x100,0x101 ] && [ "$4" -gt 2000 ] && [ "$6" = "$4" ] && [ "${12}" = 0 ]
check $? "file: -r records PIDs $2 from dvr0: $4 packets, $6 of them the file's own in its order (CCs as in the file)"

# a corrupt, truncated file: locks, plays what is good, counts the rest
timeout 60 "$in_view" dvbv5-zap -a $A -c "$conf" -r -o "$out/corrupt-rec.ts" -t 4 Corrupt > "$out/corrupt-rec.ts.log" 2>&1
locked "$out/corrupt-rec.ts.log"
check $? "file: dvbv5-zap on the corrupt file's entry locks"
fstatus "$out/file-st3.json"
ci=$(ts_follow "$out/corrupt-rec.ts" "$ts"); echo "    recorded: $ci ($(cat "$out/corrupt.txt") in the file)"
set -- $ci
[ "$4" -gt 1000 ] && [ "$8" = "$4" ] && [ "${10}" = 0 ] && [ "${12}" = 0 ]
check $? "file: corrupt file: $4 packets recorded, in sync, all the file's good ones, no TEI packet"
sk=$(jget "$out/file-st3.json" tuner packets_skipped); te=$(jget "$out/file-st3.json" tuner tei)
[ "$(jget "$out/file-st3.json" tuner channel)" = Corrupt ] && [ "$sk" -gt "$te" ] 2> /dev/null && [ "$te" -gt 0 ] 2> /dev/null
check $? "file: corrupt file: skipped bytes/packets counted (packets_skipped $sk, tei $te)"
alive "$fpid" && ctl_ok $A
check $? "file: daemon alive and answering after the corrupt file"

# a missing file: no lock
timeout 60 "$in_view" dvbv5-zap -a $A -c "$conf" -t 3 Missing > "$out/missing.log" 2>&1
fstatus "$out/file-st4.json"
! locked "$out/missing.log" && [ "$(jget "$out/file-st4.json" tuner locked)" = false ]
check $? "file: an entry whose file is missing: no lock ($(grep -m1 -i 'lock\|signal' "$out/missing.log" | cut -c1-50))"

# a client that never reads dvr0
python3 "$py" overflow-t /dev/dvb/adapter$A 474000000 0x100 > "$out/file-overflow.txt" 2>&1
echo "    client: $(tr '\n' ' ' < "$out/file-overflow.txt")"
fstatus "$out/file-st5.json"
grep -q '^lock True' "$out/file-overflow.txt" && grep -q '^read1 EOVERFLOW' "$out/file-overflow.txt" &&
  grep -q '^read2 [1-9]' "$out/file-overflow.txt"
check $? "file: a dvr0 nobody reads: EOVERFLOW once, then data"
alive "$fpid" && ctl_ok $A && [ "$(jget "$out/file-st5.json" tuner overflows)" -gt 0 ] 2> /dev/null
check $? "file: daemon alive and answering, overflows counted ($(jget "$out/file-st5.json" tuner overflows))"
kill $tpid 2> /dev/null
stop_daemon "$fpid"
pids=
elif [ "$parts" = all ]; then
  echo "    (file part left out: no STREAMDIR given)"
fi

finish
