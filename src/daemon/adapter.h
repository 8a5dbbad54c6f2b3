/* SPDX-License-Identifier: GPL-2.0-or-later */
/* One emulated adapter of the running daemon: its card (with its decoder), the six CUSE
 * nodes /dev/dvb/adapterN/... with their final owner and mode, and its control socket. */
#ifndef FFDVBD_ADAPTER_H
#define FFDVBD_ADAPTER_H

#include "options.h"

struct event_base;
struct ffdvbd_adapter;

/* 0 when devdir ("/dev")/dvb/adapterN holds nothing (or does not exist); else -EBUSY with
 * "ffdvbd: adapter N is taken: PATH exists" on stderr (one of our node names first).
 * Checked for every adapter before any is created, so that a taken number leaves nothing
 * half-made. */
int ffdvbd_adapter_check_free(const char *devdir, int adapter);

/* Creates card, nodes (waiting until each exists with owner, group and mode) and control
 * socket. NULL after a message on stderr; whatever was made is undone. */
struct ffdvbd_adapter *ffdvbd_adapter_new(struct event_base *base,
					  const struct ffdvbd_adapter_options *a, int verbose);

/* --record: writes the presentation record of the adapter's decoder to its folder. */
void ffdvbd_adapter_write_record(struct ffdvbd_adapter *ad);

/* Removes the control socket and the nodes, frees the card. Accepts NULL. */
void ffdvbd_adapter_free(struct ffdvbd_adapter *ad);

#endif
