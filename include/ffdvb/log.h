/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ffdvb's messages from every module (cuse, output, osd, tuners): one call with a syslog
 * priority, one sink. The daemon installs its logger as the sink (src/daemon/log.h: one
 * "ffdvbd: " prefix, the journal's <N> priority under systemd, the rate limit, -q/-v); without
 * a sink (tools, tests) the lines go to stderr as "ffdvb: TEXT". Thread-safe as the sink is. */
#ifndef FFDVB_LOG_H
#define FFDVB_LOG_H

#include <stdarg.h>

enum ffdvb_log_priority { /* syslog(3)'s numbers: the journal files them under these */
	FFDVB_LOG_ERR = 3,     /* something the user asked for does not work */
	FFDVB_LOG_WARNING = 4, /* refused or degraded: a client's bad input, a fallback */
	FFDVB_LOG_NOTICE = 5,  /* what was chosen: the output, the sound device */
	FFDVB_LOG_INFO = 6,    /* -v */
	FFDVB_LOG_DEBUG = 7,   /* -vv */
};

/* text: one line without its newline, the module's name first ("output: ...") */
typedef void (*ffdvb_log_sink_fn)(int priority, const char *text);

/* Before any thread starts: NULL restores stderr. */
void ffdvb_log_set_sink(ffdvb_log_sink_fn sink);

void ffdvb_log(int priority, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void ffdvb_vlog(int priority, const char *fmt, va_list ap);

#endif
