/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The remote: tuner's worker thread and the calls the daemon's loop queues for it. The loop
 * never waits for dvbv5-daemon (a name lookup, a connect, a slow or silent server): an open or
 * an ioctl is queued here and answered -FFDVB_EBLOCK; the worker runs the queue in order with
 * the synchronous wire client (dvbv5_wire.c), then wakes the file, and the card's retry of the
 * same call collects the result, which io->progress points to. Lock rules: tuner_remote.h. */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <event2/event.h>

#include "tuner_remote.h"

enum call_kind { CALL_OPEN, CALL_IOCTL, CALL_CLOSE };

struct remote_call {
	struct remote_call *next;
	enum call_kind kind;
	struct remote_file *rf;
	int done;      /* result is there (ioctl) */
	int abandoned; /* nobody collects it (interrupted caller, open): the worker frees it */
	int result;
	struct ffdvb_ioctl io; /* the caller's, with buf and data copied into mem */
	size_t buf_len, data_len;
	unsigned char mem[];
};

static void eventfd_signal(int fd)
{
	uint64_t one = 1;
	ssize_t n = write(fd, &one, sizeof(one));

	(void)n; /* EAGAIN only at a counter of 2^64-2: the fd is readable then anyway */
}

static void eventfd_drain(int fd)
{
	uint64_t v;
	ssize_t n = read(fd, &v, sizeof(v));

	(void)n;
}

void remote_poke(struct remote_tuner *rt)
{
	eventfd_signal(rt->submit_fd);
}

void remote_mark_wake(struct remote_file *rf)
{
	if (rf->closing)
		return;
	rf->wake_pending = 1;
	eventfd_signal(remote_tuner_of(rf)->wake_fd);
}

/* ---------------------------------------------------------------- the loop's side */

static struct remote_call *call_new(struct remote_file *rf, enum call_kind kind,
				    const struct ffdvb_ioctl *io)
{
	size_t buf_len = io && io->buf ? _IOC_SIZE(io->cmd) : 0;
	size_t data_len = io && io->data ? io->data_len : 0;
	struct remote_call *c = calloc(1, sizeof(*c) + buf_len + data_len);

	if (!c)
		return NULL;
	c->kind = kind;
	c->rf = rf;
	if (io) {
		c->io = *io;
		c->io.progress = 0;
		c->io.buf = buf_len ? c->mem : NULL;
		c->io.data = data_len ? c->mem + buf_len : NULL;
		c->buf_len = buf_len;
		c->data_len = data_len;
		if (buf_len)
			memcpy(c->mem, io->buf, buf_len);
		if (data_len)
			memcpy(c->mem + buf_len, io->data, data_len);
	}
	return c;
}

static void enqueue(struct remote_tuner *rt, struct remote_call *c)
{
	c->next = NULL;
	*rt->queue_tail = c;
	rt->queue_tail = &c->next;
	remote_poke(rt);
}

int remote_queue_open(struct remote_file *rf)
{
	struct remote_call *open = call_new(rf, CALL_OPEN, NULL);

	rf->close_call = call_new(rf, CALL_CLOSE, NULL); /* closing must not fail later */
	if (!open || !rf->close_call) {
		free(open);
		free(rf->close_call);
		rf->close_call = NULL;
		return -ENOMEM;
	}
	open->abandoned = 1; /* its result lands in rf->open_result */
	rf->open_result = REMOTE_OPENING;
	enqueue(remote_tuner_of(rf), open);
	return -FFDVB_EBLOCK;
}

int remote_queue_ioctl(struct remote_file *rf, struct ffdvb_ioctl *io)
{
	struct remote_call *c = (struct remote_call *)(uintptr_t)io->progress;
	int r;

	if (!c) {
		if (io->interrupted)
			return -EINTR;
		c = call_new(rf, CALL_IOCTL, io);
		if (!c)
			return -ENOMEM;
		enqueue(remote_tuner_of(rf), c);
		io->progress = (size_t)(uintptr_t)c;
		return -FFDVB_EBLOCK;
	}
	if (!c->done) {
		if (!io->interrupted)
			return -FFDVB_EBLOCK;
		c->abandoned = 1; /* it still runs, in its turn: the daemon's state stays in order */
		io->progress = 0;
		return -EINTR;
	}
	r = c->result;
	if (io->buf && c->buf_len)
		memcpy(io->buf, c->mem, c->buf_len);
	if (io->data && c->data_len)
		memcpy(io->data, c->io.data, c->data_len < io->data_len ? c->data_len : io->data_len);
	free(c);
	io->progress = 0; /* a call that has to wait (-EAGAIN) is queued afresh on its retry */
	return r;
}

void remote_queue_close(struct remote_file *rf)
{
	struct remote_call *c = rf->close_call;

	rf->close_call = NULL;
	rf->closing = 1;
	rf->wake_pending = 0;
	enqueue(remote_tuner_of(rf), c);
}

/* Runs on the loop: wakes the files the worker marked. The hooks run without the lock (they
 * poll, read and queue calls, which take it); closed files are never woken. */
