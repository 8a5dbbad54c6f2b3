/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer target for the config file reader (src/daemon/ini.c): any bytes give 0 or -1 with
 * a "NAME:LINE: reason" message; sections and keys handed over are non-empty, NUL-free,
 * without surrounding blanks and within FFDVBD_INI_MAX_LINE; the line number of an error is
 * one of the input's lines. A violation aborts; ASan/UBSan catch memory errors. */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ini.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_name(const char *s)
{
	size_t n = strlen(s);

	if (n > FFDVBD_INI_MAX_LINE || (n && (isspace((unsigned char)s[0]) ||
					       isspace((unsigned char)s[n - 1]))))
		abort();
}

static int on_section(void *ctx, const char *name, char *why, size_t whylen)
{
	(void)ctx;
	check_name(name);
	if (!strcmp(name, "refuse")) { /* a handler's own refusal travels out */
		snprintf(why, whylen, "refused");
		return -1;
	}
	return 0;
}

static int on_key(void *ctx, const char *section, const char *key, const char *value, char *why,
		  size_t whylen)
{
	(void)ctx;
	(void)why;
	(void)whylen;
	check_name(section);
	check_name(key);
	if (!*key)
		abort();
	check_name(value);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct ffdvbd_ini_handler h = { on_section, on_key };
	char err[256] = "";
	FILE *f = fmemopen((void *)data, size ? size : 1, "r");

	if (!f)
		return 0;
	if (!size)
		fgetc(f); /* fmemopen needs a size: read the one byte away */
	int r = ffdvbd_ini_parse(f, "fuzz.conf", &h, NULL, err, sizeof(err));

	fclose(f);
	if (r != 0 && r != -1)
		abort();
	if (r == -1) {
		unsigned long line;

		if (sscanf(err, "fuzz.conf:%lu:", &line) != 1 || line == 0)
			abort();
		size_t lines = 1;

		for (size_t i = 0; i < size; i++)
			lines += data[i] == '\n';
		if (line > lines)
			abort();
	}
	return 0;
}
