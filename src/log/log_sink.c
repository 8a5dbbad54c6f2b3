/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The one door of every module's messages (ffdvb/log.h). */
#include <stdio.h>

#include "ffdvb/log.h"

#define LINE_MAX_BYTES 512

static ffdvb_log_sink_fn sink;

void ffdvb_log_set_sink(ffdvb_log_sink_fn fn)
{
	sink = fn;
}

void ffdvb_vlog(int priority, const char *fmt, va_list ap)
{
	char text[LINE_MAX_BYTES];

	vsnprintf(text, sizeof(text), fmt, ap);
	if (sink)
		sink(priority, text);
	else
		fprintf(stderr, "ffdvb: %s\n", text);
}

void ffdvb_log(int priority, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ffdvb_vlog(priority, fmt, ap);
	va_end(ap);
}
