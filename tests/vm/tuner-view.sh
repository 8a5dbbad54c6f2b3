# Sourced by tests/vm/tuner.sh (POSIX sh, inside the VM): lets unmodified libdvbv5 tools
# (dvbv5-scan, dvbv5-zap) find ffdvbd's emulated adapters. libdvbv5 finds devices through udev,
# which lists only /sys/class/dvb, and CUSE nodes live in class cuse: the tools run in a mount
# namespace where a copy of /sys/class/dvb with entries for the emulated nodes is bind-mounted
# over it (the daemon itself sees the real sysfs). Needs $out (a folder for the script) and
# sets $view and $in_view.
view=/run/ffdvb-test-sys-class-dvb

# dvb_core makes /sys/class/dvb; without a DVB driver loaded (the file tuner needs none) it may
# be missing, and a bind mount needs it
dvb_class_ready() {
  [ -d /sys/class/dvb ] || modprobe dvb-core 2> /dev/null
  [ -d /sys/class/dvb ]
}

# make_view ADAPTER...: a copy of /sys/class/dvb (links to the real entries) plus entries for
# the emulated adapters' frontend0, demux0 and dvr0, with what libdvbv5 reads through udev:
# uevent (DEVNAME, MAJOR, MINOR, DVB_DEVICE_TYPE, ...) and a parent device with a subsystem
# (libdvbv5 drops a device whose parent has none; the folder itself is that parent).
make_view() {
  rm -rf "$view"; mkdir -p "$view"
  : > "$view/uevent"
  ln -s /sys/bus/platform "$view/subsystem"
  for e in /sys/class/dvb/*; do [ -e "$e" ] && ln -s "$(readlink -f "$e")" "$view/${e##*/}"; done
  for a in "$@"; do
    for n in frontend demux dvr; do
      f=/dev/dvb/adapter$a/${n}0
      [ -c "$f" ] || continue
      d=$view/dvb$a.${n}0
      mkdir -p "$d"
      printf 'MAJOR=%d\nMINOR=%d\nDEVNAME=dvb/adapter%s/%s0\nDVB_ADAPTER_NUM=%s\nDVB_DEVICE_TYPE=%s\nDVB_DEVICE_NUM=0\n' \
        "0x$(stat -c %t "$f")" "0x$(stat -c %T "$f")" "$a" "$n" "$a" "$n" > "$d/uevent"
      ln -s /sys/class/dvb "$d/subsystem"
    done
  done
}

# $in_view COMMAND...: runs COMMAND where /sys/class/dvb is the view (a script, so that
# timeout can run it). SYSTEMD_DEVICE_VERIFY_SYSFS=0: libudev takes entries that are not on
# sysfs (ours are on tmpfs).
in_view=$out/in-view.sh
printf '#!/bin/sh\nexport SYSTEMD_DEVICE_VERIFY_SYSFS=0\nexec unshare -m sh -c '"'"'mount --bind "$0" /sys/class/dvb && exec "$@"'"'"' %s "$@"\n' \
  "$view" > "$in_view"
chmod +x "$in_view"
