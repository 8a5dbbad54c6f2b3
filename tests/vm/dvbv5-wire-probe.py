#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# usage: dvbv5-wire-probe.py HOST PORT [ADAPTER]
#
# Talks dvbv5-daemon's remote protocol directly (no libdvbv5 client) to find out what the
# daemon itself answers: daemon_get_version, dev_open of the frontend, fe_get_parms (decoded),
# fe_set_parms DVB-T 474 MHz (vidtv's valid frequency), fe_get_stats until FE_HAS_LOCK, then
# dev_open of the demux, dev_dmx_set_pesfilter and 2 s of pushed data_read frames.
# Exit 0 only if the frontend name is non-empty, the lock came and TS bytes (0x47) arrived.
# Found with it: 1.22.1 answers fe_get_parms with -EINVAL and no fields while the frontend was
# never tuned (libdvbv5's __dvb_fe_get_parms takes DTV_FREQUENCY 0 for an error); the probe then
# tunes blind with libdvbv5's DVB-T property list, after which the answer is complete.
# Run in the VM (scripts/vm.sh brings lo up): sh build/vidtv/load.sh;
#   dvbv5-daemon -p 5555 & sleep 1; python3 tests/vm/dvbv5-wire-probe.py 127.0.0.1 5555
#
# Wire: frame = u32 BE length + payload; %i = int32 BE; %s = int32 BE length + bytes;
# %lu = uint64 BE. Request: seq, cmd, args. Reply: seq, cmd, retval, fields. Unsolicited
# frames have seq 0 (log, dev_change, data_read). Requests are padded with zero bytes so no
# byte of their length is >= 0x80: dvbv5-daemon 1.22.1 sign-extends them.
import socket, struct, sys, time

DTV_FREQUENCY, DTV_MODULATION, DTV_BANDWIDTH_HZ, DTV_INVERSION = 3, 4, 5, 6
DTV_SYMBOL_RATE, DTV_INNER_FEC, DTV_DELIVERY_SYSTEM = 8, 9, 17
SYS_DVBC_ANNEX_A, SYS_DVBT = 1, 3
FE_HAS_LOCK = 0x10
DVBT_PROPS = [3, 4, 5, 6, 36, 37, 38, 39, 40]   # libdvbv5's dvb_v5_delivery_system[SYS_DVBT]
MAX_DELIVERY_SYSTEMS, MAX_DTV_STATS = 20, 4
O_RDWR = 2
DMX_OUT_TSDEMUX_TAP, DMX_PES_OTHER = 3, 20
PROP_NAMES = {1: "TUNE", 2: "CLEAR", 3: "FREQUENCY", 4: "MODULATION", 5: "BANDWIDTH_HZ",
              6: "INVERSION", 8: "SYMBOL_RATE", 9: "INNER_FEC", 10: "VOLTAGE", 11: "TONE",
              12: "PILOT", 13: "ROLLOFF", 14: "DISEQC_SLAVE_REPLY", 17: "DELIVERY_SYSTEM",
              35: "API_VERSION", 36: "CODE_RATE_HP", 37: "CODE_RATE_LP",
              38: "GUARD_INTERVAL", 39: "TRANSMISSION_MODE", 40: "HIERARCHY",
              41: "ISDBT_LAYER_ENABLED", 42: "STREAM_ID", 44: "DVBT2_PLP_ID_LEGACY",
              45: "ENUM_DELSYS", 70: "LNA", 71: "STAT_SIGNAL_STRENGTH", 72: "STAT_CNR"}


def pi(v):
    return struct.pack(">i", v)


def ps(b):
    if isinstance(b, str):
        b = b.encode()
    return pi(len(b)) + b


class Reader:
    def __init__(self, data):
        self.d, self.o = data, 0

    def left(self):
        return len(self.d) - self.o

    def i(self):
        if self.left() < 4:
            raise ValueError("short int32 at %d of %d" % (self.o, len(self.d)))
        v = struct.unpack_from(">i", self.d, self.o)[0]
        self.o += 4
        return v

    def lu(self):
        if self.left() < 8:
            raise ValueError("short uint64 at %d of %d" % (self.o, len(self.d)))
        v = struct.unpack_from(">Q", self.d, self.o)[0]
        self.o += 8
        return v

    def s(self):
        n = self.i()
        if n < 0 or n > self.left():
            raise ValueError("bad string length %d at %d" % (n, self.o))
        v = self.d[self.o:self.o + n]
        self.o += n
        return v.decode(errors="replace")

    def rest(self):
        v = self.d[self.o:]
        self.o = len(self.d)
        return v


