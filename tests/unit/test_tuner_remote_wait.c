/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The remote: tuner never holds up the daemon's loop: against a server that accepts and then
 * says nothing, and against a closed port, opens and ioctls are answered "under way"
 * (-FFDVB_EBLOCK) at once, the loop keeps serving other work (a timer standing for the other
 * adapters) while the worker waits, and the result (ENODEV) comes through the wake hook. */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <event2/event.h>
#include <linux/dvb/frontend.h>

#include "check.h"
#include "ffdvb/node.h"
#include "ffdvb/tuner.h"

struct waiter {
	struct event_base *base;
	struct ffdvb_tuner_file *f;
	int wakes;
	int ticks;             /* the other work done so far */
	int ticks_at_result;   /* ... when the open's result came */
	int result;
};

static void woke(void *ctx)
{
	struct waiter *w = ctx;
	int r = ffdvb_tuner_open_wait(w->f, 0);

	w->wakes++;
	if (r != -FFDVB_EBLOCK && w->result == -FFDVB_EBLOCK) {
		w->result = r;
		w->ticks_at_result = w->ticks;
		event_base_loopbreak(w->base);
	}
}

static void tick(evutil_socket_t fd, short what, void *ctx)
{
	struct waiter *w = ctx;

	(void)fd, (void)what;
	w->ticks++;
}

/* a listening socket on 127.0.0.1 that never accepts: the kernel completes the connection,
 * nobody ever answers. Returns the fd, port in *port. */
static int silent_server(int *port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(fd, 8) < 0 ||
	    getsockname(fd, (struct sockaddr *)&a, &len) < 0)
		return -1;
	*port = ntohs(a.sin_port);
	return fd;
}

/* opens frontend0 of spec and waits for the open's result while a 50 ms timer ticks */
static void open_and_wait(struct event_base *base, const char *spec, int want_ticks)
{
	struct timeval period = { 0, 50 * 1000 }, limit = { 30, 0 };
	struct waiter w = { .base = base, .result = -FFDVB_EBLOCK };
	struct event *ev = event_new(base, -1, EV_PERSIST, tick, &w);
	struct dvb_frontend_info info;
	struct ffdvb_ioctl io = { .cmd = FE_GET_INFO, .buf = &info };
	char err[256];
	struct ffdvb_tuner *t = ffdvb_tuner_new(base, spec, err, sizeof(err));
	int r;

	CHECK(t != NULL);
	if (!t)
		return;
	r = ffdvb_tuner_open(t, FFDVB_TUNER_FRONTEND, O_RDWR | O_NONBLOCK, &w.f);
	CHECK_EQ(r, -FFDVB_EBLOCK); /* the old tuner sat in connect/get_version here */
	if (r != -FFDVB_EBLOCK) {
		if (r == 0)
			ffdvb_tuner_close(w.f);
		ffdvb_tuner_free(t);
		event_free(ev);
		return;
	}
	ffdvb_tuner_set_wake(w.f, woke, &w);
	/* a call made before the open completed waits behind it (a refused connect may have
	 * failed the open already: then the call fails at once) */
	r = ffdvb_tuner_ioctl(w.f, &io);
	if (want_ticks)
		CHECK_EQ(r, -FFDVB_EBLOCK);
	else
		CHECK(r == -FFDVB_EBLOCK || r == -ENODEV);
	event_add(ev, &period);
	event_base_loopexit(base, &limit);
	event_base_dispatch(base);
	printf("%s: open -> %d after %d ticks of 50 ms, %d wakes\n", spec, w.result,
	       w.ticks_at_result, w.wakes);
	CHECK_EQ(w.result, -ENODEV);
	/* the loop served the timer while the worker waited for the silent server (its reply
	 * timeout is 5 s: about 100 ticks); a closed port answers at once */
	CHECK(w.ticks_at_result >= want_ticks);
	CHECK(w.wakes >= 1);
	/* the waiting ioctl's result: the open's error */
	while (ffdvb_tuner_ioctl(w.f, &io) == -FFDVB_EBLOCK) {
		struct timeval once = { 0, 20 * 1000 };

		event_base_loopexit(base, &once);
		event_base_dispatch(base);
	}
	CHECK_EQ(io.progress, 0);
	ffdvb_tuner_close(w.f);
	event_free(ev);
	ffdvb_tuner_free(t);
}

/* a caller that gives up (a signal) gets EINTR; closing and freeing do not wait for the
 * silent server either */
static void give_up(struct event_base *base, const char *spec)
{
	struct ffdvb_tuner_file *f;
	struct dvb_frontend_info info;
	struct ffdvb_ioctl io = { .cmd = FE_GET_INFO, .buf = &info };
	char err[256];
	struct ffdvb_tuner *t = ffdvb_tuner_new(base, spec, err, sizeof(err));

	CHECK(t != NULL);
	if (!t)
		return;
	CHECK_EQ(ffdvb_tuner_open(t, FFDVB_TUNER_FRONTEND, O_RDWR, &f), -FFDVB_EBLOCK);
	CHECK_EQ(ffdvb_tuner_open_wait(f, 0), -FFDVB_EBLOCK);
	CHECK_EQ(ffdvb_tuner_ioctl(f, &io), -FFDVB_EBLOCK);
	io.interrupted = 1;
	CHECK_EQ(ffdvb_tuner_ioctl(f, &io), -EINTR);
	CHECK_EQ(ffdvb_tuner_open_wait(f, 1), -EINTR);
	ffdvb_tuner_close(f);
	ffdvb_tuner_free(t); /* ends the worker's wait on the server (shutdown), then joins */
}

int main(void)
{
	struct event_base *base = event_base_new();
	char spec[64];
	int port, fd = silent_server(&port);

	CHECK(fd >= 0);
	if (fd < 0)
		return finish("test_tuner_remote_wait");
	snprintf(spec, sizeof(spec), "remote:127.0.0.1:%d", port);
	open_and_wait(base, spec, 1);
	give_up(base, spec);
	close(fd); /* the port is closed now: connect is refused at once */
	open_and_wait(base, spec, 0);
	event_base_free(base);
	return finish("test_tuner_remote_wait");
}
