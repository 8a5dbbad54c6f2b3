/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The control socket's command line, parsed without the event loop (control.c feeds it the
 * client's bytes; tests/unit/test_control_fuzz.c feeds it anything). */
#ifndef FFDVBD_CONTROL_CMD_H
#define FFDVBD_CONTROL_CMD_H

#include <stddef.h>

/* longest command line; a longer one is answered as unknown "(command too long)" */
#define FFDVBD_CONTROL_MAX_COMMAND 256

enum ffdvbd_cmd {
	FFDVBD_CMD_UNKNOWN,     /* answered "error: unknown command '...'" */
	FFDVBD_CMD_TOO_LONG,    /* likewise, line is "(command too long)" */
	FFDVBD_CMD_STATUS,      /* status */
	FFDVBD_CMD_STATUS_JSON, /* status --json */
	FFDVBD_CMD_TRACE,       /* trace */
	FFDVBD_CMD_SCREENSHOT,  /* screenshot (slow: worker thread) */
	FFDVBD_CMD_RECORD,      /* record (slow: worker thread) */
	FFDVBD_CMD_DECODER,     /* decoder */
	FFDVBD_CMD_OSD_PLANE,   /* osd-plane */
	FFDVBD_CMD_OSD_WINDOW,  /* osd-window N */
};

struct ffdvbd_command {
	enum ffdvbd_cmd cmd;
	int window; /* osd-window's N, leniently like atoi; -1 when it does not fit an int */
	/* the line without its end (a C string: it stops at a NUL the client sent) */
	char line[FFDVBD_CONTROL_MAX_COMMAND + 1];
};

/* The command in the first len bytes a client sent (eof: it sends no more). A line ends at
 * the first '\r' or '\n'; without one, at the end of the bytes when eof. Only the first
 * FFDVBD_CONTROL_MAX_COMMAND + 1 bytes are looked at, so the answer does not depend on how
 * the bytes were split into reads. Returns 1 with *out filled (a line longer than the limit
 * gives FFDVBD_CMD_TOO_LONG), 0 when more bytes are needed, -1 when there is nothing to
 * answer (eof with no byte). buf may be NULL when len is 0. */
int ffdvbd_control_take(const char *buf, size_t len, int eof, struct ffdvbd_command *out);

/* Names the command in line (a C string) and its argument; copies line (cut to the limit). */
void ffdvbd_control_parse(const char *line, struct ffdvbd_command *out);

/* screenshot and record run on a worker thread */
static inline int ffdvbd_cmd_is_slow(enum ffdvbd_cmd cmd)
{
	return cmd == FFDVBD_CMD_SCREENSHOT || cmd == FFDVBD_CMD_RECORD;
}

#endif
