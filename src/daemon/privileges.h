// SPDX-License-Identifier: GPL-2.0-or-later
/* Dropping root once the nodes exist (--run-as USER, [daemon] user=). The nodes and the
 * control sockets are created and chowned as root; afterwards the daemon only serves them and
 * keeps no capability at all: the process that decodes untrusted streams can do no more than
 * the user. Reading a caller's memory for ioctl payloads with process_vm_readv then works only
 * for callers the user may ptrace; for the others (another user's VDR, root's tools) the CUSE
 * layer fetches payloads with ioctl retries, which the kernel copies (src/cuse/cuse_ioctl.c).
 * CAP_CHOWN and CAP_FOWNER are not needed: nothing is created or chowned after start (CUSE
 * makes its nodes once, at INIT, and they vanish with the daemon). */
#ifndef FFDVBD_PRIVILEGES_H
#define FFDVBD_PRIVILEGES_H

#include "options.h"

/* The capabilities kept after the drop, in words ("no capabilities"). */
const char *ffdvbd_kept_capabilities(void);

/* CapEff of /proc/PID/status after the drop: the bit mask of the kept capabilities. */
unsigned long long ffdvbd_kept_capability_mask(void);

/* Before anything is created: 0, or -1 after a message when o->run_as is set but the daemon
 * was not started as root (it could not switch users). */
int ffdvbd_check_can_drop(const struct ffdvbd_options *o);

/* At start, before any thread: sets no_new_privs, and with o->run_as set and started as root
 * empties the capability bounding set. 0, or -1 after a message. */
int ffdvbd_limit_privileges(const struct ffdvbd_options *o);

/* With o->run_as set: gives the control sockets' folder (when it is o->control_dir) to the
 * user so that it can remove the sockets at exit, takes the user's groups (initgroups),
 * its gid and uid, and keeps no capability in any thread.
 * Returns 0 (also when run_as is empty), or -1 after a message on stderr. */
int ffdvbd_drop_privileges(const struct ffdvbd_options *o);

#endif
