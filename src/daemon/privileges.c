// SPDX-License-Identifier: GPL-2.0-or-later
/* Root -> the configured user with no capability left (privileges.h). */
#include "log.h"
#include "privileges.h"

#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/capability.h>
#include <unistd.h>

const char *ffdvbd_kept_capabilities(void)
{
	return "no capabilities";
}

unsigned long long ffdvbd_kept_capability_mask(void)
{
	return 0;
}

static int fail(const char *what)
{
	ffdvbd_log(FFDVBD_LOG_ERROR, "dropping privileges: %s: %s", what, strerror(errno));
	return -1;
}

/* the socket folder is ours to give away only when it is the configured control-dir */
static int give_control_dir(const struct ffdvbd_options *o)
{
	for (int i = 0; i < o->n_adapters; i++) {
		const char *sock = o->adapters[i].control, *slash = strrchr(sock, '/');
		size_t len = strlen(o->control_dir);

		if (slash && (size_t)(slash - sock) == len && !strncmp(sock, o->control_dir, len)) {
			if (chown(o->control_dir, o->run_uid, (gid_t)-1) != 0)
				return fail(o->control_dir);
			return 0;
		}
	}
	return 0;
}

int ffdvbd_check_can_drop(const struct ffdvbd_options *o)
{
	if (o->run_as[0] && geteuid() != 0) {
		ffdvbd_log(FFDVBD_LOG_ERROR, "user %s: switching to it needs ffdvbd started as root "
			"(or start it as that user, without user=/--run-as)", o->run_as);
		return -1;
	}
	return 0;
}

int ffdvbd_limit_privileges(const struct ffdvbd_options *o)
{
	/* nothing this daemon execs may gain privileges (it execs nothing: a decoder compromise
	   should not either) */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1L, 0L, 0L, 0L) != 0)
		return fail("PR_SET_NO_NEW_PRIVS");
	if (!o->run_as[0] || geteuid() != 0)
		return 0;
	/* the bounding set is per thread and inherited: emptied before any thread exists */
	for (int cap = 0; cap < 64; cap++) { /* beyond the kernel's last: EINVAL */
		if (prctl(PR_CAPBSET_READ, (long)cap, 0L, 0L, 0L) != 1)
			continue;
		if (prctl(PR_CAPBSET_DROP, (long)cap, 0L, 0L, 0L) != 0) {
			/* without CAP_SETPCAP: no_new_privs already keeps exec from using it */
			ffdvbd_log(FFDVBD_LOG_WARNING, "cannot empty the capability bounding set "
				   "(%s): it stays as it is", strerror(errno));
			return 0;
		}
	}
	return 0;
}

int ffdvbd_drop_privileges(const struct ffdvbd_options *o)
{
	cap_t caps;
	int rc;

	if (!o->run_as[0])
		return 0;
	if (ffdvbd_check_can_drop(o) < 0)
		return -1;
	if (give_control_dir(o) < 0)
		return -1;
	if (initgroups(o->run_as, o->run_gid) != 0)
		return fail("initgroups");
	if (setgid(o->run_gid) != 0)
		return fail("setgid");
	/* without PR_SET_KEEPCAPS, leaving uid 0 clears the permitted and effective sets of every
	   thread (glibc changes the uid of all of them) */
	if (setuid(o->run_uid) != 0)
		return fail("setuid");
	caps = cap_init(); /* all clear, inheritable too */
	if (!caps)
		return fail("cap_init");
	rc = cap_set_proc(caps);
	cap_free(caps);
	if (rc)
		return fail("cap_set_proc");
	/* root must be gone for good: a way back would make the drop pointless */
	if (setuid(0) == 0 || seteuid(0) == 0) {
		ffdvbd_log(FFDVBD_LOG_ERROR, "dropping privileges: uid 0 still reachable");
		return -1;
	}
	return 0;
}
