/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The call trace (trace.h). Listeners are control-socket connections; with none the layer only
 * forwards. Waiting calls (a blocked write, VIDEO_GET_EVENT without an event) are written once,
 * as "waits", and again when they complete. */
#include "trace.h"
#include "abi/ioctl_table.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>

#define MAX_LISTENERS 8
#define MAX_BACKLOG (1u << 20)

struct trace_node {
	struct ffdvbd_trace *t;
	enum ffdvb_node_type type;
	const struct ffdvb_node_ops *ops; /* the card's, looked up once */
	void *real;
};

struct trace_file {
	struct trace_node *node;
	void *real;
	unsigned int id;
	unsigned int mask;   /* last poll mask written */
	int waiting;         /* the last call said "waits": do not repeat it */
};

struct ffdvbd_trace {
	struct ffdvb_card *card;
	int adapter;
	struct trace_node nodes[FFDVB_NODE_COUNT];
	struct bufferevent *listeners[MAX_LISTENERS];
	unsigned int next_id;
};

static const struct ffdvb_node_ops *real_ops(const struct trace_node *n)
{
	return n->ops;
}

static int listening(const struct ffdvbd_trace *t)
{
	for (int i = 0; i < MAX_LISTENERS; i++)
		if (t->listeners[i])
			return 1;
	return 0;
}

static void emit(struct ffdvbd_trace *t, const struct trace_file *f, const char *fmt, ...)
{
	char line[512];
	struct timespec ts;
	va_list ap;
	int n;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	n = snprintf(line, sizeof(line), "%ld.%06ld adapter%d/%s#%u ", (long)ts.tv_sec,
		     ts.tv_nsec / 1000, t->adapter, ffdvb_node_name(f->node->type), f->id);
	va_start(ap, fmt);
	n += vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(line) - 2)
		n = (int)sizeof(line) - 2;
	line[n++] = '\n';
	/* a listener that does not read loses lines rather than filling our memory */
	for (int i = 0; i < MAX_LISTENERS; i++)
		if (t->listeners[i] &&
		    evbuffer_get_length(bufferevent_get_output(t->listeners[i])) < MAX_BACKLOG)
			bufferevent_write(t->listeners[i], line, (size_t)n);
}

/* "0", "188", "-EAGAIN", "waits" */
static const char *result(long r, char *buf, size_t len)
{
	static const struct { int e; const char *name; } errs[] = {
		{ EPERM, "EPERM" }, { ENOENT, "ENOENT" }, { EINTR, "EINTR" }, { EIO, "EIO" },
		{ EBADF, "EBADF" }, { EAGAIN, "EAGAIN" }, { ENOMEM, "ENOMEM" }, { EFAULT, "EFAULT" },
		{ EBUSY, "EBUSY" }, { ENODEV, "ENODEV" }, { EINVAL, "EINVAL" }, { EMFILE, "EMFILE" },
		{ ENOTTY, "ENOTTY" }, { ENOSPC, "ENOSPC" }, { ESPIPE, "ESPIPE" }, { ERANGE, "ERANGE" },
		{ ENOSYS, "ENOSYS" }, { ENODATA, "ENODATA" }, { ETIMEDOUT, "ETIMEDOUT" },
		{ EOVERFLOW, "EOVERFLOW" }, { EOPNOTSUPP, "EOPNOTSUPP" },
	};

	if (r == -FFDVB_EBLOCK)
		return "waits";
	if (r >= 0) {
		snprintf(buf, len, "%ld", r);
		return buf;
	}
	for (size_t i = 0; i < sizeof(errs) / sizeof(errs[0]); i++)
		if (errs[i].e == -r) {
			snprintf(buf, len, "-%s", errs[i].name);
			return buf;
		}
	snprintf(buf, len, "-%ld", -r);
	return buf;
}

/* a waiting call is written once; its retries only when the result changes */
static int worth_writing(struct trace_file *f, long r)
{
	int wait = r == -FFDVB_EBLOCK || r == -EAGAIN;

	if (wait && f->waiting)
		return 0;
	f->waiting = wait;
	return 1;
}

static int t_open(void *node, int flags, void **file)
{
	struct trace_node *n = node;
	struct trace_file *f = calloc(1, sizeof(*f));
	char rb[32];
	int r;

	if (!f)
		return -ENOMEM;
	f->node = n;
	f->id = ++n->t->next_id;
	r = real_ops(n)->open(n->real, flags, &f->real);
	if (listening(n->t))
		emit(n->t, f, "open(%s%s) = %s",
		     (flags & O_ACCMODE) == O_RDONLY ? "O_RDONLY"
		     : (flags & O_ACCMODE) == O_WRONLY ? "O_WRONLY"
						       : "O_RDWR",
		     (flags & O_NONBLOCK) ? "|O_NONBLOCK" : "", result(r, rb, sizeof(rb)));
	if (r < 0 && r != -FFDVB_EBLOCK) {
		free(f);
		return r;
	}
	*file = f;
	return r; /* -FFDVB_EBLOCK: a remote tuner answers later, through t_open_wait */
}

static int t_open_wait(void *file, int interrupted)
{
	struct trace_file *f = file;
	int r = real_ops(f->node)->open_wait(f->real, interrupted);
	char rb[32];

	if (r != -FFDVB_EBLOCK && listening(f->node->t))
		emit(f->node->t, f, "open = %s", result(r, rb, sizeof(rb)));
	return r;
}

