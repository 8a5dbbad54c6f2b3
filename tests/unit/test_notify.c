/* SPDX-License-Identifier: GPL-2.0-or-later */
/* src/daemon/notify.c: the sd_notify datagrams reach a unix datagram socket bound in a temp
 * directory (and one in the abstract namespace), $NOTIFY_SOCKET unset means no-op, and
 * $WATCHDOG_USEC/$WATCHDOG_PID are read the way systemd means them. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <event2/event.h>

#include "check.h"
#include "daemon/periodic.h"
#include "daemon/notify.h"

/* a bound datagram socket; abstract when path starts with '@' */
static int bind_dgram(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	size_t len = strlen(path);
	socklen_t salen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len);
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

	memcpy(sa.sun_path, path, len);
	if (path[0] == '@')
		sa.sun_path[0] = '\0';
	else
		salen++;
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, salen) != 0) {
		printf("FAIL: cannot bind %s: %s\n", path, strerror(errno));
		exit(1);
	}
	return fd;
}

/* the next datagram as a string, "" when none is waiting */
static const char *next_msg(int fd)
{
	static char buf[256];
	ssize_t n = recv(fd, buf, sizeof(buf) - 1, 0);

	buf[n > 0 ? n : 0] = '\0';
	return buf;
}

static void path_socket(const char *dir)
{
	char path[108];

	snprintf(path, sizeof(path), "%s/notify", dir);
	int fd = bind_dgram(path);

	CHECK_EQ(ffdvbd_notify_to(path, "READY=1"), 0);
	CHECK_LABELLED("READY=1 arrives whole", strcmp(next_msg(fd), "READY=1") == 0);

	setenv("NOTIFY_SOCKET", path, 1);
	CHECK_EQ(ffdvbd_notify("WATCHDOG=1"), 1);
	CHECK_LABELLED("WATCHDOG=1 through $NOTIFY_SOCKET", strcmp(next_msg(fd), "WATCHDOG=1") == 0);
	CHECK_EQ(ffdvbd_notify("STOPPING=1"), 1);
	CHECK_LABELLED("STOPPING=1 through $NOTIFY_SOCKET", strcmp(next_msg(fd), "STOPPING=1") == 0);
	CHECK_LABELLED("one datagram per message", strcmp(next_msg(fd), "") == 0);

	unsetenv("NOTIFY_SOCKET");
	CHECK_EQ(ffdvbd_notify("READY=1"), 0);
	setenv("NOTIFY_SOCKET", "", 1);
	CHECK_EQ(ffdvbd_notify("READY=1"), 0);
	CHECK_LABELLED("nothing sent without $NOTIFY_SOCKET", strcmp(next_msg(fd), "") == 0);
	unsetenv("NOTIFY_SOCKET");

	close(fd);
	unlink(path);
	/* the socket is gone: the error comes back instead of being swallowed */
	CHECK_EQ(ffdvbd_notify_to(path, "READY=1"), -ENOENT);
}

static void abstract_socket(void)
{
	char name[64];

	snprintf(name, sizeof(name), "@ffdvb-test-notify-%d", (int)getpid());
	int fd = bind_dgram(name);

	setenv("NOTIFY_SOCKET", name, 1);
	CHECK_EQ(ffdvbd_notify("READY=1"), 1);
	CHECK_LABELLED("abstract socket gets READY=1", strcmp(next_msg(fd), "READY=1") == 0);
	unsetenv("NOTIFY_SOCKET");
	close(fd);
}

static void bad_addresses(void)
{
	char longpath[200];

	memset(longpath, 'x', sizeof(longpath) - 1);
	longpath[0] = '/';
	longpath[sizeof(longpath) - 1] = '\0';
	CHECK_EQ(ffdvbd_notify_to(longpath, "READY=1"), -ENAMETOOLONG);
	CHECK_EQ(ffdvbd_notify_to("relative/path", "READY=1"), -EAFNOSUPPORT);
	CHECK_EQ(ffdvbd_notify_to("@", "READY=1"), -EINVAL);
	CHECK_EQ(ffdvbd_notify_to("", "READY=1"), -EINVAL);
}

static void watchdog_env(void)
{
	char pid[32];

	unsetenv("WATCHDOG_USEC");
	unsetenv("WATCHDOG_PID");
	CHECK_EQ(ffdvbd_watchdog_usec(), 0);
	setenv("WATCHDOG_USEC", "10000000", 1);
	CHECK_EQ(ffdvbd_watchdog_usec(), 10000000);
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	setenv("WATCHDOG_PID", pid, 1);
	CHECK_EQ(ffdvbd_watchdog_usec(), 10000000);
	snprintf(pid, sizeof(pid), "%d", (int)getpid() + 1);
	setenv("WATCHDOG_PID", pid, 1);
	CHECK_LABELLED("watchdog meant for another pid is ignored", ffdvbd_watchdog_usec() == 0);
	unsetenv("WATCHDOG_PID");
	setenv("WATCHDOG_USEC", "0", 1);
	CHECK_EQ(ffdvbd_watchdog_usec(), 0);
	setenv("WATCHDOG_USEC", "10s", 1);
	CHECK_EQ(ffdvbd_watchdog_usec(), 0);
	setenv("WATCHDOG_USEC", "-5", 1);
	CHECK_EQ(ffdvbd_watchdog_usec(), 0);
	unsetenv("WATCHDOG_USEC");
}

/* the timer of the running daemon: WATCHDOG=1 every half $WATCHDOG_USEC, nothing without it */
static void watchdog_timer(const char *dir)
{
	char path[108];
	struct event_base *base = event_base_new();
	struct ffdvbd_periodic *ev = (struct ffdvbd_periodic *)1;
	struct timeval run = { .tv_sec = 0, .tv_usec = 210000 };
	int pings = 0;

	CHECK(base != NULL);
	if (!base)
		return;
	snprintf(path, sizeof(path), "%s/watchdog", dir);
	int fd = bind_dgram(path);

	setenv("NOTIFY_SOCKET", path, 1);
	unsetenv("WATCHDOG_USEC");
	CHECK_EQ(ffdvbd_watchdog_start(base, &ev), 0);
	CHECK_LABELLED("no timer without $WATCHDOG_USEC", ev == NULL);

	setenv("WATCHDOG_USEC", "80000", 1);
	CHECK_EQ(ffdvbd_watchdog_start(base, &ev), 40000);
	CHECK_LABELLED("timer made", ev != NULL);
	event_base_loopexit(base, &run);
	event_base_dispatch(base);
	for (const char *m; *(m = next_msg(fd));) {
		CHECK_LABELLED("only WATCHDOG=1 sent", strcmp(m, "WATCHDOG=1") == 0);
		pings++;
	}
	/* 210 ms at one ping per 40 ms: 5, give or take a slow machine */
	CHECK_LABELLED("about 5 pings in 210 ms", pings >= 3 && pings <= 6);
	if (pings < 3 || pings > 6)
		printf("  (%d pings)\n", pings);
	ffdvbd_periodic_free(ev);
	event_base_free(base);
	unsetenv("WATCHDOG_USEC");
	unsetenv("NOTIFY_SOCKET");
	close(fd);
	unlink(path);
}

int main(void)
{
	char dir[] = "/tmp/ffdvb-notify-XXXXXX";

	if (!mkdtemp(dir)) {
		printf("FAIL: mkdtemp: %s\n", strerror(errno));
		return 1;
	}
	path_socket(dir);
	watchdog_timer(dir);
	rmdir(dir);
	abstract_socket();
	bad_addresses();
	watchdog_env();
	return finish("test_notify");
}
