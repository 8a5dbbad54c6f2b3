/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A periodic callback on a timerfd (periodic.h). */
#include "daemon/periodic.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <event2/event.h>

struct ffdvbd_periodic {
	struct event *ev;
	int fd;
	void (*fn)(void *arg);
	void *arg;
};

static void on_expired(evutil_socket_t fd, short what, void *arg)
{
	struct ffdvbd_periodic *p = arg;
	uint64_t expirations;

	(void)what;
	if (read(fd, &expirations, sizeof(expirations)) != (ssize_t)sizeof(expirations))
		return; /* EAGAIN: not expired after all */
	p->fn(p->arg); /* once, however many periods passed: as a persistent libevent timer */
}

struct ffdvbd_periodic *ffdvbd_periodic_new(struct event_base *base, uint64_t period_us,
					    void (*fn)(void *arg), void *arg)
{
	struct ffdvbd_periodic *p;
	struct itimerspec every = {
		.it_interval = { .tv_sec = (time_t)(period_us / 1000000),
				 .tv_nsec = (long)(period_us % 1000000) * 1000 },
	};
	int saved;

	if (period_us == 0) {
		errno = EINVAL;
		return NULL;
	}
	every.it_value = every.it_interval;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->fn = fn;
	p->arg = arg;
	p->fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (p->fd < 0)
		goto fail;
	p->ev = event_new(base, p->fd, EV_READ | EV_PERSIST, on_expired, p);
	if (!p->ev) {
		errno = ENOMEM;
		goto fail;
	}
	if (event_add(p->ev, NULL) != 0) {
		errno = ENOMEM;
		goto fail;
	}
	if (timerfd_settime(p->fd, 0, &every, NULL) != 0)
		goto fail;
	return p;
fail:
	saved = errno;
	ffdvbd_periodic_free(p);
	errno = saved;
	return NULL;
}

void ffdvbd_periodic_free(struct ffdvbd_periodic *p)
{
	if (!p)
		return;
	if (p->ev)
		event_free(p->ev);
	if (p->fd >= 0)
		close(p->fd);
	free(p);
}
