/* Root -> the configured user, keeping CAP_SYS_PTRACE (privileges.h). */
#include "log.h"
#include "privileges.h"

#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/capability.h>
#include <unistd.h>

static const cap_value_t kept[] = { CAP_SYS_PTRACE };
#define N_KEPT ((int)(sizeof(kept) / sizeof(kept[0])))

const char *ffdvbd_kept_capabilities(void)
{
	return "cap_sys_ptrace=ep";
}

unsigned long long ffdvbd_kept_capability_mask(void)
{
	unsigned long long m = 0;

	for (int i = 0; i < N_KEPT; i++)
		m |= 1ull << kept[i];
	return m;
}

static int fail(const char *what)
{
	ffdvbd_log(FFDVBD_LOG_ALWAYS, "dropping privileges: %s: %s", what, strerror(errno));
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
		ffdvbd_log(FFDVBD_LOG_ALWAYS, "user %s: switching to it needs ffdvbd started as root "
			"(or start it as that user, without user=/--run-as)", o->run_as);
		return -1;
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
	/* keep the permitted set across setuid (this thread only: the others lose it all) */
	if (prctl(PR_SET_KEEPCAPS, 1L, 0L, 0L, 0L) != 0)
		return fail("PR_SET_KEEPCAPS");
	if (initgroups(o->run_as, o->run_gid) != 0)
		return fail("initgroups");
	if (setgid(o->run_gid) != 0)
		return fail("setgid");
	if (setuid(o->run_uid) != 0)
		return fail("setuid");
	if (prctl(PR_SET_KEEPCAPS, 0L, 0L, 0L, 0L) != 0)
		return fail("PR_SET_KEEPCAPS");
	caps = cap_init(); /* all clear */
	if (!caps)
		return fail("cap_init");
	rc = cap_set_flag(caps, CAP_PERMITTED, N_KEPT, kept, CAP_SET) ||
	     cap_set_flag(caps, CAP_EFFECTIVE, N_KEPT, kept, CAP_SET) || cap_set_proc(caps);
	cap_free(caps);
	if (rc)
		return fail("cap_set_proc");
	/* root must be gone for good: a way back would make the drop pointless */
	if (setuid(0) == 0 || seteuid(0) == 0) {
		ffdvbd_log(FFDVBD_LOG_ALWAYS, "dropping privileges: uid 0 still reachable");
		return -1;
	}
	return 0;
}
