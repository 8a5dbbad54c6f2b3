/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The file tuner (include/ffdvb/tuner.h, "file:CHANNELS"): a tune to a channel file entry's
 * frequency locks when the entry's TS file can be read, and the paced player then feeds that
 * file into the software demux that serves demux0 and dvr0. The none tuner (tuner_none.c) is
 * the same without channels. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>

#include "tuner_file.h"

#define LOCK_DELAY_US 30000 /* a tune locks after this, like a quick real tuner */
#define FE_LOCKED (FE_HAS_SIGNAL | FE_HAS_CARRIER | FE_HAS_VITERBI | FE_HAS_SYNC | FE_HAS_LOCK)

static struct ft_tuner *ft_of(struct ffdvb_tuner *t)
{
	return (struct ft_tuner *)t;
}

static struct ft_file *file_of(struct ffdvb_tuner_file *f)
{
	return (struct ft_file *)f;
}

static void wake_dev(struct ft_tuner *t, enum ffdvb_tuner_dev dev)
{
	for (struct ft_file *f = t->files; f; f = f->next)
		if (f->base.dev == dev)
			tuner_file_wake(&f->base);
}

/* ---- frontend hooks ----------------------------------------------------------------------- */

static void deliver(void *ctx, const uint8_t *pkt)
{
	struct ft_tuner *t = ctx;

	if (!t->dvr_writers) /* dvb-core: a dvr0 writer disconnects the frontend from the demux */
		ffdvb_swdemux_packet(t->dmx, pkt);
}

static void stop_playing(struct ft_tuner *t)
{
	if (t->playing)
		ft_player_stop(&t->player);
	t->playing = 0;
	t->tuned = NULL;
}

static void lock_cb(evutil_socket_t fd, short what, void *ctx)
{
	struct ft_tuner *t = ctx;
	const struct ft_channel *ch = t->pending;

	(void)fd, (void)what;
	t->pending = NULL;
	if (!ch || ft_player_start(&t->player, t->base.base, ch->file, deliver, t) < 0)
		return; /* the file went away: no lock */
	t->playing = 1;
	t->tuned = ch;
	fe_emul_set_status(&t->fe, FE_LOCKED);
}

static void fe_tune(struct fe_emul *fe, void *ctx)
{
	struct ft_tuner *t = ctx;
	const struct ft_channel *ch;

	stop_playing(t);
	t->pending = NULL;
	evtimer_del(t->lock_ev);
	ch = ft_channels_find(t, fe->props[DTV_DELIVERY_SYSTEM], fe->props[DTV_FREQUENCY]);
	if (!ch)
		return; /* nothing readable on this frequency: never locks */
	t->pending = ch;
	{
		struct timeval tv = { 0, LOCK_DELAY_US };

		evtimer_add(t->lock_ev, &tv);
	}
}

/* plausible figures of a good signal (dvb-core scales: 0.001 dBm, 0.001 dB, counters) */
static void fe_stats(struct fe_emul *fe, void *ctx, uint32_t cmd, struct dtv_fe_stats *st)
{
	struct ft_tuner *t = ctx;
	uint64_t packets = t->player.served;

	st->len = 1;
	if (!(fe->status & FE_HAS_LOCK)) {
		st->stat[0].scale = FE_SCALE_NOT_AVAILABLE;
		return;
	}
	switch (cmd) {
	case DTV_STAT_SIGNAL_STRENGTH:
		st->stat[0].scale = FE_SCALE_DECIBEL;
		st->stat[0].svalue = -35000;
		break;
	case DTV_STAT_CNR:
		st->stat[0].scale = FE_SCALE_DECIBEL;
		st->stat[0].svalue = 28000;
		break;
	case DTV_STAT_PRE_TOTAL_BIT_COUNT:
	case DTV_STAT_POST_TOTAL_BIT_COUNT:
		st->stat[0].scale = FE_SCALE_COUNTER;
		st->stat[0].uvalue = packets * 188 * 8;
		break;
	case DTV_STAT_TOTAL_BLOCK_COUNT:
		st->stat[0].scale = FE_SCALE_COUNTER;
		st->stat[0].uvalue = packets;
		break;
	default: /* error counts */
		st->stat[0].scale = FE_SCALE_COUNTER;
		st->stat[0].uvalue = 0;
		break;
	}
}

