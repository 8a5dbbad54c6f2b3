/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Software demux: TS packets in, dmxdev's outputs out (swdemux.h). Section
 * reassembly and matching live in swdemux_section.c, the buffers in swdemux_buf.c. */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>

#include "swdemux_internal.h"

struct ffdvb_swdemux *ffdvb_swdemux_new(void)
{
	return calloc(1, sizeof(struct ffdvb_swdemux));
}

void ffdvb_swdemux_free(struct ffdvb_swdemux *d)
{
	if (!d)
		return;
	while (d->outs)
		ffdvb_swdemux_out_free(d->outs);
	free(d);
}

const struct ffdvb_swdemux_stats *ffdvb_swdemux_stats(const struct ffdvb_swdemux *d)
{
	return &d->stats;
}

static struct ffdvb_swdemux_out *out_new(struct ffdvb_swdemux *d, ffdvb_swdemux_notify_fn fn,
					 void *ctx, int is_dvr)
{
	struct ffdvb_swdemux_out *o = calloc(1, sizeof(*o));

	if (!o)
		return NULL;
	o->dmx = d;
	o->notify = fn;
	o->ctx = ctx;
	o->is_dvr = is_dvr;
	o->buf_size = is_dvr ? FFDVB_SWDEMUX_DVR_BUFFER : FFDVB_SWDEMUX_FILTER_BUFFER;
	if (is_dvr && ffdvb_dmxbuf_alloc(&o->buf, o->buf_size) < 0) { /* dvr0 allocates at open */
		free(o);
		return NULL;
	}
	o->next = d->outs;
	d->outs = o;
	return o;
}

struct ffdvb_swdemux_out *ffdvb_swdemux_filter_new(struct ffdvb_swdemux *d,
						    ffdvb_swdemux_notify_fn fn, void *ctx)
{
	return out_new(d, fn, ctx, 0);
}

struct ffdvb_swdemux_out *ffdvb_swdemux_dvr_new(struct ffdvb_swdemux *d,
						 ffdvb_swdemux_notify_fn fn, void *ctx)
{
	return out_new(d, fn, ctx, 1);
}

void ffdvb_swdemux_out_free(struct ffdvb_swdemux_out *o)
{
	struct ffdvb_swdemux_out **pp;

	if (!o)
		return;
	for (pp = &o->dmx->outs; *pp; pp = &(*pp)->next)
		if (*pp == o) {
			*pp = o->next;
			break;
		}
	ffdvb_dmxbuf_release(&o->buf);
	free(o);
}

void swout_write(struct ffdvb_swdemux_out *o, const uint8_t *a, size_t alen, const uint8_t *b,
		 size_t blen)
{
	int had_error = o->buf.error != 0;

	if (ffdvb_dmxbuf_write2(&o->buf, a, alen, b, blen)) {
		if (!had_error && o->buf.error)
			o->dmx->stats.overflows++;
		if (o->notify)
			o->notify(o->ctx);
	}
}

/* ---- input -------------------------------------------------------------------------------- */

/* 1: a feed on this PID, 2: only the every-packet feed (0x2000) */
static int pid_match(const struct ffdvb_swdemux_out *o, uint16_t pid)
{
	int all = 0;

	for (int i = 0; i < o->npids; i++) {
		if (o->pids[i] == pid)
			return 1;
		all |= o->pids[i] == FFDVB_SWDEMUX_ALL_PIDS;
	}
	return all ? 2 : 0;
}

/* dvb_demux's payload(): the bytes after the adaptation field, 0 when there are none */
static size_t ts_payload(const uint8_t *pkt, const uint8_t **out)
{
	size_t off = 4;

	if (!(pkt[3] & 0x10))
		return 0;
	if (pkt[3] & 0x20) {
		if (pkt[4] > 183)
			return 0;
		off += 1 + pkt[4];
	}
	*out = pkt + off;
	return FFDVB_TS_PACKET_SIZE - off;
}

/* dvb_demux's ts callback for one output; whole: the 0x2000 feed, which always hands out the
 * whole packet. *dvr_done: dvb_demux copies a packet to dvr0 once, however many feeds want it. */
static void pes_packet(struct ffdvb_swdemux *d, struct ffdvb_swdemux_out *o, const uint8_t *pkt,
		       int whole, int *dvr_done)
{
	const uint8_t *payload;
	size_t n;

	switch (o->pes.output) {
	case FFDVB_DMX_OUT_TAP: /* the payload bytes, as dmxdev's TS_PAYLOAD_ONLY feed */
		if (whole) {
			swout_write(o, pkt, FFDVB_TS_PACKET_SIZE, NULL, 0);
			break;
		}
		n = ts_payload(pkt, &payload);
		if (n)
			swout_write(o, payload, n, NULL, 0);
		break;
	case FFDVB_DMX_OUT_TSDEMUX_TAP:
		swout_write(o, pkt, FFDVB_TS_PACKET_SIZE, NULL, 0);
		break;
	case FFDVB_DMX_OUT_TS_TAP: /* dmxdev's dvr buffer: every dvr0 reader */
		if ((*dvr_done)++)
			break;
		for (struct ffdvb_swdemux_out *r = d->outs; r; r = r->next)
			if (r->is_dvr)
				swout_write(r, pkt, FFDVB_TS_PACKET_SIZE, NULL, 0);
		break;
	default: /* DMX_OUT_DECODER: the card takes decoder data through its own TSDEMUX tap */
		break;
	}
}