def pad_len(n):
    # dvbv5-daemon decodes each length byte as a signed char: keep every byte < 0x80
    while n & 0x80 or (n >> 8) & 0x80 or (n >> 16) & 0x80 or (n >> 24) & 0x80:
        n = (n | 0xff) + 1
    return n


class Conn:
    def __init__(self, host, port):
        self.sock = socket.create_connection((host, port), timeout=5)
        self.seq = 0
        self.buf = b""
        self.data = {}      # uid -> [frames, bytes, first byte]
        self.logs = []

    def recv_exact(self, n, deadline):
        while len(self.buf) < n:
            t = deadline - time.time()
            if t <= 0:
                raise TimeoutError
            self.sock.settimeout(t)
            try:
                chunk = self.sock.recv(65536)
            except socket.timeout:
                raise TimeoutError
            if not chunk:
                raise EOFError("daemon closed the connection")
            self.buf += chunk
        v, self.buf = self.buf[:n], self.buf[n:]
        return v

    def frame(self, deadline):
        n = struct.unpack(">I", self.recv_exact(4, deadline))[0]
        if n > 16384 + 64:
            raise ValueError("frame length %d too big" % n)
        return self.recv_exact(n, deadline)

    def unsolicited(self, r, cmd):
        ret = r.i()
        if cmd == "data_read":
            uid = r.i()
            d = r.rest()
            st = self.data.setdefault(uid, [0, 0, None, 0])
            st[0] += 1
            if ret < 0:
                st[3] += 1
            st[1] += len(d)
            if st[2] is None and d:
                st[2] = d[0]
        elif cmd == "log":
            txt = r.s()
            self.logs.append((ret, txt))
            print("  [daemon log %d] %s" % (ret, txt.rstrip()))
        else:
            print("  [unsolicited %s ret=%d %r]" % (cmd, ret, r.rest()[:64]))

    def pump(self, secs):
        end = time.time() + secs
        try:
            while True:
                f = self.frame(end)
                r = Reader(f)
                seq, cmd = r.i(), r.s()
                if seq == 0:
                    self.unsolicited(r, cmd)
                else:
                    print("  [stray reply seq=%d %s]" % (seq, cmd))
        except TimeoutError:
            pass

    def call(self, cmd, args=b"", timeout=5):
        self.seq += 1
        seq = self.seq
        payload = pi(seq) + ps(cmd) + args
        n = pad_len(len(payload))
        payload += b"\0" * (n - len(payload))
        assert n < 16364
        self.sock.sendall(struct.pack(">I", n) + payload)
        end = time.time() + timeout
        while True:
            f = self.frame(end)
            r = Reader(f)
            rseq, rcmd = r.i(), r.s()
            if rseq == 0:
                self.unsolicited(r, rcmd)
                continue
            if rseq != seq or rcmd != cmd:
                print("  [reply for seq=%d %s while waiting for %d %s]" % (rseq, rcmd, seq, cmd))
                continue
            return r.i(), r, len(f)


def get_parms(c):
    ret, r, flen = c.call("fe_get_parms")
    p = {"ret": ret, "frame_len": flen}
    if r.left() == 0:
        return p
    p["name"] = r.s()
    p["info"] = dict(zip(("freq_min", "freq_max", "stepsize", "tolerance", "sr_min",
                          "sr_max", "sr_tolerance"), [r.i() & 0xffffffff for _ in range(7)]))
    for k in ("version", "has_v5_stats", "current_sys", "num_systems", "legacy_fe",
              "abort", "lna"):
        p[k] = r.i()
    p["lnb"] = r.s()
    for k in ("sat_number", "freq_bpf", "diseqc_wait", "verbose"):
        p[k] = r.i()
    p["default_charset"], p["output_charset"] = r.s(), r.s()
    p["systems"] = [r.i() for _ in range(MAX_DELIVERY_SYSTEMS)]
    for k in ("n_props", "country", "high_band", "freq_offset"):
        p[k] = r.i()
    p["props"] = [(r.i(), r.i()) for _ in range(max(p["n_props"], 0))]
    p["trailing"] = r.left()
    return p


