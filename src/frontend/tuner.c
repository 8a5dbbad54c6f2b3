/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The tuner front door: picks the backend named by the spec's prefix and forwards to it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tuner_internal.h"

static const struct tuner_backend_ops *const backends[] = {
	&tuner_none_ops, &tuner_file_ops, &tuner_dvb_ops, &tuner_remote_ops,
};

struct ffdvb_tuner *ffdvb_tuner_new(struct event_base *base, const char *spec, char *err,
				    size_t errlen)
{
	const char *arg = NULL;
	const struct tuner_backend_ops *ops = NULL;
	struct ffdvb_tuner *t;

	if (!spec || !*spec)
		spec = "none";
	for (size_t i = 0; i < sizeof(backends) / sizeof(backends[0]) && !ops; i++) {
		size_t n = strlen(backends[i]->prefix);

		if (strncmp(spec, backends[i]->prefix, n) == 0 && (spec[n] == ':' || !spec[n])) {
			ops = backends[i];
			arg = spec[n] ? spec + n + 1 : "";
		}
	}
	if (!ops) {
		snprintf(err, errlen, "%s: unknown tuner (none, file:CHANNELS, dvb:ADAPTER[.FRONTEND] "
			 "or remote:HOST:PORT)", spec);
		errno = EINVAL;
		return NULL;
	}
	t = ops->create(base, arg, err, errlen);
	if (!t)
		return NULL;
	t->ops = ops;
	t->base = base;
	t->spec = strdup(spec);
	if (!t->spec) {
		ops->destroy(t);
		snprintf(err, errlen, "out of memory");
		errno = ENOMEM;
		return NULL;
	}
	return t;
}

void ffdvb_tuner_free(struct ffdvb_tuner *t)
{
	char *spec;

	if (!t)
		return;
	spec = t->spec;
	t->ops->destroy(t);
	free(spec);
}

const char *ffdvb_tuner_spec(const struct ffdvb_tuner *t)
{
	return t->spec;
}

int ffdvb_tuner_validates_demux(const struct ffdvb_tuner *t)
{
	return t->ops->validates_demux;
}

int ffdvb_tuner_open(struct ffdvb_tuner *t, enum ffdvb_tuner_dev dev, int flags,
		     struct ffdvb_tuner_file **out)
{
	int r = t->ops->open(t, dev, flags, out);

	if (r == 0) { /* an open under way (-FFDVB_EBLOCK) was filled in by its backend */
		(*out)->tuner = t;
		(*out)->dev = dev;
		(*out)->flags = flags;
		(*out)->wake = NULL;
		(*out)->wake_ctx = NULL;
	}
	return r;
}

int ffdvb_tuner_open_wait(struct ffdvb_tuner_file *f, int interrupted)
{
	return f->tuner->ops->open_wait ? f->tuner->ops->open_wait(f, interrupted) : 0;
}

void ffdvb_tuner_close(struct ffdvb_tuner_file *f)
{
	if (f)
		f->tuner->ops->close(f);
}

int ffdvb_tuner_ioctl(struct ffdvb_tuner_file *f, struct ffdvb_ioctl *io)
{
	return f->tuner->ops->ioctl(f, io);
}

ssize_t ffdvb_tuner_read(struct ffdvb_tuner_file *f, void *buf, size_t len)
{
	return f->tuner->ops->read(f, buf, len);
}

ssize_t ffdvb_tuner_write(struct ffdvb_tuner_file *f, const void *buf, size_t len)
{
	return f->tuner->ops->write ? f->tuner->ops->write(f, buf, len) : -EINVAL;
}

unsigned int ffdvb_tuner_poll(struct ffdvb_tuner_file *f)
{
	return f->tuner->ops->poll(f);
}

void ffdvb_tuner_set_wake(struct ffdvb_tuner_file *f, ffdvb_wake_fn fn, void *ctx)
{
	f->wake = fn;
	f->wake_ctx = ctx;
}

void tuner_file_wake(struct ffdvb_tuner_file *f)
{
	if (f->wake)
		f->wake(f->wake_ctx);
}

int ffdvb_tuner_status_json(struct ffdvb_tuner *t, char *buf, size_t len)
{
	return t->ops->status_json(t, buf, len);
}

void tuner_json_str(char *out, size_t n, const char *s)
{
	size_t j = 0;

	for (; s && *s && j + 7 < n; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			j += (size_t)snprintf(out + j, n - j, "\\%c", c);
		else if (c < 0x20)
			j += (size_t)snprintf(out + j, n - j, "\\u%04x", c);
		else
			out[j++] = (char)c;
	}
	out[j] = 0;
}