void ffdvb_swdemux_packet(struct ffdvb_swdemux *d, const uint8_t *pkt)
{
	uint16_t pid = ((pkt[1] & 0x1f) << 8) | pkt[2];
	int dvr_done = 0;

	d->stats.packets++;
	if (pkt[1] & 0x80) { /* transport_error_indicator: the packet cannot be trusted */
		d->stats.tei++;
		return;
	}
	for (struct ffdvb_swdemux_out *o = d->outs; o; o = o->next) {
		int m;

		if (o->is_dvr || o->state != SWOUT_GO || !(m = pid_match(o, pid)))
			continue;
		if (o->type == SWOUT_SECTION)
			swsec_packet(o, pkt);
		else
			pes_packet(d, o, pkt, m == 2, &dvr_done);
	}
}

void ffdvb_swdemux_feed(struct ffdvb_swdemux *d, const uint8_t *data, size_t len)
{
	const size_t P = FFDVB_TS_PACKET_SIZE;

	while (len) {
		if (d->part_len) { /* complete the packet started by an earlier call */
			size_t n = P - d->part_len < len ? P - d->part_len : len;

			memcpy(d->part + d->part_len, data, n);
			d->part_len += n;
			data += n;
			len -= n;
			if (d->part_len < P)
				return;
			d->part_len = 0;
			ffdvb_swdemux_packet(d, d->part);
			continue;
		}
		if (data[0] != 0x47 || (len > P && data[P] != 0x47)) {
			/* lost sync: skip to a 0x47 that is followed by another one a packet later
			 * (or by the end of the data, which the next call then checks) */
			size_t i = 1;

			if (d->synced)
				d->stats.sync_losses++;
			d->synced = 0;
			while (i < len && !(data[i] == 0x47 && (len - i <= P || data[i + P] == 0x47)))
				i++;
			d->stats.skipped_bytes += i;
			data += i;
			len -= i;
			continue;
		}
		d->synced = 1;
		if (len < P) {
			memcpy(d->part, data, len);
			d->part_len = len;
			return;
		}
		ffdvb_swdemux_packet(d, data);
		data += P;
		len -= P;
	}
}

void ffdvb_swdemux_feed_reset(struct ffdvb_swdemux *d)
{
	d->part_len = 0;
	d->synced = 0;
}

/* ---- filter control ----------------------------------------------------------------------- */

static void out_stop(struct ffdvb_swdemux_out *o)
{
	if (o->state < SWOUT_GO)
		return;
	o->state = SWOUT_SET;
	ffdvb_dmxbuf_flush(&o->buf); /* dmxdev flushes on stop */
}

int ffdvb_swdemux_set_section(struct ffdvb_swdemux_out *o,
			      const struct ffdvb_dmx_sct_filter_params *p)
{
	if (o->is_dvr)
		return -EINVAL;
	out_stop(o);
	o->type = SWOUT_SECTION;
	o->sct = *p;
	o->npids = 1;
	o->pids[0] = p->pid;
	o->state = SWOUT_SET;
	return (p->flags & FFDVB_DMX_IMMEDIATE_START) ? ffdvb_swdemux_start(o) : 0;
}

int ffdvb_swdemux_set_pes(struct ffdvb_swdemux_out *o, const struct ffdvb_dmx_pes_filter_params *p)
{
	if (o->is_dvr)
		return -EINVAL;
	out_stop(o);
	o->type = SWOUT_PES;
	o->pes = *p;
	o->npids = 1;
	o->pids[0] = p->pid;
	o->state = SWOUT_SET;
	return (p->flags & FFDVB_DMX_IMMEDIATE_START) ? ffdvb_swdemux_start(o) : 0;
}

int ffdvb_swdemux_start(struct ffdvb_swdemux_out *o)
{
	if (o->is_dvr || o->state < SWOUT_SET)
		return -EINVAL;
	out_stop(o);
	if (!o->buf.data && ffdvb_dmxbuf_alloc(&o->buf, o->buf_size) < 0)
		return -ENOMEM;
	ffdvb_dmxbuf_flush(&o->buf);
	o->buf.error = 0;
	o->todo = 0;
	o->got_section = 0;
	if (o->type == SWOUT_SECTION)
		swsec_prepare(o);
	o->state = SWOUT_GO;
	return 0;
}

