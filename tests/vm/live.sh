#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# usage: live.sh BINDIR VIDTVDIR   (inside the VM, as root: live-host.sh)
# Live decoding from the demux, the full card's path: vidtv (VIDTVDIR, built by
# scripts/vm/build-vidtv.sh) is the real budget card, adapter 0; ffdvbd serves adapter 1 with
# --tuner dvb:0. dvb-apps' tzap, unmodified, tunes the emulated frontend0 with the legacy API
# and sets its PES filters with DMX_OUT_DECODER (no -r): the service's audio, SMPTE 302M LPCM
# on PID 0x111, must come out of our decoder.
#   - tzap reports FE_HAS_LOCK on the emulated adapter
#   - the trace shows tzap's DMX_SET_PES_FILTER calls answered 0
#   - status: live audio PID 273, the decoder's audio codec s302m, sound samples growing
#   - tzap gone (its filters closed): the live feed ends
# Prints PASS/FAIL lines and "N passed, M failed"; exit 0 iff nothing failed.
set -u
bin=${1:?usage: live.sh BINDIR VIDTVDIR}
vidtv=${2:?usage: live.sh BINDIR VIDTVDIR}
out=${VM_OUT:-$(mktemp -d)}
script_name=live.sh
. "$(dirname "$0")/lib.sh"
ctl() { "$bin/ffdvbctl" --adapter 1 "$@"; }
json() {   # json KEY.PATH: one value of the status
  ctl status --json | python3 -c "import json,sys
v=json.load(sys.stdin)
for k in sys.argv[1].split('.'): v=v[k] if v is not None else None
print(v)" "$1"
}

sh "$vidtv/load.sh" > "$out/vidtv.log" 2>&1
[ -c /dev/dvb/adapter0/frontend0 ]
check $? "setup: vidtv's adapter 0 exists"
modprobe cuse
"$bin/ffdvbd" --foreground --adapter 1 --tuner dvb:0 --output none > "$out/ffdvbd.log" 2>&1 &
pid=$!
i=0
until ctl status > /dev/null 2>&1 || [ $i -gt 300 ]; do i=$((i + 1)); sleep 0.1; done
ctl status > /dev/null 2>&1
check $? "daemon: adapter 1 answers"
ctl trace > "$out/trace.log" 2>&1 &
tracer=$!

# vidtv's DVB-T service (vm-testing.md): 474 MHz, video PID 0 (none), audio 0x111, service 0x880
printf 'Beethoven:474000000:INVERSION_AUTO:BANDWIDTH_8_MHZ:FEC_AUTO:FEC_AUTO:QAM_AUTO:TRANSMISSION_MODE_AUTO:GUARD_INTERVAL_AUTO:HIERARCHY_AUTO:0:273:2176\n' > "$out/channels.conf"
stdbuf -oL tzap -a 1 -c "$out/channels.conf" Beethoven > "$out/tzap.log" 2>&1 &
tzap_pid=$!
sleep 6
grep -q "FE_HAS_LOCK" "$out/tzap.log"
check $? "tzap: FE_HAS_LOCK on the emulated frontend ($(grep -c FE_HAS_LOCK "$out/tzap.log") status lines)"
alive "$tzap_pid"
check $? "tzap: still running (its decoder filters set)"

pid_live=$(json live.audio.pid)
[ "$pid_live" = 273 ]
check $? "status: live audio PID 273 (got $pid_live)"
codec=$(json decoder.audio_codec)
[ "$codec" = s302m ]
check $? "decoder: audio codec s302m (got $codec)"
s1=$(json decoder.audio_samples)
sleep 3
s2=$(json decoder.audio_samples)
[ "${s2:-0}" -gt $(( ${s1:-0} + 48000 )) ]
check $? "decoder: sound plays live (samples $s1 -> $s2 in 3 s)"
errors=$(json decoder.decode_errors)
[ "$errors" = 0 ]
check $? "decoder: no decode errors (got $errors)"

kill "$tzap_pid" 2>/dev/null
wait "$tzap_pid" 2>/dev/null
sleep 1
pid_live=$(json live.audio.pid)
[ "$pid_live" = -1 ]
check $? "tzap gone: the live feed ended (pid $pid_live)"
kill "$tracer" 2>/dev/null
wait "$tracer" 2>/dev/null
grep -q "DMX_SET_PES_FILTER.* = 0" "$out/trace.log"
check $? "trace: tzap's DMX_SET_PES_FILTER answered 0 ($(grep -c DMX_SET_PES_FILTER "$out/trace.log") calls)"
stop_daemon "$pid"
finish