def show_parms(p):
    print("fe_get_parms: ret=%d frame=%d bytes" % (p["ret"], p["frame_len"]))
    if "name" not in p:
        print("  (no fields)")
        return
    print("  name=%r info=%s" % (p["name"], p["info"]))
    print("  version=0x%x has_v5_stats=%d current_sys=%d num_systems=%d legacy_fe=%d"
          % (p["version"], p["has_v5_stats"], p["current_sys"], p["num_systems"],
             p["legacy_fe"]))
    print("  abort=%d lna=%d lnb=%r sat_number=%d freq_bpf=%d diseqc_wait=%d verbose=%d "
          "charsets=%r/%r" % (p["abort"], p["lna"], p["lnb"], p["sat_number"], p["freq_bpf"],
                              p["diseqc_wait"], p["verbose"], p["default_charset"],
                              p["output_charset"]))
    print("  systems=%s" % p["systems"][:max(p["num_systems"], 0)] if p["num_systems"] > 0
          else "  systems=[] (all 20: %s)" % p["systems"])
    print("  n_props=%d country=%d high_band=%d freq_offset=%d trailing=%d"
          % (p["n_props"], p["country"], p["high_band"], p["freq_offset"], p["trailing"]))
    print("  props=" + ", ".join("%s=%d" % (PROP_NAMES.get(c, str(c)), v) for c, v in p["props"]))


def set_parms(c, p, changes):
    props = [(cmd, changes.get(cmd, v)) for cmd, v in p["props"]]
    args = (pi(p["abort"]) + pi(p["lna"]) + ps(p["lnb"]) + pi(p["sat_number"]) +
            pi(p["freq_bpf"]) + pi(p["diseqc_wait"]) + pi(p["verbose"]) +
            ps(p["default_charset"]) + ps(p["output_charset"]) + pi(p["country"]) +
            b"".join(pi(cmd) + pi(v) for cmd, v in props))
    ret, r, flen = c.call("fe_set_parms", args)
    missing = [PROP_NAMES.get(k, k) for k in changes if k not in dict(p["props"])]
    print("fe_set_parms %s: ret=%d (request %d bytes before padding%s)"
          % (", ".join("%s=%d" % (PROP_NAMES.get(k, k), v) for k, v in changes.items()),
             ret, 8 + len("fe_set_parms") + len(args),
             "; not in the daemon's props: %s" % missing if missing else ""))
    return ret


def get_stats(c):
    ret, r, flen = c.call("fe_get_stats")
    if r.left() < 4:
        return ret, None, []
    status = r.i()
    nprops = (r.left() - MAX_DTV_STATS * (3 * 4 + 12 * 8)) // 8
    props = [(r.i(), r.i()) for _ in range(max(nprops, 0))]
    return ret, status, props


def wait_lock(c, secs):
    end = time.time() + secs
    status = None
    while time.time() < end:
        ret, status, props = get_stats(c)
        print("fe_get_stats: ret=%d status=0x%s (%d stats props; DTV_STATUS=%s)"
              % (ret, "%02x" % status if status is not None else "--", len(props),
                 dict(props).get(512, "-")))
        if status is not None and status & FE_HAS_LOCK:
            return True
        time.sleep(0.3)
    return False