static void wake_files(evutil_socket_t fd, short what, void *ctx)
{
	struct remote_tuner *rt = ctx;

	(void)fd, (void)what;
	eventfd_drain(rt->wake_fd);
	pthread_mutex_lock(&rt->lock);
	for (;;) {
		struct remote_file *rf = rt->files;

		while (rf && (!rf->wake_pending || rf->closing))
			rf = rf->next;
		if (!rf)
			break;
		rf->wake_pending = 0;
		ffdvb_wake_fn fn = rf->base.wake;
		void *fn_ctx = rf->base.wake_ctx;

		pthread_mutex_unlock(&rt->lock);
		if (fn)
			fn(fn_ctx);
		pthread_mutex_lock(&rt->lock); /* the hook may have closed files: from the head */
	}
	pthread_mutex_unlock(&rt->lock);
}

/* ---------------------------------------------------------------- the worker */

static void run_call(struct remote_call *c)
{
	struct remote_file *rf = c->rf;

	switch (c->kind) {
	case CALL_OPEN:
		rf->open_result = remote_do_open(rf);
		remote_mark_wake(rf);
		free(c);
		return;
	case CALL_CLOSE:
		free(c);
		remote_do_close(rf);
		return;
	case CALL_IOCTL:
		c->result = rf->open_result < 0 ? rf->open_result : remote_do_ioctl(rf, &c->io);
		break;
	}
	c->done = 1;
	if (c->abandoned)
		free(c);
	else
		remote_mark_wake(rf);
}

static void submitted(evutil_socket_t fd, short what, void *ctx)
{
	struct remote_tuner *rt = ctx;

	(void)fd, (void)what;
	pthread_mutex_lock(&rt->lock);
	eventfd_drain(rt->submit_fd);
	while (rt->queue) {
		struct remote_call *c = rt->queue;

		rt->queue = c->next;
		if (!rt->queue)
			rt->queue_tail = &rt->queue;
		run_call(c); /* lets go of the lock while it waits: the loop may queue more */
	}
	remote_do_watch(rt);
	if (rt->stopping) {
		remote_do_stop(rt);
		event_base_loopbreak(rt->wbase);
	}
	pthread_mutex_unlock(&rt->lock);
}

static void *worker_main(void *arg)
{
	struct remote_tuner *rt = arg;

	event_base_dispatch(rt->wbase);
	return NULL;
}

int remote_calls_start(struct remote_tuner *rt, struct event_base *loop, char *err,
		       size_t errlen)
{
	sigset_t all, old;
	int r;

	rt->queue_tail = &rt->queue;
	rt->submit_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	rt->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	rt->wbase = event_base_new();
	if (rt->submit_fd < 0 || rt->wake_fd < 0 || !rt->wbase)
		goto fail;
	rt->submit_ev = event_new(rt->wbase, rt->submit_fd, EV_READ | EV_PERSIST, submitted, rt);
	rt->wake_ev = event_new(loop, rt->wake_fd, EV_READ | EV_PERSIST, wake_files, rt);
	if (!rt->submit_ev || !rt->wake_ev || event_add(rt->submit_ev, NULL) ||
	    event_add(rt->wake_ev, NULL))
		goto fail;
	/* signals are the daemon's loop's business */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	r = pthread_create(&rt->thread, NULL, worker_main, rt);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (r != 0) {
		errno = r;
		goto fail;
	}
	rt->thread_running = 1;
	return 0;
fail:
	snprintf(err, errlen, "remote:%s:%d: cannot start its thread: %s", rt->host, rt->port,
		 strerror(errno));
	remote_calls_stop(rt);
	return -1;
}

void remote_calls_stop(struct remote_tuner *rt)
{
	if (rt->thread_running) {
		pthread_mutex_lock(&rt->lock);
		rt->stopping = 1;
		/* a call waiting for a silent daemon ends now instead of at its timeout */
		if (rt->w)
			shutdown(dvbv5_wire_fd(rt->w), SHUT_RDWR);
		remote_poke(rt);
		pthread_mutex_unlock(&rt->lock);
		pthread_join(rt->thread, NULL);
		rt->thread_running = 0;
	}
	while (rt->queue) { /* none: every file was closed, and closes run before the stop */
		struct remote_call *c = rt->queue;

		rt->queue = c->next;
		free(c);
	}
	if (rt->submit_ev)
		event_free(rt->submit_ev);
	if (rt->wake_ev)
		event_free(rt->wake_ev);
	if (rt->idle_ev)
		event_free(rt->idle_ev);
	rt->submit_ev = rt->wake_ev = rt->idle_ev = NULL;
	if (rt->wbase)
		event_base_free(rt->wbase);
	rt->wbase = NULL;
	if (rt->submit_fd >= 0)
		close(rt->submit_fd);
	if (rt->wake_fd >= 0)
		close(rt->wake_fd);
	rt->submit_fd = rt->wake_fd = -1;
}
