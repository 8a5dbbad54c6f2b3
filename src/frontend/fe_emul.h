/* SPDX-License-Identifier: GPL-2.0-or-later */
/* An emulated frontend with dvb_frontend's rules (property cache, legacy calls, event queue,
 * one writer): the tuner-less card frontend of before, now shared by the none and file tuner
 * backends. The backend decides what a tune does (fe_emul_ops.tune) and sets the status. */
#ifndef FFDVB_FE_EMUL_H
#define FFDVB_FE_EMUL_H

#include <stdint.h>

#include <linux/dvb/frontend.h>

#include "ffdvb/node.h"

#define FE_EMUL_MAX_DELSYS 16
#define FE_EMUL_EVENTS 8 /* dvb_frontend's MAX_EVENT: 7 queued, then the oldest is dropped */

struct fe_emul;

struct fe_emul_ops {
	/* DTV_TUNE / FE_SET_FRONTEND after the checks, with status already 0 and a status-0
	 * event queued (as dvb_frontend does). */
	void (*tune)(struct fe_emul *fe, void *ctx);
	/* DTV_STAT_* while locked (NULL: no statistics); st is zeroed before */
	void (*stats)(struct fe_emul *fe, void *ctx, uint32_t cmd, struct dtv_fe_stats *st);
	/* an event was queued: wake every frontend file */
	void (*event)(struct fe_emul *fe, void *ctx);
};

struct fe_emul {
	uint8_t delsys[FE_EMUL_MAX_DELSYS];
	unsigned int n_delsys;
	uint32_t props[DTV_MAX_COMMAND + 1]; /* property cache; [DTV_DELIVERY_SYSTEM] is current */
	fe_status_t status;
	struct dvb_frontend_event events[FE_EMUL_EVENTS];
	unsigned int evr, evw;
	int ev_overflow;
	int writers; /* open read-write files (dvb_frontend: one) */
	int tune_event; /* queue dvb_frontend's status-0 event on a tune (the none tuner: no) */
	const struct fe_emul_ops *ops;
	void *ctx;
};

/* delsys: the delivery systems to announce, the first one current. */
void fe_emul_init(struct fe_emul *fe, const uint8_t *delsys, unsigned int n,
		  const struct fe_emul_ops *ops, void *ctx);
/* Open rule: -EBUSY for a second writer. Call fe_emul_release with the same flags. */
int fe_emul_open(struct fe_emul *fe, int flags);
void fe_emul_release(struct fe_emul *fe, int flags);
/* One ioctl of a file opened with flags; never blocks: -EAGAIN for FE_GET_EVENT without one. */
int fe_emul_ioctl(struct fe_emul *fe, int flags, struct ffdvb_ioctl *io);
unsigned int fe_emul_poll(const struct fe_emul *fe);
/* The backend's new status: queued as an event when it changed. */
void fe_emul_set_status(struct fe_emul *fe, fe_status_t status);
int fe_emul_is_satellite(uint32_t delsys);
/* "DVBT", "DVBS2", ... (libdvbv5's names); "?" for unknown. */
const char *fe_emul_delsys_name(uint32_t delsys);

#endif