static void fe_event(struct fe_emul *fe, void *ctx)
{
	(void)fe;
	wake_dev(ctx, FFDVB_TUNER_FRONTEND);
}

static const struct fe_emul_ops file_fe_ops = { .tune = fe_tune, .stats = fe_stats,
						.event = fe_event };
static const struct fe_emul_ops none_fe_ops = { .event = fe_event };

/* ---- tuner -------------------------------------------------------------------------------- */

struct ft_tuner *ft_tuner_new(struct event_base *base, int is_none, const uint8_t *delsys,
			      unsigned int n_delsys)
{
	struct ft_tuner *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->is_none = is_none;
	t->player.fd = -1;
	fe_emul_init(&t->fe, delsys, n_delsys, is_none ? &none_fe_ops : &file_fe_ops, t);
	t->fe.tune_event = !is_none;
	t->dmx = ffdvb_swdemux_new();
	t->lock_ev = evtimer_new(base, lock_cb, t);
	if (!t->dmx || !t->lock_ev) {
		ffdvb_swdemux_free(t->dmx);
		if (t->lock_ev)
			event_free(t->lock_ev);
		free(t);
		return NULL;
	}
	return t;
}

void ft_destroy(struct ffdvb_tuner *tt)
{
	struct ft_tuner *t = ft_of(tt);

	stop_playing(t);
	event_free(t->lock_ev);
	ffdvb_swdemux_free(t->dmx);
	ft_channels_free(t);
	free(t->path);
	free(t);
}

/* ---- files -------------------------------------------------------------------------------- */

static void out_notify(void *ctx)
{
	tuner_file_wake(&((struct ft_file *)ctx)->base);
}

static void timeout_cb(evutil_socket_t fd, short what, void *ctx)
{
	struct ft_file *f = ctx;

	(void)fd, (void)what;
	ffdvb_swdemux_expire(f->out);
}

int ft_open(struct ffdvb_tuner *tt, enum ffdvb_tuner_dev dev, int flags,
	    struct ffdvb_tuner_file **out)
{
	struct ft_tuner *t = ft_of(tt);
	int acc = flags & O_ACCMODE;
	struct ft_file *f;
	int r;

	if (dev == FFDVB_TUNER_DVR) { /* dmxdev: one reader, one writer, no O_RDWR (no DUPLEX) */
		if (acc == O_RDWR)
			return -EOPNOTSUPP;
		if (acc == O_RDONLY ? t->dvr_readers : t->dvr_writers)
			return -EBUSY;
	}
	if (dev == FFDVB_TUNER_FRONTEND && (r = fe_emul_open(&t->fe, flags)) < 0)
		return r;
	f = calloc(1, sizeof(*f));
	if (!f)
		goto nomem;
	f->t = t;
	if (dev == FFDVB_TUNER_DEMUX) {
		f->out = ffdvb_swdemux_filter_new(t->dmx, out_notify, f);
		f->timeout_ev = evtimer_new(t->base.base, timeout_cb, f);
		if (!f->out || !f->timeout_ev)
			goto nomem;
	} else if (dev == FFDVB_TUNER_DVR && acc == O_RDONLY) {
		f->out = ffdvb_swdemux_dvr_new(t->dmx, out_notify, f);
		if (!f->out)
			goto nomem;
	}
	if (dev == FFDVB_TUNER_DVR && acc == O_RDONLY)
		t->dvr_readers++;
	else if (dev == FFDVB_TUNER_DVR)
		t->dvr_writers++;
	f->next = t->files;
	t->files = f;
	*out = &f->base;
	return 0;
nomem:
	if (f) {
		ffdvb_swdemux_out_free(f->out);
		if (f->timeout_ev)
			event_free(f->timeout_ev);
		free(f);
	}
	if (dev == FFDVB_TUNER_FRONTEND)
		fe_emul_release(&t->fe, flags);
	return -ENOMEM;
}

