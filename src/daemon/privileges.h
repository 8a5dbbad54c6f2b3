/* Dropping root once the nodes exist (--run-as USER, [daemon] user=). The nodes and the
 * control sockets are created and chowned as root; afterwards the daemon only serves them,
 * and of root's powers that needs one:
 *   CAP_SYS_PTRACE  ioctl arguments are read and written in the caller's memory with
 *                   process_vm_readv/writev (src/cuse/cuse_fetch.c), which needs ptrace
 *                   access to every client: processes of other users, and past Yama's
 *                   ptrace_scope=1 since clients are not our descendants.
 * CAP_CHOWN and CAP_FOWNER are not kept: nothing is created or chowned after start (CUSE
 * makes its nodes once, at INIT, and they vanish with the daemon). */
#ifndef FFDVBD_PRIVILEGES_H
#define FFDVBD_PRIVILEGES_H

#include "options.h"

/* The capabilities kept after the drop, as libcap text ("cap_sys_ptrace=ep"). */
const char *ffdvbd_kept_capabilities(void);

/* CapEff of /proc/PID/status after the drop: the bit mask of the kept capabilities. */
unsigned long long ffdvbd_kept_capability_mask(void);

/* Before anything is created: 0, or -1 after a message when o->run_as is set but the daemon
 * was not started as root (it could not switch users). */
int ffdvbd_check_can_drop(const struct ffdvbd_options *o);

/* With o->run_as set: gives the control sockets' folder (when it is o->control_dir) to the
 * user so that it can remove the sockets at exit, takes the user's groups (initgroups),
 * its gid and uid, and keeps only the capabilities above in the permitted and effective
 * sets of the calling thread (the event loop's, which serves CUSE; other threads keep none).
 * Returns 0 (also when run_as is empty), or -1 after a message on stderr. */
int ffdvbd_drop_privileges(const struct ffdvbd_options *o);

#endif
