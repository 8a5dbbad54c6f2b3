/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The file-backed tuner (tuner_file*.c) and the none tuner (tuner_none.c, the same machinery
 * without channels): emulated frontend (fe_emul), software demux (swdemux), paced player. */
#ifndef FFDVB_TUNER_FILE_H
#define FFDVB_TUNER_FILE_H

#include <stdint.h>

#include "fe_emul.h"
#include "swdemux.h"
#include "tuner_internal.h"

struct event;

struct ft_channel {
	char *name;
	char *file;        /* the TS file, absolute or relative to the working directory */
	uint32_t frequency; /* DTV_FREQUENCY as in the channel file (Hz; kHz for satellite) */
	uint32_t delsys;
};

/* Paced TS player (tuner_file_play.c). */
struct ft_player {
	struct event_base *base;
	struct event *ev;
	int fd;
	void (*deliver)(void *ctx, const uint8_t *pkt);
	void *ctx;
	uint8_t buf[188 * 2048]; /* room to see the next PCR (100 ms at up to 30 Mbit/s) */
	size_t pos, len;
	int eof;
	/* pacing: a packet is due at its clock value; us of CLOCK_MONOTONIC */
	uint8_t pkt[188];
	int pending;            /* pkt holds the next packet, due at pending_due */
	uint64_t pending_due;
	int have_clock;         /* t0/pcr0 valid */
	int pcr_pid;            /* -1 until the first PCR */
	uint64_t t0, pcr0;      /* pcr0 in 27 MHz units (33-bit base * 300 + ext, unwrapped) */
	uint64_t last_pcr, last_due, pcr_interval; /* due times in us */
	uint64_t since_pcr, pkts_per_pcr;           /* packets after the last PCR, between two */
	int rebase;             /* after the loop point: the next PCR starts a new timeline */
	uint64_t served_this_loop;
	/* counters */
	uint64_t served, skipped, loops;
	int dead;               /* a whole pass found no packet: stopped */
};

int ft_player_start(struct ft_player *p, struct event_base *base, const char *path,
		    void (*deliver)(void *ctx, const uint8_t *pkt), void *ctx);
void ft_player_stop(struct ft_player *p);
/* default pace of a stream without PCR, bits per second */
#define FT_DEFAULT_BITRATE 2000000u

struct ft_file;

struct ft_tuner {
	struct ffdvb_tuner base; /* first: tuner.c sees this */
	int is_none;
	char *path;              /* channel file */
	struct ft_channel *ch;
	unsigned int nch;
	struct fe_emul fe;
	struct ffdvb_swdemux *dmx;
	struct ft_file *files;
	int dvr_readers, dvr_writers;
	const struct ft_channel *tuned; /* the channel the frontend locked on, or NULL */
	const struct ft_channel *pending; /* lock due when lock_ev fires */
	struct event *lock_ev;
	struct ft_player player;
	int playing;
};

struct ft_file {
	struct ffdvb_tuner_file base; /* first */
	struct ft_tuner *t;
	struct ft_file *next;
	struct ffdvb_swdemux_out *out; /* demux filter or dvr reader */
	struct event *timeout_ev;     /* section filter timeout */
};

/* Channel file (tuner_file_channels.c): fills t->ch / t->nch; -errno with err set. */
int ft_channels_load(struct ft_tuner *t, const char *path, char *err, size_t errlen);
void ft_channels_free(struct ft_tuner *t);
/* The entry a tune to (delsys, frequency) reaches and whose file is readable, or NULL. */
const struct ft_channel *ft_channels_find(const struct ft_tuner *t, uint32_t delsys,
					  uint32_t frequency);

/* Shared ops of the two backends (tuner_file.c); create differs. */
struct ft_tuner *ft_tuner_new(struct event_base *base, int is_none, const uint8_t *delsys,
			      unsigned int n_delsys);
void ft_destroy(struct ffdvb_tuner *t);
int ft_open(struct ffdvb_tuner *t, enum ffdvb_tuner_dev dev, int flags,
	    struct ffdvb_tuner_file **out);
void ft_close(struct ffdvb_tuner_file *f);
int ft_ioctl(struct ffdvb_tuner_file *f, struct ffdvb_ioctl *io);
ssize_t ft_read(struct ffdvb_tuner_file *f, void *buf, size_t len);
ssize_t ft_write(struct ffdvb_tuner_file *f, const void *buf, size_t len);
unsigned int ft_poll(struct ffdvb_tuner_file *f);
int ft_status_json(struct ffdvb_tuner *t, char *buf, size_t len);

#endif
