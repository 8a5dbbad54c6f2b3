/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The control socket of ffdvbd: a unix stream socket; a client writes one command line
 * ("status" or "status --json"), the daemon writes the answer and closes. Answers to unknown
 * commands start with "error: ". Runs on the daemon's event loop. */
#ifndef FFDVBD_CONTROL_H
#define FFDVBD_CONTROL_H

#include <stddef.h>
#include <sys/types.h>

/* Limits (ffdvbd.conf(5), LIMITS): clients served at once (more wait in the listen backlog
 * until one is done; a client that sends no line or reads no answer for 5 s is dropped), and
 * the bytes of answers waiting for slow readers, all clients together (a command whose answer
 * would exceed it gets "error: busy: ..."). A trace listener that reads nothing for 30 s while
 * lines wait loses its slot. Out of descriptors, accepting pauses for 1 s. */
#define FFDVBD_CONTROL_CLIENTS_MAX 32
#define FFDVBD_CONTROL_ANSWER_BYTES_MAX (16u << 20)

struct event_base;
struct ffdvb_card;
struct ffdvbd_control;

/* Creates the socket's folder (like mkdir -p), replaces a stale socket (one nobody answers
 * on) and listens; the socket gets group gid and mode 0660, like the nodes, so that their
 * users can ask for the status. Returns NULL with errno set and a message on stderr;
 * EADDRINUSE when another daemon answers on path. */
struct ffdvbd_control *ffdvbd_control_new(struct event_base *base, const char *path, gid_t gid,
					  struct ffdvb_card *card);

/* The folder the "record" command writes to (kept by reference), NULL = none. */
void ffdvbd_control_set_record_dir(struct ffdvbd_control *ctl, const char *dir);

/* The adapter's decoder (outlives the control socket), for the decoder, screenshot and record
 * commands; NULL (the default): none, ffdvbd runs with --no-decode. */
struct ffdvb_decoder;
void ffdvbd_control_set_decoder(struct ffdvbd_control *ctl, struct ffdvb_decoder *dec);

/* The adapter's call trace, streamed to clients that send "trace". */
struct ffdvbd_trace;
void ffdvbd_control_set_trace(struct ffdvbd_control *ctl, struct ffdvbd_trace *trace);

/* What the socket holds now (tests, status). */
struct ffdvbd_control_usage {
	int clients;           /* connections being served */
	size_t answer_bytes;   /* answers not yet handed to the kernel */
	unsigned accept_pauses; /* times accepting paused for lack of descriptors */
};
void ffdvbd_control_get_usage(const struct ffdvbd_control *ctl, struct ffdvbd_control_usage *u);

/* Closes the clients and the socket and removes the socket file. Accepts NULL. */
void ffdvbd_control_free(struct ffdvbd_control *ctl);

#endif
