/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Operations that may block or hang run in a child process; the parent keeps a timeout and
 * can act (drain, signal, kill) while the child waits inside the device. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "conform.h"

int child_start(struct child *c, long (*fn)(void *arg), void *arg)
{
	int p[2];

	if (pipe(p) < 0)
		return -errno;
	fflush(stdout); /* or buffered lines would be printed twice */
	c->pid = fork();
	if (c->pid < 0) {
		int e = errno;

		close(p[0]);
		close(p[1]);
		return -e;
	}
	if (c->pid == 0) {
		long rc;

		close(p[0]);
		rc = fn(arg);
		if (write(p[1], &rc, sizeof rc) < 0)
			_exit(3);
		_exit(0);
	}
	close(p[1]);
	c->rfd = p[0];
	return 0;
}

int child_wait(struct child *c, int timeout_ms, long *rc)
{
	struct pollfd p = { .fd = c->rfd, .events = POLLIN };
	int r;

	do
		r = poll(&p, 1, timeout_ms);
	while (r < 0 && errno == EINTR);
	if (r <= 0)
		return -ETIMEDOUT;
	if (read(c->rfd, rc, sizeof *rc) != (ssize_t)sizeof *rc)
		*rc = -EPIPE; /* the child died without a result */
	close(c->rfd);
	c->rfd = -1;
	waitpid(c->pid, NULL, 0);
	c->pid = 0;
	return 0;
}

/* A process killed inside a FUSE request stays until the daemon answers it: wait a while,
 * then leave it behind rather than hang the whole run. */
void child_kill(struct child *c)
{
	if (c->pid > 0) {
		int i = 0;

		kill(c->pid, SIGKILL);
		while (waitpid(c->pid, NULL, WNOHANG) == 0 && i++ < 100)
			usleep(30000);
		if (i > 100)
			note("child %d still stuck in the device 3 s after SIGKILL", (int)c->pid);
	}
	if (c->rfd >= 0)
		close(c->rfd);
	c->pid = 0;
	c->rfd = -1;
}

static void on_signal(int sig)
{
	(void)sig;
}

void signal_no_restart(int sig)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = 0; /* no SA_RESTART: the interrupted call returns */
	sigaction(sig, &sa, NULL);
}
