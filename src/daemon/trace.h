/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ffdvbd's call trace (ffdvbctl trace): a layer of node operations between the CUSE transport
 * and the card that forwards every call and, while someone listens on the control socket,
 * writes one line per open, close, read, write, ioctl and poll-mask change: the node, the
 * file (#id), the request's name and argument, and the result with its errno name. */
#ifndef FFDVBD_TRACE_H
#define FFDVBD_TRACE_H

#include "ffdvb/card.h"
#include "ffdvb/node.h"

struct bufferevent;
struct ffdvbd_trace;

/* Wraps the card's nodes; NULL on allocation failure. */
struct ffdvbd_trace *ffdvbd_trace_new(struct ffdvb_card *card, int adapter);
void ffdvbd_trace_free(struct ffdvbd_trace *t);

/* What to hand the transport instead of ffdvb_card_node_ops(type) / ffdvb_card_node(). */
const struct ffdvb_node_ops *ffdvbd_trace_ops(void);
void *ffdvbd_trace_node(struct ffdvbd_trace *t, enum ffdvb_node_type type);

/* Streams the trace to bev until it fails (the listener went away). 0 or -errno. */
int ffdvbd_trace_listen(struct ffdvbd_trace *t, struct bufferevent *bev);
/* Stops streaming to bev (the control socket frees it). */
void ffdvbd_trace_unlisten(struct ffdvbd_trace *t, struct bufferevent *bev);

#endif
