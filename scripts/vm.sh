#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# usage: scripts/vm.sh 'SHELL COMMAND'      (or: scripts/vm.sh PROGRAM ARG...)
#
# Runs the command as root inside a throw-away qemu VM that boots Debian's installed kernel
# (which has CUSE) with this machine's / as its root: read-only over 9p, with a RAM overlay
# so writes work and vanish. The command runs under /bin/sh in the current directory (if the
# guest can see it, else in $VM_OUT), with $VM_OUT set to the results share: a host directory
# the guest writes through to. fuse and cuse are loaded (/dev/cuse exists); there is no udev.
# The guest's output is printed; the exit status is the command's, 124 if it timed out, 125 if
# the VM gave no result, 77 if qemu or a kernel is not installed (125 instead when CI is set:
# there the VM tests must run). Details: docs/testing.md.
#
# Environment:
#   KVER        kernel version (default: newest /boot/vmlinuz-* that has /lib/modules/*)
#   VM_ACCEL    auto (default) | tcg | kvm
#   VM_SMP, VM_MEM          vCPUs (2), memory (1G)
#   VM_TIMEOUT  seconds the command may run (300)
#   VM_OUT_DIR  results share to use and keep (default: a temporary directory, removed after a
#               successful run, kept and named after a failed one); no whitespace in the path
#   VM_KEEP=1   keep the temporary results share
#   VM_ENV      names of host environment variables to pass into the guest, e.g. "CI ASAN_OPTIONS"
#   VM_INIT     sh (default): the command runs from the guest's stage 2 (scripts/vm/guest-init.sh)
#               as PID 1. systemd: systemd is PID 1 and runs the command as a service once
#               basic.target is reached (units that cannot work in the VM masked); the status
#               comes back the same way. Slower to boot (~20 s under TCG)
#   VM_APPEND   extra kernel command-line words
#   VM_QEMU_ARGS  extra qemu arguments (words), e.g. "-cpu qemu64"
#   VM_CACHE    where the extracted kernel and initramfs are cached
#               (default ${XDG_CACHE_HOME:-$HOME/.cache}/ffdvb-vm)
#   VM_VERBOSE=1  show the kernel's boot messages
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PATH=$PATH:/usr/sbin:/sbin   # modprobe, for users whose PATH lacks the sbin directories
helpers=$here/vm
say() { echo "vm.sh: $*" >&2; }