void ft_close(struct ffdvb_tuner_file *ff)
{
	struct ft_file *f = file_of(ff);
	struct ft_tuner *t = f->t;

	for (struct ft_file **pp = &t->files; *pp; pp = &(*pp)->next)
		if (*pp == f) {
			*pp = f->next;
			break;
		}
	if (ff->dev == FFDVB_TUNER_FRONTEND)
		fe_emul_release(&t->fe, ff->flags);
	if (ff->dev == FFDVB_TUNER_DVR && (ff->flags & O_ACCMODE) == O_RDONLY)
		t->dvr_readers--;
	if (ff->dev == FFDVB_TUNER_DVR && (ff->flags & O_ACCMODE) != O_RDONLY) {
		t->dvr_writers--;
		ffdvb_swdemux_feed_reset(t->dmx); /* the frontend feeds whole packets again */
	}
	ffdvb_swdemux_out_free(f->out);
	if (f->timeout_ev)
		event_free(f->timeout_ev);
	free(f);
}

/* dmxdev arms a section filter's timeout at the start and drops it with the first section */
static void rearm_timeout(struct ft_file *f)
{
	uint32_t ms = ffdvb_swdemux_timeout_ms(f->out);

	evtimer_del(f->timeout_ev);
	if (ms) {
		struct timeval tv = { ms / 1000, (suseconds_t)(ms % 1000) * 1000 };

		evtimer_add(f->timeout_ev, &tv);
	}
}

static int demux_ioctl(struct ft_file *f, struct ffdvb_ioctl *io)
{
	int r;

	switch (io->cmd) {
	case FFDVB_DMX_START:
		r = ffdvb_swdemux_start(f->out);
		break;
	case FFDVB_DMX_STOP:
		ffdvb_swdemux_stop(f->out);
		r = 0;
		break;
	case FFDVB_DMX_SET_FILTER:
		r = ffdvb_swdemux_set_section(f->out, io->buf);
		break;
	case FFDVB_DMX_SET_PES_FILTER:
		r = ffdvb_swdemux_set_pes(f->out, io->buf);
		break;
	case FFDVB_DMX_SET_BUFFER_SIZE:
		return ffdvb_swdemux_set_buffer_size(f->out, io->arg);
	case FFDVB_DMX_ADD_PID:
		return ffdvb_swdemux_add_pid(f->out, *(const uint16_t *)io->buf);
	case FFDVB_DMX_REMOVE_PID:
		return ffdvb_swdemux_remove_pid(f->out, *(const uint16_t *)io->buf);
	default:
		return -ENOTTY;
	}
	rearm_timeout(f);
	return r;
}

int ft_ioctl(struct ffdvb_tuner_file *ff, struct ffdvb_ioctl *io)
{
	struct ft_file *f = file_of(ff);

	switch (ff->dev) {
	case FFDVB_TUNER_FRONTEND:
		return fe_emul_ioctl(&f->t->fe, ff->flags, io);
	case FFDVB_TUNER_DEMUX:
		return demux_ioctl(f, io);
	default: /* dvr0 */
		if (io->cmd != FFDVB_DMX_SET_BUFFER_SIZE)
			return -ENOTTY;
		return f->out ? ffdvb_swdemux_set_buffer_size(f->out, io->arg) : 0;
	}
}

ssize_t ft_read(struct ffdvb_tuner_file *ff, void *buf, size_t len)
{
	struct ft_file *f = file_of(ff);

	if (ff->dev == FFDVB_TUNER_FRONTEND)
		return -EINVAL; /* no read op */
	return f->out ? ffdvb_swdemux_read(f->out, buf, len) : 0;
}

ssize_t ft_write(struct ffdvb_tuner_file *ff, const void *buf, size_t len)
{
	struct ft_file *f = file_of(ff);

	/* dmxdev: only a write-only dvr0 takes TS, into the demux in place of the frontend */
	if (ff->dev != FFDVB_TUNER_DVR || (ff->flags & O_ACCMODE) != O_WRONLY)
		return -EINVAL;
	ffdvb_swdemux_feed(f->t->dmx, buf, len);
	return (ssize_t)len;
}

unsigned int ft_poll(struct ffdvb_tuner_file *ff)
{
	struct ft_file *f = file_of(ff);

	switch (ff->dev) {
	case FFDVB_TUNER_FRONTEND:
		return fe_emul_poll(&f->t->fe);
	case FFDVB_TUNER_DEMUX:
		return ffdvb_swdemux_poll(f->out);
	default:
		return f->out ? ffdvb_swdemux_poll(f->out) : POLLOUT | POLLWRNORM | POLLPRI;
	}
}

