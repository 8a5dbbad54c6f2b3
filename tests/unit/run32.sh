#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# usage: run32.sh PROGRAM [ARG...]: runs a 32-bit (i386) test program. Where this machine's
# kernel cannot execute i386 programs (built without IA32 emulation, as some cloud and microVM
# kernels are: the exec fails with status 126), it runs inside scripts/vm.sh, whose Debian
# kernel can; exit status 77 (skipped, said loudly by vm.sh) only where no VM can start.
"$@"
rc=$?
[ "$rc" != 126 ] && exit "$rc"
echo "run32.sh: this kernel cannot execute i386 programs: running $1 inside scripts/vm.sh"
exec bash "$(dirname "$0")/../../scripts/vm.sh" "$@"