usage() { sed -n '2,/^set -e/{/^set -e/d;s/^# \{0,1\}//;p}' "${BASH_SOURCE[0]}"; }
if [ $# -eq 0 ]; then usage >&2; exit 2; fi
if [ "$1" = -h ] || [ "$1" = --help ]; then usage; exit 0; fi

# ---- prerequisites: missing ones skip (77), except in CI
missing() {
  local verdict="SKIPPED (exit 77)" rc=77
  if [ -n "${CI:-}" ]; then verdict="FAILED (CI is set: the VM tests must run there)"; rc=125; fi
  say "************************************************************"
  say "cannot start the VM: $*"
  say "install the prerequisites with: sudo scripts/setup.sh"
  say "$verdict"
  say "************************************************************"
  exit $rc
}
command -v qemu-system-x86_64 >/dev/null || missing "qemu-system-x86_64 is not installed (package qemu-system-x86)"
if [ -z "${KVER:-}" ]; then
  for k in $(printf '%s\n' /lib/modules/* | sed 's|.*/||' | sort -V); do
    if [ -f "/boot/vmlinuz-$k" ]; then KVER=$k; fi
  done
fi
[ -n "${KVER:-}" ] || missing "no kernel with modules installed (package linux-image-amd64)"
{ [ -f "/boot/vmlinuz-$KVER" ] && [ -d "/lib/modules/$KVER" ]; } \
  || missing "kernel $KVER: /boot/vmlinuz-$KVER or /lib/modules/$KVER is missing"
[ -x /bin/busybox ] || missing "/bin/busybox is missing (package busybox-static)"
if command -v file >/dev/null && ! file -L /bin/busybox | grep -q 'statically linked'; then
  missing "/bin/busybox is not statically linked (install busybox-static)"
fi
for tool in modprobe cpio gzip xz flock; do
  command -v "$tool" >/dev/null || missing "$tool is not installed"
done

# ---- cached kernel image and initramfs, rebuilt when the kernel or the helper scripts change
cache=${VM_CACHE:-${XDG_CACHE_HOME:-${HOME:-/nonexistent}/.cache}/ffdvb-vm}
if ! mkdir -p "$cache/$KVER" 2>/dev/null || [ ! -w "$cache/$KVER" ]; then
  cache=${TMPDIR:-/tmp}/ffdvb-vm-cache-$(id -u)
  mkdir -p "$cache/$KVER"
fi
kdir=$cache/$KVER
key=$( {
  echo "$KVER"
  stat -c '%n %s %Y' "/boot/vmlinuz-$KVER" "/lib/modules/$KVER/modules.dep" /bin/busybox 2>&1 || true
  cat "$helpers/mkinitrd.sh" "$helpers/initrd-init.sh" "$helpers/extract-vmlinux.sh"
} | sha256sum | cut -c1-16)
(
  flock 9   # parallel runs: one builds, the others wait and reuse
  if [ "$(cat "$kdir/key" 2>/dev/null)" != "$key" ]; then
    say "preparing kernel $KVER for the VM (cached in $kdir)"
    rm -f "$kdir/key" "$kdir/vmlinux" "$kdir/initrd.cpio.gz"
    # PVH boot of the ELF kernel needs CONFIG_PVH; without it qemu boots the bzImage (slower)
    if grep -q '^CONFIG_PVH=y' "/boot/config-$KVER" 2>/dev/null; then
      sh "$helpers/extract-vmlinux.sh" "/boot/vmlinuz-$KVER" "$kdir/vmlinux" \
        || say "cannot unpack the kernel; booting the compressed image (slower under TCG)"
    fi
    sh "$helpers/mkinitrd.sh" "$KVER" "$kdir/initrd.cpio.gz.tmp"
    mv "$kdir/initrd.cpio.gz.tmp" "$kdir/initrd.cpio.gz"
    echo "$key" > "$kdir/key"
  fi
) 9> "$kdir/lock"
kernel=$kdir/vmlinux
[ -f "$kernel" ] || kernel=/boot/vmlinuz-$KVER

# ---- accelerator: KVM only where it really runs stock kernels
accel=${VM_ACCEL:-auto}
if [ "$accel" = auto ]; then
  # kvm_pvm ("pagetable-based VM", a software hypervisor) also provides /dev/kvm but runs only
  # PVM-aware guest kernels: Debian's kernel hangs or fails there. Require a hardware module.
  if [ -w /dev/kvm ] && [ ! -d /sys/module/kvm_pvm ] \
     && { [ -d /sys/module/kvm_intel ] || [ -d /sys/module/kvm_amd ]; }; then
    accel=kvm
  else
    accel=tcg
  fi
fi
# shellcheck disable=SC2054  # commas belong to qemu's option syntax
case $accel in
  kvm) accel_args=(-accel kvm -cpu host) ;;
  tcg) accel_args=(-accel tcg,thread=multi -cpu max) ;;
  *)   say "VM_ACCEL must be auto, tcg or kvm"; exit 2 ;;
esac
bios=()
[ -f /usr/share/qemu/qboot.rom ] && bios=(-bios /usr/share/qemu/qboot.rom)  # faster than SeaBIOS

# ---- the results share and the files that drive the guest
work=$(mktemp -d "${TMPDIR:-/tmp}/ffdvb-vm.XXXXXX")
if [ -n "${VM_OUT_DIR:-}" ]; then
  mkdir -p "$VM_OUT_DIR"
  out=$(cd "$VM_OUT_DIR" && pwd)
  keep=1
else
  out=$work/out
  mkdir "$out"
  keep=${VM_KEEP:-0}
fi
# shellcheck disable=SC2317  # called from the EXIT trap
cleanup() {   # the temporary share stays if asked to, or after a failure (keep=1)
  rm -f "$work/console"
  if [ "$out" != "$work/out" ] || [ "$keep" != 1 ]; then rm -rf "$work"; fi
}
trap cleanup EXIT
case $out in
  *[[:space:]]*) say "the results share path must not contain whitespace: $out"; exit 2 ;;
