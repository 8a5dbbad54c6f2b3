#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Install every Debian 12 package that building ffdvb, running ffdvbd and running the whole
# test suite (including the real-kernel VM tests) need. Idempotent; run as root.
set -eu
export DEBIAN_FRONTEND=noninteractive

BUILD="gcc libc6-dev make cmake pkg-config"
LIBS="libfuse3-dev libevent-dev libavcodec-dev libavformat-dev libavutil-dev libswresample-dev
      libswscale-dev libavfilter-dev libsdl2-dev libasound2-dev libdvbv5-dev libdrm-dev zlib1g-dev libcap-dev"
# run time: the PSF console fonts OSD_Text draws with (read with zlib); Mesa's GL and EGL
# drivers for SDL's renderer (window, fullscreen, kmsdrm)
RUN="console-setup-linux libgl1-mesa-dri libegl-mesa0"
# test tools: stream generator, VM runner (qemu, Debian's kernel with cuse.ko, a static busybox
# for the initramfs), 32-bit conformance build, DVB command-line clients, clang's libFuzzer
# (tests/unit/test_pes_fuzz), man and systemd-analyze (tests/install_check.sh), time
# (bench/run.sh decode), useradd (tests/vm/daemon.sh: the user ffdvbd drops to), an X server,
# xwd and ALSA's mixer (tests/vm/devices.sh: the picture and sound on real device drivers)
TESTS="ffmpeg python3 qemu-system-x86 linux-image-amd64 busybox-static xz-utils zstd cpio kmod
       file procps dvb-tools gcc-multilib clang libclang-rt-14-dev man-db systemd time passwd
       xvfb x11-apps alsa-utils"
# the clients the end-to-end tests run unmodified (tests/vm/vdr.sh): VDR with the plugin of the
# full-featured cards, MPlayer with its mpegpes outputs, dvb-apps' tzap (tests/vm/live.sh)
E2E="vdr vdr-plugin-dvbsddevice mplayer dvb-apps"

apt-get update
# shellcheck disable=SC2086
apt-get install -y --no-install-recommends $BUILD $LIBS $RUN $TESTS $E2E

# The kernel the metapackage points at (for the VM tests); its headers and the sources of the
# same series build the kernel's vidtv test driver (a virtual budget card) for it, which
# Debian does not ship (scripts/vm/build-vidtv.sh).
KVER=$(dpkg-query -W -f='${Depends}' linux-image-amd64 | sed -n 's/.*linux-image-\([^ ,]*\).*/\1/p')
SERIES=$(echo "$KVER" | cut -d. -f1,2)
apt-get install -y --no-install-recommends "linux-headers-$KVER" "linux-source-$SERIES"
echo "setup: done (VM kernel $KVER)"
