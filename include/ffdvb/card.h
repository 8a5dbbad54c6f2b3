/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ffdvb card: one emulated full-featured adapter, its shared state (per card, never per file,
 * as on av7110) and the semantics of its nodes video0, audio0, osd0, demux0, frontend0 and
 * dvr0 (docs/av7110.md). It implements struct ffdvb_node_ops for each node and knows
 * nothing of FUSE. What the rings hold is handed to the decoder (include/ffdvb/decoder.h) as
 * the firmware took it: whole packets, audio first, video withheld while frozen; the OSD
 * plane goes to the output (include/ffdvb/output.h). The caller makes the tuner, the decoder
 * and the output and hands them in. */
#ifndef FFDVB_CARD_H
#define FFDVB_CARD_H

#include <stdint.h>
#include <stdio.h>

#include "ffdvb/node.h"

struct event_base;
struct ffdvb_card;
struct ffdvb_decoder;
struct ffdvb_output;
struct ffdvb_tuner;

/* "video0", "audio0", "osd0", "demux0", "frontend0", "dvr0" */
const char *ffdvb_node_name(enum ffdvb_node_type type);

struct ffdvb_card_config {
	int adapter;              /* N of /dev/dvb/adapterN (for messages and status) */
	uint32_t drain_rate;      /* bytes per second taken from each playing ring; 0 = default */
	uint32_t osd_memsize;     /* OSD_GET_CAPABILITY(OSD_CAP_MEMSIZE); 0 = default */
	/* the decoder that plays what is written (include/ffdvb/decoder.h), owned by the caller
	   and outliving the card, which watches its wake-up file; NULL: no decoder, the rings
	   drain at drain_rate (--no-decode, flow-control tests without threads) */
	struct ffdvb_decoder *decoder;
	/* where the OSD plane goes (include/ffdvb/output.h, ffdvb_output_set_osd), the caller's
	   and outliving the card: the decoder's output (ffdvb_decoder_output); NULL: the OSD is
	   kept but not rendered */
	struct ffdvb_output *output;
	/* what stands behind frontend0, demux0 and dvr0 (include/ffdvb/tuner.h), owned by the
	   caller and outliving the card; NULL: the card uses a "none" tuner of its own */
	struct ffdvb_tuner *tuner;
};

#define FFDVB_DEFAULT_DRAIN_RATE 1000000u /* ~8 Mbit/s: an SD stream in real time */
#define FFDVB_DEFAULT_OSD_MEMSIZE 1000000u /* av7110's 4 MB firmware: one 8-bit window */

/* Creates a card; timers (the drain) run on base. Returns NULL with errno set. */
struct ffdvb_card *ffdvb_card_new(struct event_base *base, const struct ffdvb_card_config *cfg);
/* Frees the card; all files must have been released. Accepts NULL. */
void ffdvb_card_free(struct ffdvb_card *card);

/* The ops table and the node pointer to pass as its first argument. */
const struct ffdvb_node_ops *ffdvb_card_node_ops(enum ffdvb_node_type type);
void *ffdvb_card_node(struct ffdvb_card *card, enum ffdvb_node_type type);

/* Sets the hook the card calls when something changed on node `type` (see ffdvb_wake_fn). */
void ffdvb_card_set_wake(struct ffdvb_card *card, enum ffdvb_node_type type, ffdvb_wake_fn fn,
			 void *ctx);

/* Writes the card's status: per node openers (readers/writers), play and source state, ring
 * fill, bytes accepted and refused, error counters. json != 0: one JSON object; else a table
 * for people. Returns 0 or -errno. */
int ffdvb_card_status(struct ffdvb_card *card, FILE *out, int json);

/* Renders the card's OSD (its visible windows) into argb[720 * 576], 0xAARRGGBB words, as the
 * compositor gets it (include/ffdvb/osd.h). */
void ffdvb_card_osd_plane(struct ffdvb_card *card, uint32_t *argb);

/* One OSD window (1..7) for `ffdvbctl osd-dump`: its place and depth, and its pixels as ARGB
 * (malloc'ed, the caller frees). 0, -EINVAL (no such window or not open) or -ENOMEM. */
struct ffdvb_osd_window_info;
int ffdvb_card_osd_window(struct ffdvb_card *card, int win, struct ffdvb_osd_window_info *info,
			  uint32_t **argb);

#endif