def main():
    host, port = sys.argv[1], int(sys.argv[2])
    adapter = int(sys.argv[3]) if len(sys.argv) > 3 else 0
    c = Conn(host, port)
    ret, r, _ = c.call("daemon_get_version")
    print("daemon_get_version: ret=%d %r" % (ret, r.s() if r.left() else ""))

    fe_name = "dvb%d.frontend0" % adapter
    uid, r, _ = c.call("dev_open", ps(fe_name) + pi(O_RDWR))
    print("dev_open %s O_RDWR: ret(uid)=%d" % (fe_name, uid))
    if uid <= 0:
        return 1

    p = get_parms(c)
    show_parms(p)
    name_first = p.get("name")
    if "props" not in p:
        # libdvbv5 1.22.1's __dvb_fe_get_parms fails with -EINVAL while the frontend's
        # DTV_FREQUENCY is 0 (never tuned: dvb_sat_real_freq gives 0, taken as an error),
        # after it has rebuilt the daemon's prop list: the DVB-T list + DTV_DELIVERY_SYSTEM.
        # Tune blind with that list and libdvbv5's defaults, then ask again.
        print("fe_get_parms gave no fields: blind fe_set_parms with libdvbv5's DVB-T list")
        blind = {"abort": 0, "lna": -1, "lnb": "", "sat_number": -1, "freq_bpf": 0,
                 "diseqc_wait": 0, "verbose": 0, "default_charset": "iso-8859-1",
                 "output_charset": "utf-8", "country": 0, "current_sys": SYS_DVBT,
                 "props": [(cmd, 0) for cmd in DVBT_PROPS] + [(DTV_DELIVERY_SYSTEM, SYS_DVBT)]}
        # DVB-T defaults as dvbv5-zap sends them: AUTO everywhere
        auto = {DTV_MODULATION: 6, DTV_INVERSION: 2, 36: 9, 37: 9, 38: 4, 39: 2, 40: 4}
        auto.update({DTV_FREQUENCY: 474000000, DTV_BANDWIDTH_HZ: 8000000})
        set_parms(c, blind, auto)
        print("blind tune lock: %s" % wait_lock(c, 3))
        p = get_parms(c)
        show_parms(p)
        if "props" not in p:
            return 1
    name_ok = bool(p.get("name"))

    # DVB-T first (vidtv's DVB-T list has 474 MHz), DVB-C as in tests/vm/tuner.sh otherwise
    locked = False
    for sys_, changes in ((SYS_DVBT, {DTV_FREQUENCY: 474000000, DTV_BANDWIDTH_HZ: 8000000}),
                          (SYS_DVBC_ANNEX_A, {DTV_FREQUENCY: 474000000, DTV_MODULATION: 6,
                                              DTV_SYMBOL_RATE: 6940000, DTV_INNER_FEC: 9})):
        if p["current_sys"] != sys_:
            ret, r, _ = c.call("dev_set_sys", pi(sys_))
            print("dev_set_sys %d: ret=%d" % (sys_, ret))
            p = get_parms(c)
            show_parms(p)
        changes[DTV_DELIVERY_SYSTEM] = sys_
        changes = {k: v for k, v in changes.items() if k in dict(p["props"]) or k == DTV_FREQUENCY}
        set_parms(c, p, changes)
        locked = wait_lock(c, 3)
        print("lock (sys %d): %s" % (sys_, locked))
        if locked:
            break
    p2 = get_parms(c)
    print("after tuning:")
    show_parms(p2)

    dmx_name = "dvb%d.demux0" % adapter
    duid, r, _ = c.call("dev_open", ps(dmx_name) + pi(O_RDWR))
    print("dev_open %s O_RDWR: ret(uid)=%d" % (dmx_name, duid))
    total = 0
    first = None
    if duid > 0:
        for pid in (0x2000, 0):
            ret, r, _ = c.call("dev_dmx_set_pesfilter",
                               pi(duid) + pi(pid) + pi(DMX_PES_OTHER) + pi(DMX_OUT_TSDEMUX_TAP) +
                               pi(188 * 1024))
            print("dev_dmx_set_pesfilter uid=%d pid=0x%x TSDEMUX_TAP: ret=%d" % (duid, pid, ret))
            if ret >= 0:
                break
        t0 = time.time()
        c.pump(2.0)
        st = c.data.get(duid, [0, 0, None, 0])
        total, first = st[1], st[2]
        print("data_read in %.1f s: uid %d: %d frames, %d bytes, %d error frames, first byte %s"
              % (time.time() - t0, duid, st[0], st[1], st[3],
                 "0x%02x" % first if first is not None else "-"))
        for uid_, s in c.data.items():
            if uid_ != duid:
                print("  data_read for other uid %d: %s" % (uid_, s))
        ret, r, _ = c.call("dev_dmx_stop", pi(duid))
        print("dev_dmx_stop: ret=%d" % ret)
        ret, r, _ = c.call("dev_close", pi(duid))
        print("dev_close demux: ret=%d" % ret)
    ret, r, _ = c.call("dev_close", pi(uid))
    print("dev_close frontend: ret=%d" % ret)
    ok = name_ok and locked and total > 0 and first == 0x47
    print("VERDICT: name %s, lock %s, TS bytes %d (first %s) => %s"
          % ("ok" if name_ok else "EMPTY", locked, total,
             "0x%02x" % first if first is not None else "-", "PASS" if ok else "FAIL"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
