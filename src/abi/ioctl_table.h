/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ffdvb ABI table: every ioctl request ffdvb knows, per node: its name, number and what ffdvb
 * does with it. The one table behind the trace's request names (src/daemon/trace.c), the
 * support matrix that `ffdvbctl ioctls` prints and README.md carries (test_ioctl_matrix
 * compares them), and test_ioctl_card, which drives the card with every row and checks that
 * a request marked ENOTTY/EINVAL gets exactly that errno and every other one does not get
 * ENOTTY. */
#ifndef FFDVB_IOCTL_TABLE_H
#define FFDVB_IOCTL_TABLE_H

#include <stddef.h>
#include <stdio.h>

#include "ffdvb/node.h"

enum ffdvb_ioctl_support {
	FFDVB_IOCTL_EMULATED, /* the card does what av7110 does */
	FFDVB_IOCTL_IGNORED,  /* accepted and ignored: 0, as av7110 answers */
	FFDVB_IOCTL_DMXDEV,   /* dmxdev's rules emulated by the card, then forwarded to the tuner */
	FFDVB_IOCTL_TUNER,    /* forwarded to the tuner: its device's answer */
	FFDVB_IOCTL_TUNER_HW, /* forwarded to the tuner; only a real card's (dvb:, remote:) knows
				 it: the emulated frontends of none and file answer ENOTTY */
	FFDVB_IOCTL_COMPAT,   /* a 32-bit caller's layout: the transport converts it to .native */
	FFDVB_IOCTL_ENOTTY,   /* not on av7110 (or removed from dvb-core): ENOTTY as there */
	FFDVB_IOCTL_EINVAL,   /* unknown to av7110's osd0: EINVAL as there (not ENOTTY) */
};

#define FFDVB_IOCTL_ANY 0u /* .cmd of a node's "any other request" row */

struct ffdvb_ioctl_info {
	enum ffdvb_node_type node;
	const char *name;      /* "VIDEO_PLAY"; "(any other)" for FFDVB_IOCTL_ANY */
	unsigned int cmd;      /* the request number of this build's ABI (x86_64: as in the
				  kernel's headers; the *32 rows: the i386 number) */
	unsigned int native;   /* FFDVB_IOCTL_COMPAT: the native request the card gets */
	enum ffdvb_ioctl_support support;
	const char *note;      /* a few words for the matrix, or NULL */
};

extern const struct ffdvb_ioctl_info ffdvb_ioctls[];
extern const size_t ffdvb_n_ioctls;

/* The row of cmd on node (the first with that number on any node when node is out of range),
 * NULL when unknown. */
const struct ffdvb_ioctl_info *ffdvb_ioctl_find(int node, unsigned int cmd);

/* "VIDEO_PLAY", "FE_GET_INFO", ... or NULL (the trace's names) */
const char *ffdvb_ioctl_name(unsigned int cmd);

/* "emulated as av7110", "forwarded to the tuner", "ENOTTY as on av7110", ... */
const char *ffdvb_ioctl_support_text(enum ffdvb_ioctl_support s);

/* The errno a request of this support state must give with the "none" tuner (ENOTTY,
 * EINVAL), 0 for a supported one. For COMPAT rows: the state of the native request. */
int ffdvb_ioctl_expected_errno(const struct ffdvb_ioctl_info *info);

/* "video0", ... as ffdvb_node_name() says, without the card library */
const char *ffdvb_ioctl_node_name(enum ffdvb_node_type node);

/* The support matrix: markdown != 0 a Markdown table (what README.md carries between its
 * ioctl-matrix markers, markers excluded), else aligned columns for a terminal. */
void ffdvb_ioctl_matrix(FILE *out, int markdown);

#endif
