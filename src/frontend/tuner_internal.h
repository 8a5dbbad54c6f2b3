/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Backends behind include/ffdvb/tuner.h. tuner.c parses the spec, picks a backend and forwards
 * every public call to its ops; a backend embeds struct ffdvb_tuner / ffdvb_tuner_file as the
 * first member of its own structs. */
#ifndef FFDVB_TUNER_INTERNAL_H
#define FFDVB_TUNER_INTERNAL_H

#include "ffdvb/tuner.h"

struct tuner_backend_ops {
	const char *prefix; /* "none", "file", "dvb", "remote" */
	int validates_demux;
	/* arg: the spec after "PREFIX:" ("" for none). Returns the tuner or NULL with err set. */
	struct ffdvb_tuner *(*create)(struct event_base *base, const char *arg, char *err,
				      size_t errlen);
	void (*destroy)(struct ffdvb_tuner *t);
	int (*open)(struct ffdvb_tuner *t, enum ffdvb_tuner_dev dev, int flags,
		    struct ffdvb_tuner_file **out);
	/* NULL when open never returns -FFDVB_EBLOCK */
	int (*open_wait)(struct ffdvb_tuner_file *f, int interrupted);
	void (*close)(struct ffdvb_tuner_file *f);
	int (*ioctl)(struct ffdvb_tuner_file *f, struct ffdvb_ioctl *io);
	ssize_t (*read)(struct ffdvb_tuner_file *f, void *buf, size_t len);
	ssize_t (*write)(struct ffdvb_tuner_file *f, const void *buf, size_t len);
	unsigned int (*poll)(struct ffdvb_tuner_file *f);
	int (*status_json)(struct ffdvb_tuner *t, char *buf, size_t len);
};

struct ffdvb_tuner {
	const struct tuner_backend_ops *ops;
	struct event_base *base;
	char *spec;
};

struct ffdvb_tuner_file {
	struct ffdvb_tuner *tuner;
	enum ffdvb_tuner_dev dev;
	int flags;
	ffdvb_wake_fn wake;
	void *wake_ctx;
};

/* s as the inside of a JSON string (quotes, backslashes and control characters escaped),
 * truncated to fit out[n]; NULL is "". For the status of specs, names and hosts a user typed. */
void tuner_json_str(char *out, size_t n, const char *s);

/* Nonzero for the requests the dvb: backend passes to the real device dev (the DVB API's
 * frontend, dmxdev and dvr requests); any other is ENOTTY, as the kernel answers unknown ones. */
int tuner_dvb_forwards(enum ffdvb_tuner_dev dev, unsigned int cmd);

/* Calls the file's wake hook if one is set (backends use this from their event callbacks). */
void tuner_file_wake(struct ffdvb_tuner_file *f);

extern const struct tuner_backend_ops tuner_none_ops;   /* tuner_none.c */
extern const struct tuner_backend_ops tuner_file_ops;   /* tuner_file.c */
extern const struct tuner_backend_ops tuner_dvb_ops;    /* tuner_dvb.c */
extern const struct tuner_backend_ops tuner_remote_ops; /* tuner_remote*.c */

#endif
