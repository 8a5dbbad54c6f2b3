# SPDX-License-Identifier: GPL-2.0-or-later
# Sourced by tests/vm/tuner.sh (POSIX sh, inside the VM): lets unmodified libdvbv5 tools
# (dvbv5-scan, dvbv5-zap) find ffdvbd's emulated adapters. libdvbv5 finds devices through udev,
# which lists only /sys/class/dvb, and CUSE nodes live in class cuse: the tools run through
# scripts/ffdvb-run, in a mount namespace where the daemon's own view (/run/ffdvb/sys-class-dvb:
# links to the real entries plus entries for its nodes, with what libudev needs) is
# bind-mounted over /sys/class/dvb. The test thus uses what users get. Needs $out; sets $view
# and $in_view.
view=/run/ffdvb/sys-class-dvb

# dvb_core makes /sys/class/dvb; without a DVB driver loaded (the file tuner needs none) it may
# be missing, and a bind mount needs it
dvb_class_ready() {
  [ -d /sys/class/dvb ] || modprobe dvb-core 2> /dev/null
  [ -d /sys/class/dvb ]
}

# make_view ADAPTER...: waits (up to 5 s) until the daemon has written the view's entries of
# the adapters' frontend0, demux0 and dvr0; 1 if one is missing
make_view() {
  _i=0
  for a in "$@"; do
    for n in frontend demux dvr; do
      until [ -e "$view/dvb$a.${n}0/uevent" ] || [ $_i -ge 50 ]; do _i=$((_i + 1)); sleep 0.1; done
      [ -e "$view/dvb$a.${n}0/uevent" ] || { echo "make_view: no $view/dvb$a.${n}0" >&2; return 1; }
    done
  done
}

in_view=$(cd "$(dirname "$0")/../.." && pwd)/scripts/ffdvb-run
