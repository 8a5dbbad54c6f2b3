/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The INI reader of ffdvbd.conf (ini.h). */
#include "ini.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* drops leading and trailing blanks in place */
static char *trim(char *s)
{
	char *end;

	while (isspace((unsigned char)*s))
		s++;
	end = s + strlen(s);
	while (end > s && isspace((unsigned char)end[-1]))
		*--end = '\0';
	return s;
}

/* One line without its newline: 0, or -1 with the reason in why. */
static int parse_line(char *line, char *section, const struct ffdvbd_ini_handler *h, void *ctx,
		      char *why, size_t whylen)
{
	char *s = trim(line), *eq;

	if (*s == '\0' || *s == '#' || *s == ';')
		return 0;
	if (*s == '[') {
		char *close = strchr(s, ']');

		if (!close || close[1] != '\0') {
			snprintf(why, whylen, "expected '[section]' alone on its line");
			return -1;
		}
		*close = '\0';
		s = trim(s + 1);
		if (*s == '\0') {
			snprintf(why, whylen, "empty section name");
			return -1;
		}
		snprintf(section, FFDVBD_INI_MAX_LINE, "%s", s);
		return h->section(ctx, section, why, whylen);
	}
	eq = strchr(s, '=');
	if (!eq) {
		snprintf(why, whylen, "expected 'key = value', '[section]' or a comment");
		return -1;
	}
	*eq = '\0';
	char *key = trim(s), *value = trim(eq + 1);

	if (*key == '\0') {
		snprintf(why, whylen, "'=' without a key");
		return -1;
	}
	if (*section == '\0') {
		snprintf(why, whylen, "'%.64s' before the first [section]", key);
		return -1;
	}
	return h->key(ctx, section, key, value, why, whylen);
}

int ffdvbd_ini_parse(FILE *f, const char *name, const struct ffdvbd_ini_handler *h, void *ctx,
		     char *err, size_t errlen)
{
	char *line = NULL, why[256], section[FFDVBD_INI_MAX_LINE];
	size_t cap = 0;
	ssize_t n;
	unsigned int lineno = 0;
	int rc = 0;

	section[0] = '\0';
	while ((n = getline(&line, &cap, f)) >= 0) {
		lineno++;
		why[0] = '\0';
		if ((size_t)n > FFDVBD_INI_MAX_LINE) {
			snprintf(why, sizeof(why), "line longer than %d bytes", FFDVBD_INI_MAX_LINE);
			rc = -1;
		} else if (strlen(line) != (size_t)n) {
			snprintf(why, sizeof(why), "NUL byte in the line");
			rc = -1;
		} else {
			if (n > 0 && line[n - 1] == '\n')
				line[--n] = '\0';
			rc = parse_line(line, section, h, ctx, why, sizeof(why));
		}
		if (rc < 0) {
			snprintf(err, errlen, "%s:%u: %s", name, lineno, why[0] ? why : "invalid line");
			break;
		}
	}
	if (rc == 0 && ferror(f)) {
		snprintf(err, errlen, "%s: read error", name);
		rc = -1;
	}
	free(line);
	return rc;
}