void ffdvb_swdemux_stop(struct ffdvb_swdemux_out *o)
{
	out_stop(o);
}

int ffdvb_swdemux_add_pid(struct ffdvb_swdemux_out *o, uint16_t pid)
{
	if (o->is_dvr || o->type != SWOUT_PES || o->state < SWOUT_SET)
		return -EINVAL;
	if (pid_match(o, pid) && pid != FFDVB_SWDEMUX_ALL_PIDS)
		return 0;
	if (o->npids >= FFDVB_SWDEMUX_MAX_PIDS)
		return -ENOMEM;
	o->pids[o->npids++] = pid;
	return 0;
}

int ffdvb_swdemux_remove_pid(struct ffdvb_swdemux_out *o, uint16_t pid)
{
	int j = 0;

	if (o->is_dvr || o->type != SWOUT_PES || o->state < SWOUT_SET)
		return -EINVAL;
	for (int i = 0; i < o->npids; i++)
		if (o->pids[i] != pid)
			o->pids[j++] = o->pids[i];
	o->npids = j;
	return 0;
}

/* dmxdev: the same size changes nothing; otherwise a new empty buffer right away (a filter
 * that never started then reads EAGAIN, not 0) */
int ffdvb_swdemux_set_buffer_size(struct ffdvb_swdemux_out *o, size_t size)
{
	if (o->buf_size == size)
		return 0;
	if (!size)
		return -EINVAL;
	if (!o->is_dvr && o->state >= SWOUT_GO)
		return -EBUSY;
	if (ffdvb_dmxbuf_alloc(&o->buf, size) < 0)
		return -ENOMEM;
	o->buf_size = size;
	return 0;
}

/* ---- read / poll -------------------------------------------------------------------------- */

/* dvb_dmxdev_buffer_read, non-blocking */
static ssize_t buffer_read(struct ffdvb_swdemux_out *o, uint8_t *buf, size_t len)
{
	int err = o->buf.error;

	if (!o->buf.data)
		return 0;
	if (err) {
		ffdvb_dmxbuf_flush(&o->buf);
		o->buf.error = 0;
		return err;
	}
	if (!o->buf.len)
		return -EAGAIN;
	return (ssize_t)ffdvb_dmxbuf_read(&o->buf, buf, len);
}

/* dvb_dmxdev_read_sec: the 3 header bytes, then the rest of that one section */
static ssize_t section_read(struct ffdvb_swdemux_out *o, uint8_t *buf, size_t len)
{
	size_t done = 0;
	ssize_t r;

	if (o->todo <= 0) {
		size_t h = (size_t)(3 + o->todo);

		if (h > len)
			h = len;
		r = buffer_read(o, buf, h);
		if (r <= 0) {
			if (r < 0)
				o->todo = 0;
			return r;
		}
		memcpy(o->sechdr - o->todo, buf, (size_t)r);
		done = (size_t)r;
		buf += r;
		len -= (size_t)r;
		o->todo -= (int)r;
		if (o->todo > -3)
			return (ssize_t)done;
		o->todo = ((o->sechdr[1] << 8) | o->sechdr[2]) & 0xfff;
		if (!len)
			return (ssize_t)done;
	}
	if (len > (size_t)o->todo)
		len = (size_t)o->todo;
	r = buffer_read(o, buf, len);
	if (r < 0)
		return done ? (ssize_t)done : r;
	o->todo -= (int)r;
	return (ssize_t)done + r;
}

ssize_t ffdvb_swdemux_read(struct ffdvb_swdemux_out *o, void *buf, size_t len)
{
	if (!len)
		return 0;
	if (!o->is_dvr && o->type == SWOUT_SECTION)
		return section_read(o, buf, len);
	return buffer_read(o, buf, len);
}

unsigned int ffdvb_swdemux_poll(const struct ffdvb_swdemux_out *o)
{
	unsigned int mask = 0;

	if (!o->is_dvr && o->state < SWOUT_GO)
		return 0;
	if (o->buf.error)
		mask |= POLLIN | POLLRDNORM | POLLPRI | POLLERR;
	if (o->buf.len)
		mask |= POLLIN | POLLRDNORM | POLLPRI;
	return mask;
}

size_t ffdvb_swdemux_buffered(const struct ffdvb_swdemux_out *o)
{
	return o->buf.len;
}

uint32_t ffdvb_swdemux_timeout_ms(const struct ffdvb_swdemux_out *o)
{
	if (o->is_dvr || o->type != SWOUT_SECTION || o->state != SWOUT_GO || o->got_section)
		return 0;
	return o->sct.timeout;
}

void ffdvb_swdemux_expire(struct ffdvb_swdemux_out *o)
{
	if (!ffdvb_swdemux_timeout_ms(o))
		return;
	o->buf.error = -ETIMEDOUT;
	o->state = SWOUT_TIMEDOUT;
	if (o->notify)
		o->notify(o->ctx);
}
