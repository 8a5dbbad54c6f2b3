#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Stage 1: PID 1 in the initramfs, busybox only. Debian's kernel has 9p, virtio-pci, overlayfs
# and CUSE as modules: load them, mount the host's / (read-only 9p) under a tmpfs overlay, mount
# the results share at the same path as on the host, prepare /dev, /proc, /sys and /run, and hand
# over to stage 2 (guest-init.sh, which vm.sh put into the results share). As much as possible
# happens here: busybox from RAM starts much faster than the host's binaries over 9p under TCG.
# vm_* variables come from unrecognised name=value words of the kernel command line.
export PATH=/bin
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev     # CONFIG_DEVTMPFS_MOUNT is off in Debian's kernel
stty -onlcr < /dev/console          # plain \n in what the host captures
die() { echo "vm stage1: $*"; echo o > /proc/sysrq-trigger; while :; do :; done; }
: "${vm_out:?set by vm.sh on the kernel command line}"

while read -r m; do insmod "/mod/$m" || echo "vm stage1: insmod $m failed"; done < /modlist

opts=trans=virtio,version=9p2000.L,msize=262144
mount -t 9p -o "ro,$opts,cache=loose" hostroot /lower || die "cannot mount the host root over 9p"
mount -t tmpfs -o mode=755 tmpfs /rw
mkdir -p /rw/upper /rw/work
n=/newroot
if ! mount -t overlay overlay -o lowerdir=/lower,upperdir=/rw/upper,workdir=/rw/work $n; then
  echo "vm stage1: overlayfs failed: read-only root, /tmp and /var/tmp are empty tmpfs"
  mount --move /lower $n
  mount -t tmpfs -o mode=1777 tmpfs $n/tmp
  mount -t tmpfs -o mode=1777 tmpfs $n/var/tmp
fi
# the results share: the guest writes, the host reads it back (no caching)
mkdir -p "$n$vm_out" 2>/dev/null
mount -t 9p -o "$opts,cache=none" vmout "$n$vm_out" || die "cannot mount the results share at $vm_out"

mount --move /dev $n/dev
mkdir -p $n/dev/pts $n/dev/shm
mount -t devpts -o gid=5,mode=620 devpts $n/dev/pts
mount -t tmpfs -o mode=1777 tmpfs $n/dev/shm
mount -t tmpfs -o mode=755 tmpfs $n/run
cut -d' ' -f1 /proc/uptime > $n/run/.vm-booted   # stage 2 shows kernel messages after this
mount --move /proc $n/proc
mount --move /sys $n/sys
# device nodes belong to group video; the root is the host's, make sure the group resolves
grep -q '^video:' $n/etc/group || echo 'video:x:44:' >> $n/etc/group \
  || echo "vm stage1: no group 'video' in /etc/group"
hostname ffdvb-vm
exec switch_root $n /bin/sh "$vm_out/.vm/init"
