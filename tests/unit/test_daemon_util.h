/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Shared by the daemon's unit tests: ffdvbd's command line parsed from a NULL-terminated list
 * of arguments, with no default config file. */
#ifndef TEST_DAEMON_UTIL_H
#define TEST_DAEMON_UTIL_H

#include <stdarg.h>
#include <stddef.h>

#include "daemon/options.h"

static inline int parse(struct ffdvbd_options *o, ...)
{
	char *argv[32] = { "ffdvbd" };
	int argc = 1;
	va_list ap;

	va_start(ap, o);
	for (char *a; argc < 31 && (a = va_arg(ap, char *));)
		argv[argc++] = a;
	va_end(ap);
	argv[argc] = NULL;
	return ffdvbd_parse_options_with(argc, argv, NULL, o);
}

#endif
