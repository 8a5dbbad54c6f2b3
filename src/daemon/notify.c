/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sd_notify protocol: see notify.h. */
#include "notify.h"
#include "periodic.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>


int ffdvbd_notify_to(const char *path, const char *msg)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	size_t len = strlen(path);
	socklen_t salen;
	int fd, rc = 0;

	if (len < 2 && path[0] != '/')
		return -EINVAL;
	if (path[0] != '/' && path[0] != '@')
		return -EAFNOSUPPORT; /* systemd also allows vsock addresses; we do not need them */
	if (len > sizeof(sa.sun_path) || (path[0] == '/' && len == sizeof(sa.sun_path)))
		return -ENAMETOOLONG;
	memcpy(sa.sun_path, path, len);
	if (path[0] == '@') {
		sa.sun_path[0] = '\0'; /* abstract: the address length bounds the name, no NUL */
		salen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len);
	} else {
		salen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len + 1);
	}

	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	ssize_t n = sendto(fd, msg, strlen(msg), MSG_NOSIGNAL, (struct sockaddr *)&sa, salen);

	if (n < 0)
		rc = -errno;
	else if ((size_t)n != strlen(msg))
		rc = -EMSGSIZE;
	close(fd);
	return rc;
}

int ffdvbd_notify(const char *msg)
{
	const char *path = getenv("NOTIFY_SOCKET");

	if (!path || !*path)
		return 0;
	int rc = ffdvbd_notify_to(path, msg);

	return rc < 0 ? rc : 1;
}

static int parse_u64(const char *s, uint64_t *out)
{
	char *end;

	if (!s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);

	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}

uint64_t ffdvbd_watchdog_usec(void)
{
	uint64_t usec, pid;
	const char *p = getenv("WATCHDOG_PID");

	if (parse_u64(getenv("WATCHDOG_USEC"), &usec) || usec == 0)
		return 0;
	if (p && *p && (parse_u64(p, &pid) || pid != (uint64_t)getpid()))
		return 0;
	return usec;
}

static void on_watchdog(void *arg)
{
	(void)arg;
	ffdvbd_notify("WATCHDOG=1");
}

long long ffdvbd_watchdog_start(struct event_base *base, struct ffdvbd_periodic **ev)
{
	uint64_t usec = ffdvbd_watchdog_usec() / 2;

	*ev = NULL;
	if (usec == 0)
		return 0;
	*ev = ffdvbd_periodic_new(base, usec, on_watchdog, NULL);
	if (!*ev)
		return -ENOMEM;
	return (long long)usec;
}