esac
ctl=$out/.vm
rm -rf "$ctl"
mkdir "$ctl"
cp "$helpers/guest-init.sh" "$ctl/init"

quote() { local s=${1//\'/\'\\\'\'}; printf "'%s'" "$s"; }
{
  echo "# written by vm.sh"
  echo "VM_OUT=$(quote "$out"); export VM_OUT"
  for v in ${VM_ENV:-}; do
    [ -n "${!v+set}" ] && echo "$v=$(quote "${!v}"); export $v"
  done
  case $PWD in   # the guest mounts its own /proc, /sys, /dev and /run
    /proc|/proc/*|/sys|/sys/*|/dev|/dev/*|/run|/run/*) echo "cd \"\$VM_OUT\"" ;;
    *) echo "cd $(quote "$PWD") 2>/dev/null || cd \"\$VM_OUT\"" ;;
  esac
  if [ $# -eq 1 ]; then
    printf '%s\n' "$1"
  else
    for a in "$@"; do printf '%s ' "$(quote "$a")"; done
    echo
  fi
} > "$ctl/cmd"

case ${VM_INIT:-sh} in
  sh) init_arg= ;;
  systemd)
    [ -x /lib/systemd/systemd ] || missing "VM_INIT=systemd: /lib/systemd/systemd is missing (package systemd)"
    init_arg=vm_init=systemd ;;
  *) say "VM_INIT must be sh or systemd"; exit 2 ;;
esac
guest_timeout=${VM_TIMEOUT:-300}
host_timeout=$((guest_timeout + 90))   # boot and power-off on top of the command's own limit
log="quiet loglevel=3"
[ "${VM_VERBOSE:-0}" = 1 ] && log="loglevel=7"

# shellcheck disable=SC2054
qemu=(qemu-system-x86_64 "${accel_args[@]}" "${bios[@]}" -smp "${VM_SMP:-2}" -m "${VM_MEM:-1G}"
  -display none -no-reboot -nodefaults -serial stdio
  -kernel "$kernel" -initrd "$kdir/initrd.cpio.gz"
  -append "console=ttyS0 panic=-1 $log vm_out=$out vm_timeout=$guest_timeout $init_arg ${VM_APPEND:-}"
  -virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap
  -virtfs "local,path=$out,mount_tag=vmout,security_model=none,multidevs=remap")
# shellcheck disable=SC2206  # a word list on purpose
qemu+=(${VM_QEMU_ARGS:-})

# qemu runs in the background so that a signal to this script stops it at once; its output
# passes through a fifo to drop the kernel's carriage returns and power-off messages
mkfifo "$work/console"
off='\[ *[0-9.]*\] \(sysrq: Power Off\|ACPI: PM: Preparing to enter system sleep state S5\|reboot: Power down\)$'
quiet="/^$off/d;s/$off//"   # the second: after output that did not end with a newline
[ "${VM_VERBOSE:-0}" = 1 ] && quiet=
vm='' reader=''
trap 'kill -TERM $vm $reader 2>/dev/null; wait; say "interrupted"; keep=0; exit 130' INT TERM HUP
sed -u "s/\r\$//;$quiet" < "$work/console" &
reader=$!
start=$EPOCHREALTIME
timeout -k 5 "$host_timeout" "${qemu[@]}" < /dev/null > "$work/console" 2>&1 &
vm=$!
qrc=0
wait $vm || qrc=$?
wait $reader || true
trap - INT TERM HUP
ms=$(( (${EPOCHREALTIME/./} - ${start/./}) / 1000 ))
secs=$((ms / 1000)).$((ms % 1000 / 100))

if [ -f "$ctl/rc" ]; then
  rc=$(cat "$ctl/rc")
elif [ "$qrc" = 124 ]; then
  say "the VM did not finish within $host_timeout s; qemu killed"
  rc=124
else
  say "no result from the VM (qemu exit status $qrc); run with VM_VERBOSE=1 to see the boot"
  rc=125
fi
[ "$rc" != 0 ] && [ "$out" = "$work/out" ] && keep=1
if [ "$keep" = 1 ]; then where="results in $out"; else where="results removed"; fi
say "exit status $rc ($accel, kernel $KVER, ${secs} s, $where)"
exit "$rc"
