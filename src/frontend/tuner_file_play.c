/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The file tuner's player: reads a TS file and hands its packets to the demux at the pace of
 * its PCR (wall clock, libevent timers on the tuner's base; the packets between two PCRs
 * evenly spread between them, the buffer looked ahead to the next), looping forever. Lost
 * sync and a truncated tail are skipped and counted; a stream without PCR goes at
 * FT_DEFAULT_BITRATE. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#include "ffdvb/clock.h"

#include "tuner_file.h"

#define P 188
#define PCR_WRAP ((1ull << 33) * 300)   /* 27 MHz units */
#define MAX_JUMP_US 1000000ull           /* a PCR step beyond this is a discontinuity */
#define LATE_US 1000000ull               /* this far behind: rebase instead of bursting */
#define SLACK_US 4000                    /* serve what is due this soon (fewer wake-ups) */
#define BATCH 2048                       /* packets per callback at most */

static uint64_t now_us(void)
{
	return ffdvb_monotonic_ns() / 1000u;
}

static void arm(struct ft_player *p, uint64_t delay_us)
{
	struct timeval tv = { (time_t)(delay_us / 1000000u), (suseconds_t)(delay_us % 1000000u) };

	evtimer_add(p->ev, &tv);
}

/* moves what is left to the buffer's start and reads the file until the buffer is full */
static void fill(struct ft_player *p)
{
	memmove(p->buf, p->buf + p->pos, p->len - p->pos);
	p->len -= p->pos;
	p->pos = 0;
	while (p->len < sizeof(p->buf) && !p->eof) {
		ssize_t r = read(p->fd, p->buf + p->len, sizeof(p->buf) - p->len);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			p->eof = 1; /* a read error ends the pass like the end of the file */
			break;
		}
		p->len += (size_t)r;
	}
}

/* refills so that at least two packets' worth is buffered, unless at the end of the file */
static void refill(struct ft_player *p)
{
	if (p->len - p->pos < 2 * P && !p->eof)
		fill(p);
}

/* Fills the buffer when half of it is used, so that what follows a PCR can be looked at. */
static void top_up(struct ft_player *p)
{
	if (!p->eof && p->pos >= sizeof(p->buf) / 2)
		fill(p);
}

/* The next packet of the file into p->pkt: 1, or 0 at the end of the pass. */
static int next_packet(struct ft_player *p)
{
	for (;;) {
		size_t avail, skip = 0;

		refill(p);
		avail = p->len - p->pos;
		if (avail < P) {
			if (avail)
				p->skipped++; /* truncated last packet */
			p->pos = p->len;
			return 0;
		}
		/* in sync: 0x47 here and (if there is more) at the next packet */
		while (skip < avail && !(p->buf[p->pos + skip] == 0x47 &&
					 (avail - skip < 2 * P || p->buf[p->pos + skip + P] == 0x47)))
			skip++;
		if (!skip) {
			memcpy(p->pkt, p->buf + p->pos, P);
			p->pos += P;
			return 1;
		}
		p->skipped += (skip + P - 1) / P; /* garbage counts as the packets it replaced */
		p->pos += skip;
	}
}

static int get_pcr(const uint8_t *pkt, uint64_t *pcr)
{
	const uint8_t *a = pkt + 6;

	if (!(pkt[3] & 0x20) || pkt[4] < 7 || !(pkt[5] & 0x10))
		return 0;
	*pcr = (((uint64_t)a[0] << 25) | ((uint64_t)a[1] << 17) | ((uint64_t)a[2] << 9) |
		((uint64_t)a[3] << 1) | (a[4] >> 7)) * 300 + (((a[4] & 1u) << 8) | a[5]);
	return 1;
}

/* After a PCR (value pcr, PID pid) in p->pkt: the packets up to and with the next PCR of pid in
 * what the buffer holds, and that PCR's distance in us; 0 if it is not there or no step. */
static uint64_t next_pcr(struct ft_player *p, uint16_t pid, uint64_t pcr, uint64_t *us)
{
	top_up(p);
	for (size_t off = p->pos, n = 1; off + P <= p->len; off += P, n++) {
		const uint8_t *q = p->buf + off;
		uint64_t v, step;

		if (q[0] != 0x47)
			return 0; /* out of sync: left to next_packet */
		if ((((q[1] & 0x1f) << 8) | q[2]) != pid || !get_pcr(q, &v))
			continue;
		step = (v + PCR_WRAP - pcr) % PCR_WRAP;
		if (!step || step / 27 > MAX_JUMP_US)
			return 0;
		*us = step / 27;
		return n;
	}
	return 0;
}

