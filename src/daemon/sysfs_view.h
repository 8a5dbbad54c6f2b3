/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The synthetic /sys/class/dvb that lets unmodified VDR + dvbsddevice accept an emulated
 * adapter (docs/vdr.md). The plugin only takes a device whose frontend's sysfs entry (found by
 * its MAJ:MIN under /sys/class/dvb) carries an av7110 PCI subsystem id; CUSE nodes live in class
 * "cuse" and never appear there. So the daemon writes, next to its control socket
 * (/run/ffdvb/sys-class-dvb by default), one entry per node of each adapter:
 *
 *   dvbN.frontend0/dev                      "MAJ:MIN" of /dev/dvb/adapterN/frontend0
 *   dvbN.frontend0/uevent                   MAJOR=, MINOR=, DEVNAME=dvb/adapterN/frontend0
 *   dvbN.frontend0/device/subsystem_vendor  "0x13c2" (TechnoTrend), subsystem_device "0x0003"
 *   dvbN.frontend0/device/vendor, device    "0x1131", "0x7146" (Philips SAA7146, as av7110)
 *   (the same for video0, audio0, osd0, demux0, dvr0 when they exist)
 *
 * plus a symlink to every real /sys/class/dvb entry, so that a process which sees this folder
 * bind-mounted over /sys/class/dvb (ffdvb-run-vdr, or systemd's BindReadOnlyPaths= in
 * vdr.service) finds the real budget cards and the emulated adapter. The folder itself is
 * never removed: a bind mount holds its inode, so a restarted daemon's entries show up in the
 * view of a VDR that is already running. */
#ifndef FFDVBD_SYSFS_VIEW_H
#define FFDVBD_SYSFS_VIEW_H

#define FFDVBD_SYSFS_VIEW_NAME "sys-class-dvb"

/* Writes the entries of adapter N (its nodes under /dev/dvb/adapterN must exist) into the
 * view folder next to control_path (the adapter's control socket), creating the folder if
 * needed, and links the real /sys/class/dvb entries. Returns 0 or -errno (logged). */
int ffdvbd_sysfs_view_add(const char *control_path, int adapter);

/* Removes adapter N's entries (best effort: after a privilege drop they may not be ours to
 * remove any more; the next start replaces them). The folder and the links stay. */
void ffdvbd_sysfs_view_remove(const char *control_path, int adapter);

#endif