/* JSON string body: the spec and paths come from the command line, escape them anyway */
int ft_status_json(struct ffdvb_tuner *tt, char *buf, size_t len)
{
	struct ft_tuner *t = ft_of(tt);
	const struct ffdvb_swdemux_stats *st = ffdvb_swdemux_stats(t->dmx);
	char spec[512], file[512], name[256];

	tuner_json_str(spec, sizeof(spec), tt->spec);
	tuner_json_str(file, sizeof(file), t->tuned ? t->tuned->file : "");
	tuner_json_str(name, sizeof(name), t->tuned ? t->tuned->name : "");
	return snprintf(buf, len,
			"{\"spec\":\"%s\",\"present\":true,\"locked\":%s,\"frequency\":%" PRIu32
			",\"delivery_system\":\"%s\",\"channels\":%u,\"channel\":\"%s\","
			"\"file\":\"%s\",\"packets_served\":%" PRIu64 ",\"packets_skipped\":%" PRIu64
			",\"tei\":%" PRIu64 ",\"loops\":%" PRIu64 ",\"overflows\":%" PRIu64 "}",
			spec, (t->fe.status & FE_HAS_LOCK) ? "true" : "false",
			t->fe.props[DTV_FREQUENCY], fe_emul_delsys_name(t->fe.props[DTV_DELIVERY_SYSTEM]),
			t->nch, name, file, t->player.served, t->player.skipped + st->tei,
			st->tei, t->player.loops, st->overflows);
}

/* ---- the backend -------------------------------------------------------------------------- */

static struct ffdvb_tuner *file_create(struct event_base *base, const char *arg, char *err,
				       size_t errlen)
{
	uint8_t delsys[FE_EMUL_MAX_DELSYS];
	unsigned int n = 0;
	struct ft_tuner *t;
	int r;

	if (!*arg) {
		snprintf(err, errlen, "file: needs a channel file (file:CHANNELS)");
		errno = EINVAL;
		return NULL;
	}
	t = ft_tuner_new(base, 0, NULL, 0);
	if (!t) {
		snprintf(err, errlen, "out of memory");
		errno = ENOMEM;
		return NULL;
	}
	t->path = strdup(arg);
	r = t->path ? ft_channels_load(t, arg, err, errlen) : -ENOMEM;
	if (r < 0) {
		if (r == -ENOMEM)
			snprintf(err, errlen, "out of memory");
		ft_destroy(&t->base);
		errno = -r;
		return NULL;
	}
	/* FE_GET_INFO / DTV_ENUM_DELSYS: the delivery systems of the channel file, first one
	 * current */
	for (unsigned int i = 0; i < t->nch && n < FE_EMUL_MAX_DELSYS; i++) {
		unsigned int j = 0;

		while (j < n && delsys[j] != t->ch[i].delsys)
			j++;
		if (j == n)
			delsys[n++] = (uint8_t)t->ch[i].delsys;
	}
	/* a second-generation tuner also receives the first generation */
	for (unsigned int i = 0, m = n; i < m && n < FE_EMUL_MAX_DELSYS; i++) {
		uint8_t first = delsys[i] == SYS_DVBS2 ? SYS_DVBS
				: delsys[i] == SYS_DVBT2 ? SYS_DVBT : SYS_UNDEFINED;

		if (first != SYS_UNDEFINED && !memchr(delsys, first, n))
			delsys[n++] = first;
	}
	memcpy(t->fe.delsys, delsys, n);
	t->fe.n_delsys = n;
	t->fe.props[DTV_DELIVERY_SYSTEM] = delsys[0];
	return &t->base;
}

const struct tuner_backend_ops tuner_file_ops = {
	.prefix = "file",
	.validates_demux = 0,
	.create = file_create,
	.destroy = ft_destroy,
	.open = ft_open,
	.close = ft_close,
	.ioctl = ft_ioctl,
	.read = ft_read,
	.write = ft_write,
	.poll = ft_poll,
	.status_json = ft_status_json,
};