/* When the packet in p->pkt is due (us, CLOCK_MONOTONIC). */
static uint64_t due_time(struct ft_player *p, uint64_t now)
{
	uint16_t pid = ((p->pkt[1] & 0x1f) << 8) | p->pkt[2];
	uint64_t pcr, due;

	if (get_pcr(p->pkt, &pcr) && (p->pcr_pid < 0 || p->pcr_pid == pid)) {
		uint64_t step = (pcr + PCR_WRAP - p->last_pcr) % PCR_WRAP; /* wraps at 2^33 */

		if (!p->have_clock || p->rebase || step / 27 > MAX_JUMP_US) {
			/* first PCR, loop point or discontinuity: a new timeline that continues
			 * where the old one ended */
			if (p->rebase && (p->pkt[3] & 0x20) && p->pkt[4])
				p->pkt[5] |= 0x80; /* discontinuity_indicator for the consumers */
			p->t0 = p->have_clock || p->pcr_pid >= 0 ? p->last_due + p->pcr_interval : now;
			p->pcr0 = pcr;
			p->have_clock = 1;
			p->rebase = 0;
			due = p->t0;
		} else {
			p->pcr0 = (p->pcr0 + step) % PCR_WRAP; /* keep pcr0..pcr short */
			p->t0 += step / 27;
			due = p->t0;
		}
		if (p->pcr_pid >= 0 && due > p->last_due && due - p->last_due < MAX_JUMP_US) {
			p->pcr_interval = due - p->last_due;
			p->pkts_per_pcr = p->since_pcr + 1;
		}
		/* the packets up to the next PCR go at the rate of that interval, as a mux sent
		   them, when the buffer shows it; else at the rate of the interval before (a large
		   picture's tail came up to an interval late: 25 ms at 80 ms PCR spacing) */
		{
			uint64_t us = 0, n = next_pcr(p, pid, pcr, &us);

			if (n) {
				p->pcr_interval = us;
				p->pkts_per_pcr = n;
			}
		}
		p->pcr_pid = pid;
		p->last_pcr = pcr;
		p->last_due = due;
		p->since_pcr = 0;
		return due;
	}
	p->since_pcr++;
	if (p->pcr_pid < 0) { /* no PCR yet: the default rate */
		if (!p->have_clock) {
			p->have_clock = 1;
			p->last_due = now;
		}
		p->last_due += (uint64_t)P * 8 * 1000000u / FT_DEFAULT_BITRATE;
		return p->last_due;
	}
	/* between two PCRs: spread at the rate of the last PCR interval */
	due = p->pkts_per_pcr ? p->last_due + p->pcr_interval * p->since_pcr / p->pkts_per_pcr
			      : p->last_due;
	return due < p->last_due + p->pcr_interval ? due : p->last_due + p->pcr_interval;
}

static void tick(evutil_socket_t fd, short what, void *ctx)
{
	struct ft_player *p = ctx;
	uint64_t now = now_us();

	(void)fd, (void)what;
	for (int n = 0; n < BATCH; n++) {
		if (!p->pending) {
			if (!next_packet(p)) {
				if (!p->served_this_loop) {
					p->dead = 1; /* nothing playable in the whole file */
					return;
				}
				/* the loop point: start again, on a new timeline */
				lseek(p->fd, 0, SEEK_SET);
				p->pos = p->len = 0;
				p->eof = 0;
				p->loops++;
				p->served_this_loop = 0;
				p->rebase = 1;
				continue;
			}
			p->pending = 1;
			p->pending_due = due_time(p, now);
			if (p->pending_due + LATE_US < now) { /* stalled: do not burst to catch up */
				p->t0 += now - p->pending_due;
				p->last_due += now - p->pending_due;
				p->pending_due = now;
			}
		}
		if (p->pending_due > now + SLACK_US) {
			arm(p, p->pending_due - now);
			return;
		}
		p->pending = 0;
		p->served++;
		p->served_this_loop++;
		p->deliver(p->ctx, p->pkt);
	}
	arm(p, 0); /* more is due: go on after the other events */
}

int ft_player_start(struct ft_player *p, struct event_base *base, const char *path,
		    void (*deliver)(void *ctx, const uint8_t *pkt), void *ctx)
{
	uint64_t served = p->served, skipped = p->skipped, loops = p->loops;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	memset(p, 0, sizeof(*p));
	p->served = served; /* the counters run over the tuner's life */
	p->skipped = skipped;
	p->loops = loops;
	p->fd = fd;
	p->base = base;
	p->deliver = deliver;
	p->ctx = ctx;
	p->pcr_pid = -1;
	p->ev = evtimer_new(base, tick, p);
	if (!p->ev) {
		close(fd);
		p->fd = -1;
		return -ENOMEM;
	}
	arm(p, 0);
	return 0;
}

void ft_player_stop(struct ft_player *p)
{
	if (p->ev)
		event_free(p->ev);
	p->ev = NULL;
	if (p->fd >= 0)
		close(p->fd);
	p->fd = -1;
}