static void t_release(void *file)
{
	struct trace_file *f = file;

	real_ops(f->node)->release(f->real);
	if (listening(f->node->t))
		emit(f->node->t, f, "close");
	free(f);
}

static ssize_t t_read(void *file, void *buf, size_t len, int nonblock)
{
	struct trace_file *f = file;
	ssize_t r = real_ops(f->node)->read(f->real, buf, len, nonblock);
	char rb[32];

	if (listening(f->node->t) && worth_writing(f, r))
		emit(f->node->t, f, "read(%zu) = %s", len, result(r, rb, sizeof(rb)));
	return r;
}

static ssize_t t_write(void *file, const void *buf, size_t len, int nonblock)
{
	struct trace_file *f = file;
	ssize_t r = real_ops(f->node)->write(f->real, buf, len, nonblock);
	char rb[32];

	if (r == -EXDEV)
		return r; /* not taken in the node's room: the transport calls again at once */
	if (listening(f->node->t) && worth_writing(f, r))
		emit(f->node->t, f, "write(%zu) = %s", len, result(r, rb, sizeof(rb)));
	return r;
}

static int t_ioctl(void *file, struct ffdvb_ioctl *io)
{
	struct trace_file *f = file;
	int r = real_ops(f->node)->ioctl(f->real, io);
	const struct ffdvb_ioctl_info *info;
	const char *name;
	char rb[32], unknown[24], arg[48];

	if (!listening(f->node->t) || !worth_writing(f, r))
		return r;
	/* this node's name of the number first, else any node's (a client's mistake) */
	info = ffdvb_ioctl_find((int)f->node->type, io->cmd);
	name = info ? info->name : ffdvb_ioctl_name(io->cmd);
	if (!name) {
		snprintf(unknown, sizeof(unknown), "0x%08x", io->cmd);
		name = unknown;
	}
	if (_IOC_SIZE(io->cmd) == 0)
		snprintf(arg, sizeof(arg), "%lu", io->arg);
	else if (io->data || io->data_fault)
		snprintf(arg, sizeof(arg), "{...}, %zu bytes%s", io->data_len,
			 io->data_fault ? " unreadable" : "");
	else
		snprintf(arg, sizeof(arg), "{...}");
	emit(f->node->t, f, "ioctl %s(%s) = %s", name, arg, result(r, rb, sizeof(rb)));
	return r;
}

static void mask_names(unsigned int m, char *buf, size_t len)
{
	static const struct { unsigned int bit; const char *name; } bits[] = {
		{ POLLIN, "POLLIN" }, { POLLPRI, "POLLPRI" }, { POLLOUT, "POLLOUT" },
		{ POLLERR, "POLLERR" }, { POLLHUP, "POLLHUP" },
	};
	size_t n = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < sizeof(bits) / sizeof(bits[0]); i++)
		if (m & bits[i].bit)
			n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? "|" : "", bits[i].name);
	if (!n)
		snprintf(buf, len, "0");
}

/* the transport asks again after every wake-up: only changes are written */
static unsigned int t_poll(void *file)
{
	struct trace_file *f = file;
	unsigned int m = real_ops(f->node)->poll(f->real);
	char names[64];

	if (m != f->mask && listening(f->node->t)) {
		mask_names(m, names, sizeof(names));
		emit(f->node->t, f, "poll mask %s", names);
	}
	f->mask = m;
	return m;
}

static void *t_write_room(void *node, size_t *len)
{
	struct trace_node *n = node;

	return real_ops(n)->write_room ? real_ops(n)->write_room(n->real, len) : NULL;
}

static const struct ffdvb_node_ops trace_ops = {
	.open = t_open,
	.open_wait = t_open_wait,
	.release = t_release,
	.read = t_read,
	.write = t_write,
	.write_room = t_write_room,
	.ioctl = t_ioctl,
	.poll = t_poll,
};

const struct ffdvb_node_ops *ffdvbd_trace_ops(void)
{
	return &trace_ops;
}

struct ffdvbd_trace *ffdvbd_trace_new(struct ffdvb_card *card, int adapter)
{
	struct ffdvbd_trace *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->card = card;
	t->adapter = adapter;
	for (int i = 0; i < FFDVB_NODE_COUNT; i++) {
		t->nodes[i].t = t;
		t->nodes[i].type = (enum ffdvb_node_type)i;
		t->nodes[i].ops = ffdvb_card_node_ops((enum ffdvb_node_type)i);
		t->nodes[i].real = ffdvb_card_node(card, (enum ffdvb_node_type)i);
	}
	return t;
}

void ffdvbd_trace_free(struct ffdvbd_trace *t)
{
	free(t);
}

void *ffdvbd_trace_node(struct ffdvbd_trace *t, enum ffdvb_node_type type)
{
	return &t->nodes[type];
}

int ffdvbd_trace_listen(struct ffdvbd_trace *t, struct bufferevent *bev)
{
	for (int i = 0; i < MAX_LISTENERS; i++)
		if (!t->listeners[i]) {
			t->listeners[i] = bev;
			return 0;
		}
	return -EBUSY;
}

void ffdvbd_trace_unlisten(struct ffdvbd_trace *t, struct bufferevent *bev)
{
	for (int i = 0; i < MAX_LISTENERS; i++)
		if (t->listeners[i] == bev)
			t->listeners[i] = NULL;
}
