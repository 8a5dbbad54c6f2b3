/* The control socket of ffdvbd: a unix stream socket; a client writes one command line
 * ("status" or "status --json"), the daemon writes the answer and closes. Answers to unknown
 * commands start with "error: ". Runs on the daemon's event loop. */
#ifndef FFDVBD_CONTROL_H
#define FFDVBD_CONTROL_H

#include <sys/types.h>

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

/* The adapter's call trace, streamed to clients that send "trace". */
struct ffdvbd_trace;
void ffdvbd_control_set_trace(struct ffdvbd_control *ctl, struct ffdvbd_trace *trace);

/* Closes the clients and the socket and removes the socket file. Accepts NULL. */
void ffdvbd_control_free(struct ffdvbd_control *ctl);

#endif
