/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer target for the control socket's command parser (src/daemon/control_cmd.c): any
 * bytes a client sends give at most one command, whatever way they are split into reads; the
 * command line is a prefix of the bytes up to the first end of line, within the limit, and is
 * named as an independent reading of the protocol (control.h, media.h) names it; a command
 * written back in its plain form parses to itself. A violation aborts; ASan/UBSan catch
 * memory errors. */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "control_cmd.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX FFDVBD_CONTROL_MAX_COMMAND

#define CHECK(cond)                                                                       \
	do {                                                                              \
		if (!(cond)) {                                                            \
			fprintf(stderr, "test_control_fuzz: %s:%d: %s\n", __FILE__, __LINE__, \
				#cond);                                                   \
			abort();                                                          \
		}                                                                         \
	} while (0)

/* the protocol as documented, written apart from control_cmd.c: exact words, and
 * "osd-window " followed by a number read like strtol (out of int range: -1) */
static enum ffdvbd_cmd expected_cmd(const char *line, int *window)
{
	static const char *const words[] = { "status", "status --json", "trace", "screenshot",
					     "record", "decoder", "osd-plane" };
	static const enum ffdvbd_cmd cmds[] = { FFDVBD_CMD_STATUS, FFDVBD_CMD_STATUS_JSON,
						FFDVBD_CMD_TRACE, FFDVBD_CMD_SCREENSHOT,
						FFDVBD_CMD_RECORD, FFDVBD_CMD_DECODER,
						FFDVBD_CMD_OSD_PLANE };

	*window = 0;
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (!strcmp(line, words[i]))
			return cmds[i];
	if (strncmp(line, "osd-window ", 11))
		return FFDVBD_CMD_UNKNOWN;
	long v = strtol(line + 11, NULL, 10); /* saturates at LONG_MIN/MAX: out of range too */

	*window = v < INT_MIN || v > INT_MAX ? -1 : (int)v;
	return FFDVBD_CMD_OSD_WINDOW;
}

static int same(const struct ffdvbd_command *a, const struct ffdvbd_command *b)
{
	return a->cmd == b->cmd && a->window == b->window && !strcmp(a->line, b->line);
}

static const char *plain_form(const struct ffdvbd_command *c, char *buf, size_t len)
{
	switch (c->cmd) {
	case FFDVBD_CMD_STATUS: return "status";
	case FFDVBD_CMD_STATUS_JSON: return "status --json";
	case FFDVBD_CMD_TRACE: return "trace";
	case FFDVBD_CMD_SCREENSHOT: return "screenshot";
	case FFDVBD_CMD_RECORD: return "record";
	case FFDVBD_CMD_DECODER: return "decoder";
	case FFDVBD_CMD_OSD_PLANE: return "osd-plane";
	case FFDVBD_CMD_OSD_WINDOW:
		snprintf(buf, len, "osd-window %d", c->window);
		return buf;
	default: return NULL;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *buf = (const char *)data;
	struct ffdvbd_command whole, part, again;
	size_t eol = 0;

	while (eol < size && buf[eol] != '\r' && buf[eol] != '\n')
		eol++;

	/* everything at once, then the client closed */
	memset(&whole, 0x55, sizeof(whole));
	int r = ffdvbd_control_take(size ? buf : NULL, size, 1, &whole);

	CHECK(r == 1 || r == -1);
	CHECK((r == -1) == (size == 0));
	if (r == -1)
		return 0;
	size_t n = strlen(whole.line); /* NUL-terminated within the array */

	CHECK(n <= MAX);
	CHECK(!strchr(whole.line, '\r') && !strchr(whole.line, '\n'));
	if (eol > MAX) { /* no end of line within the limit */
		CHECK(whole.cmd == FFDVBD_CMD_TOO_LONG);
		CHECK(!strcmp(whole.line, "(command too long)"));
	} else {
		/* the line up to its end (or its first NUL), nothing else */
		CHECK(n <= eol && !memcmp(whole.line, buf, n));
		CHECK(n == eol || buf[n] == '\0');
		int window;
		enum ffdvbd_cmd want = expected_cmd(whole.line, &window);

		CHECK(whole.cmd == want);
		CHECK(whole.window == window);
	}

	/* the same bytes arriving one more at a time: no answer until the whole buffer's, then
	 * that one; bytes past the limit + 1 change nothing */
	int answered = 0;

	for (size_t k = 0; k <= size && !answered; k++) {
		r = ffdvbd_control_take(k ? buf : NULL, k, 0, &part);
		CHECK(r == 0 || r == 1);
		if (r == 1) {
			CHECK(same(&part, &whole));
			CHECK(k == (eol < k ? eol + 1 : MAX + 1));
			answered = 1;
		}
	}
	CHECK(answered == (eol < size || size > MAX));
	if (size > MAX + 1) {
		r = ffdvbd_control_take(buf, MAX + 1, 0, &part);
		CHECK(r == 1 && same(&part, &whole));
	}

	/* the plain form of a known command, and its parse, say the same */
	char text[64];
	const char *plain = plain_form(&whole, text, sizeof(text));

	if (plain) {
		char line[80];
		int len = snprintf(line, sizeof(line), "%s\r\n", plain);

		CHECK(ffdvbd_control_take(line, (size_t)len, 0, &again) == 1);
		CHECK(again.cmd == whole.cmd && again.window == whole.window);
		CHECK(!strcmp(again.line, plain));
	}
	/* parsing a parsed line gives the same command */
	ffdvbd_control_parse(whole.line, &again);
	if (whole.cmd != FFDVBD_CMD_TOO_LONG)
		CHECK(same(&again, &whole));
	return 0;
}
