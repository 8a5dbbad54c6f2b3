#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Stage 2: PID 1 in the guest after switch_root onto the host's root (prepared by
# initrd-init.sh; fuse and cuse are already loaded, so /dev/cuse exists). Run the command vm.sh
# wrote to $vm_out/.vm/cmd, store its exit status there and power off. vm.sh copies this file
# into the results share for each run, so the guest always runs the current version.
# With vm_init=systemd (VM_INIT=systemd) it hands PID 1 to systemd instead and runs again as
# the service that runs the command.
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

# vm_init=systemd (VM_INIT=systemd in vm.sh): systemd becomes PID 1 and boots a target that
# runs this script again as a service (vm_stage=command) for the command, the status and the
# power-off below; the default path runs the command straight from here.
if [ "${vm_init:-}" = systemd ] && [ "$$" = 1 ]; then
  u=/run/systemd/system
  mkdir -p $u
  cat > $u/vm-command.target <<EOT
[Unit]
Description=vm.sh: the test command after the basic system
Requires=basic.target vm-command.service
After=basic.target vm-command.service
AllowIsolate=yes
EOT
  cat > $u/vm-command.service <<EOT
[Unit]
Description=vm.sh: the test command
After=basic.target
[Service]
Type=exec
Environment=vm_out=$vm_out vm_timeout=$limit vm_stage=command
ExecStart=/bin/sh $ctl/init
StandardInput=null
StandardOutput=tty
StandardError=inherit
# the command is in charge of its own limit; stage 2 ends it after vm_timeout
TimeoutStartSec=infinity
# a command that could not even start: power off at once (vm.sh then says there is no result)
FailureAction=poweroff-force
EOT
  # what a VM without terminals, network or hardware clock cannot use or only waits for;
  # udev-settle: Debian's vdr.service wants it, and it waits for every coldplug event
  for m in getty.target console-setup.service keyboard-setup.service systemd-timesyncd.service \
           systemd-udev-settle.service timers.target systemd-pstore.service systemd-binfmt.service \
           proc-sys-fs-binfmt_misc.automount e2scrub_reap.service; do
    ln -sf /dev/null "$u/$m"
  done
  # tmpfiles empties /tmp at boot: over the overlay that is a whiteout for each of the host's
  # files (minutes under TCG), and the results share may be below it: /tmp is kept as it is
  mkdir -p /etc/tmpfiles.d && echo 'd /tmp 1777 root root -' > /etc/tmpfiles.d/tmp.conf
  # a container host's marker would make systemd take the VM for that container
  rm -f /.dockerenv /run/.containerenv
  exec /lib/systemd/systemd --unit=vm-command.target --show-status=false --log-level=notice
  echo "vm: cannot exec /lib/systemd/systemd"
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
