#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Stage 2: PID 1 in the guest after switch_root onto the host's root (prepared by
# initrd-init.sh; fuse and cuse are already loaded, so /dev/cuse exists). Run the command vm.sh
# wrote to $vm_out/.vm/cmd, store its exit status there and power off. vm.sh copies this file
# into the results share for each run, so the guest always runs the current version.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root TERM=dumb LANG=C.UTF-8
: "${vm_out:?set by vm.sh on the kernel command line}"
ctl=$vm_out/.vm
limit=${vm_timeout:-300}

# Loopback for every command: SVDRP, dvbv5-daemon and the tests' own servers talk over
# 127.0.0.1, and the guest's only interfaces start down. busybox (package busybox-static, which
# the initramfs needs anyway) rather than iproute2's ip, which a minimal Debian lacks.
if ! /bin/busybox ip link set lo up 2>/dev/null && ! /bin/busybox ifconfig lo 127.0.0.1 up; then
  echo "vm: cannot bring up the loopback interface: tests that use 127.0.0.1 will fail"
fi

# timeout(1) puts the command in its own process group and ends all of it
timeout -k 10 "$limit" /bin/sh "$ctl/cmd" < /dev/null
rc=$?
[ "$rc" = 124 ] && echo "vm: the command timed out after $limit s"
if [ "$rc" != 0 ]; then   # the kernel's messages since the boot finished
  msgs=$(dmesg | awk -v t="$(cat /run/.vm-booted 2>/dev/null || echo 0)" '
    /^\[/ { s = $0; sub(/^\[ */, "", s); sub(/\].*/, "", s); keep = s + 0 > t + 0 } keep' | tail -n 30)
  [ -n "$msgs" ] && printf 'vm: --- kernel messages\n%s\n' "$msgs"
fi
echo "$rc" > "$ctl/rc"        # the share has no cache: this reaches the host at once
echo o > /proc/sysrq-trigger  # power off; qemu exits
while :; do :; done           # no exec from here: the 9p root goes away during power-off
