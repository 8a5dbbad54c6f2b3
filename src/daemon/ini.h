/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A tight INI reader for ffdvbd.conf(5). What it accepts, and nothing more:
 *   [section]        a section line (blanks around the name are dropped)
 *   key = value      blanks around key and value are dropped; the value may be empty and may
 *                    contain '=', '#' and ';' (there are no inline comments and no quoting)
 *   # text, ; text   comment lines ('#' or ';' as the first non-blank character); blank lines
 * Anything else (a key before the first section, a line without '=', an unclosed '[', text
 * after ']', a NUL byte, a line longer than FFDVBD_INI_MAX_LINE) is a syntax error.
 * Debian's libinih was considered: it is built without the new-section callback (an empty
 * [adapter1] would be invisible), joins indented lines to the previous value and tells its
 * handler no line number, so ffdvbd keeps this small reader instead. */
#ifndef FFDVBD_INI_H
#define FFDVBD_INI_H

#include <stddef.h>
#include <stdio.h>

#define FFDVBD_INI_MAX_LINE 1024

struct ffdvbd_ini_handler {
	/* "[name]": return 0, or -1 after writing the reason to why[whylen] */
	int (*section)(void *ctx, const char *name, char *why, size_t whylen);
	/* "key = value" inside section: the same */
	int (*key)(void *ctx, const char *section, const char *key, const char *value, char *why,
		   size_t whylen);
};

/* Reads f to its end or to the first error. Returns 0, or -1 with "NAME:LINE: reason" in
 * err[errlen] (NAME names the file in messages). */
int ffdvbd_ini_parse(FILE *f, const char *name, const struct ffdvbd_ini_handler *h, void *ctx,
		     char *err, size_t errlen);

#endif
