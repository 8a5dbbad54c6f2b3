/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Private state of the software demux (swdemux*.c). */
#ifndef FFDVB_SWDEMUX_INTERNAL_H
#define FFDVB_SWDEMUX_INTERNAL_H

#include "swdemux.h"

/* Section reassembly on one PID (dvb_demux's section feed). */
struct swsec {
	uint8_t sec[FFDVB_SWDEMUX_SECTION_MAX];
	size_t len;  /* bytes of the current section so far */
	int synced;  /* inside a section stream (after a PUSI, no discontinuity since) */
	int cc;      /* last continuity counter, -1 = none yet */
};

enum swout_state { SWOUT_NONE, SWOUT_SET, SWOUT_GO, SWOUT_DONE, SWOUT_TIMEDOUT };
enum swout_type { SWOUT_SECTION, SWOUT_PES };

struct ffdvb_swdemux_out {
	struct ffdvb_swdemux *dmx;
	struct ffdvb_swdemux_out *next;
	int is_dvr;
	ffdvb_swdemux_notify_fn notify;
	void *ctx;
	struct ffdvb_dmxbuf buf;
	size_t buf_size;
	enum swout_state state;
	enum swout_type type;
	struct ffdvb_dmx_sct_filter_params sct;
	struct ffdvb_dmx_pes_filter_params pes;
	uint16_t pids[FFDVB_SWDEMUX_MAX_PIDS];
	int npids;
	struct ffdvb_section_match match; /* the section filter's */
	int got_section;
	struct swsec asm_; /* reassembly of the filter's PID */
	/* dmxdev's read_sec: bytes of the section still to hand out (<= 0: header pending) */
	int todo;
	uint8_t sechdr[3];
};

struct ffdvb_swdemux {
	struct ffdvb_swdemux_out *outs;
	struct ffdvb_swdemux_stats stats;
	uint8_t part[FFDVB_TS_PACKET_SIZE]; /* feed(): partial packet between calls */
	size_t part_len;
	int synced; /* feed(): in sync */
};

/* Writes to an output's buffer, counts an overflow and notifies. */
void swout_write(struct ffdvb_swdemux_out *o, const uint8_t *a, size_t alen, const uint8_t *b,
		 size_t blen);
/* Section filters: reset on start, and one TS packet of the filter's PID. */
void swsec_prepare(struct ffdvb_swdemux_out *o);
void swsec_packet(struct ffdvb_swdemux_out *o, const uint8_t *pkt);

#endif
