/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Parsing of the control socket's command line: framing of the client's bytes and the
 * command's name and argument; pure functions, no I/O (control_cmd.h). */
#include "control_cmd.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

/* atoi's reading of N (blanks, a sign, digits, anything after ignored), but a number that
 * does not fit an int gives -1 (not 1..7: refused) instead of atoi's undefined value, which
 * could wrap to a valid window */
static int window_number(const char *s)
{
	long long v = 0;
	int neg = 0;

	while (isspace((unsigned char)*s))
		s++;
	if (*s == '+' || *s == '-')
		neg = *s++ == '-';
	for (; *s >= '0' && *s <= '9'; s++) {
		v = v * 10 + (*s - '0');
		if (v > (long long)INT_MAX + 1)
			return -1;
	}
	if (neg)
		v = -v;
	return v < INT_MIN || v > INT_MAX ? -1 : (int)v;
}

void ffdvbd_control_parse(const char *line, struct ffdvbd_command *out)
{
	static const struct {
		const char *name;
		enum ffdvbd_cmd cmd;
	} exact[] = {
		{ "status", FFDVBD_CMD_STATUS },
		{ "status --json", FFDVBD_CMD_STATUS_JSON },
		{ "trace", FFDVBD_CMD_TRACE },
		{ "screenshot", FFDVBD_CMD_SCREENSHOT },
		{ "record", FFDVBD_CMD_RECORD },
		{ "decoder", FFDVBD_CMD_DECODER },
		{ "osd-plane", FFDVBD_CMD_OSD_PLANE },
	};

	snprintf(out->line, sizeof(out->line), "%s", line);
	out->cmd = FFDVBD_CMD_UNKNOWN;
	out->window = 0;
	for (size_t i = 0; i < sizeof(exact) / sizeof(exact[0]); i++) {
		if (!strcmp(out->line, exact[i].name)) {
			out->cmd = exact[i].cmd;
			return;
		}
	}
	if (!strncmp(out->line, "osd-window ", 11)) {
		out->cmd = FFDVBD_CMD_OSD_WINDOW;
		out->window = window_number(out->line + 11);
	}
}

int ffdvbd_control_take(const char *buf, size_t len, int eof, struct ffdvbd_command *out)
{
	size_t look = len < FFDVBD_CONTROL_MAX_COMMAND + 1 ? len : FFDVBD_CONTROL_MAX_COMMAND + 1;
	size_t n = 0;
	char line[FFDVBD_CONTROL_MAX_COMMAND + 1];

	while (n < look && buf[n] != '\r' && buf[n] != '\n')
		n++;
	if (n == look) { /* no end of line in sight */
		if (len > FFDVBD_CONTROL_MAX_COMMAND) {
			ffdvbd_control_parse("(command too long)", out);
			out->cmd = FFDVBD_CMD_TOO_LONG;
			return 1;
		}
		if (!eof)
			return 0;
		if (!len)
			return -1;
	}
	memcpy(line, buf, n); /* n <= FFDVBD_CONTROL_MAX_COMMAND here */
	line[n] = '\0';
	ffdvbd_control_parse(line, out);
	return 1;
}
