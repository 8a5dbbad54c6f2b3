/* SPDX-License-Identifier: GPL-2.0-or-later */
/* SIGHUP: ffdvbd re-reads its config file. The command line is parsed again with the config
 * file as it is now (so the command line still wins), and the result is compared with the
 * running settings: what can change at run time is applied (the log level: log-level=, which
 * -v/-q on the command line override), every other difference is logged as needing a restart
 * (nodes, users, outputs and tuners are made once, at start). A config file with an error
 * changes nothing: its one-line message is logged and the running settings stay. */
#ifndef FFDVBD_RELOAD_H
#define FFDVBD_RELOAD_H

#include "options.h"

struct event_base;
struct ffdvbd_reload;

/* Applies what may change from next to *running and logs one line per difference ("reloaded
 * FILE: log-level verbose (was normal)", "FILE: adapter 0: osd-memsize changed: needs a
 * restart"), or that nothing changed. Returns the number of differences needing a restart. */
int ffdvbd_reload_apply(struct ffdvbd_options *running, const struct ffdvbd_options *next);

/* Watches SIGHUP on base; on each, parses argv (kept by reference: main's) with
 * default_config as ffdvbd did at start and applies the result to *running. NULL with errno
 * set when the signal cannot be watched. */
struct ffdvbd_reload *ffdvbd_reload_new(struct event_base *base, int argc, char **argv,
					const char *default_config,
					struct ffdvbd_options *running);
void ffdvbd_reload_free(struct ffdvbd_reload *r); /* accepts NULL */

/* What SIGHUP does, for tests: 0 when the file was read, -1 when it had an error. */
int ffdvbd_reload_now(struct ffdvbd_reload *r);

#endif
