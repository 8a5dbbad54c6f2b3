/* SPDX-License-Identifier: GPL-2.0-or-later */
/* demux0: the dvb-core dmxdev behaviour an application of the card sees (docs/av7110.md §8 and
 * clients §1.3):
 * one filter per open file, one decoder feed per pes_type per card, DMX_GET_STC. Data comes from
 * the tuner (include/ffdvb/tuner.h): each client file has a tuner demux file. A tuner with a
 * real dmxdev behind it checks the arguments itself and its errno wins; the software demux
 * trusts this emulation's checks. Decoder feeds with DMX_OUT_DECODER are decoded live (live.c). */
#include <errno.h>
#include <string.h>

#include "ffdvb/tuner.h"

#include "card_internal.h"

#define DMX_MAX_PID 0x2000 /* dvb_demux accepts 0..0x2000 for TS feeds */

static void filter_stop(struct card_file *f)
{
	struct card_dmx_filter *flt = &f->dmx;
	struct ffdvb_card *card = f->node->card;

	if (flt->state < CARD_DMX_GO)
		return;
	if (flt->decoder_feed && card->dmx_decoder[flt->pes.pes_type] == f)
		card->dmx_decoder[flt->pes.pes_type] = NULL;
	card->rec_mode &= ~flt->rec_bit;
	flt->rec_bit = 0;
	flt->state = CARD_DMX_SET;
	if (flt->decoder_feed) {
		flt->decoder_feed = 0;
		card_live_feed_changed(card, flt->pes.pes_type, 1);
	}
}

static int is_ts_output(int output)
{
	return output == FFDVB_DMX_OUT_TS_TAP || output == FFDVB_DMX_OUT_TSDEMUX_TAP;
}

/* dvb_dmx ts_feed set(): a feed with pes_type < DMX_PES_OTHER is a decoder feed, whatever
 * its output, and only one may exist per pes_type. */
static int start_pes(struct card_file *f)
{
	struct card_dmx_filter *flt = &f->dmx;
	struct ffdvb_card *card = f->node->card;
	int type = flt->pes.pes_type;

	for (int i = 0; i < flt->npids; i++) {
		if (flt->pids[i] > DMX_MAX_PID)
			return -EINVAL;
		if (type < 0 || type >= FFDVB_DMX_PES_OTHER)
			continue;
		if (card->dmx_decoder[type] && card->dmx_decoder[type] != f)
			return -EINVAL;
		card->dmx_decoder[type] = f;
		card->dmx_pids[type] = flt->pids[i];
		flt->decoder_feed = 1;
		/* card_update routes the PID to the decoder (live.c). Not emulated: on
		 * av7110 a PID 0x1FFF cleared all decoder PIDs (ChangePIDs); here it is a PID like any
		 * other. docs/av7110.md, clients §2.9: a new audio decoder PID restarts audio, which
		 * un-mutes. */
		if (type == FFDVB_DMX_PES_AUDIO0)
			card->effective_mute = 0;
	}
	/* §8.1: an audio or video feed that also delivers TS packets puts the firmware into PES
	 * recording; memory playback then fails with EBUSY until the feed stops */
	if (flt->decoder_feed && is_ts_output(flt->pes.output) &&
	    (type == FFDVB_DMX_PES_AUDIO0 || type == FFDVB_DMX_PES_VIDEO0)) {
		flt->rec_bit = type == FFDVB_DMX_PES_AUDIO0 ? CARD_PLAY_AUDIO : CARD_PLAY_VIDEO;
		card->rec_mode |= flt->rec_bit;
	}
	if (flt->decoder_feed)
		card_live_feed_changed(card, type, 0);
	return 0;
}

static int filter_start(struct card_file *f)
{
	struct card_dmx_filter *flt = &f->dmx;
	int r = 0;

	if (flt->state < CARD_DMX_SET)
		return -EINVAL;
	filter_stop(f);
	if (flt->type == CARD_DMX_PES)
		r = start_pes(f);
	else if (flt->sct.pid > 0x1fff)
		r = -EINVAL;
	if (r < 0) {
		flt->state = CARD_DMX_GO; /* so that filter_stop releases a partial start */
		filter_stop(f);
		return r;
	}
	flt->state = CARD_DMX_GO;
	return 0;
}

static int add_pid(struct card_file *f, uint16_t pid)
{
	struct card_dmx_filter *flt = &f->dmx;

	if (flt->type != CARD_DMX_PES || flt->state < CARD_DMX_SET)
		return -EINVAL;
	/* only TS packet filters (DMX_OUT_TSDEMUX_TAP) may have several PIDs */
	if (flt->pes.output != FFDVB_DMX_OUT_TSDEMUX_TAP && flt->npids > 0)
		return -EINVAL;
	if (flt->npids >= (int)(sizeof(flt->pids) / sizeof(flt->pids[0])))
		return -ENOMEM;
	flt->pids[flt->npids++] = pid;
	return flt->state >= CARD_DMX_GO ? filter_start(f) : 0;
}

static int remove_pid(struct card_file *f, uint16_t pid)
{
	struct card_dmx_filter *flt = &f->dmx;
	int j = 0;

	if (flt->type != CARD_DMX_PES || flt->state < CARD_DMX_SET)
		return -EINVAL;
	for (int i = 0; i < flt->npids; i++)
		if (flt->pids[i] != pid)
			flt->pids[j++] = flt->pids[i];
	flt->npids = j;
	return 0;
}

static int set_pes_filter(struct card_file *f, const struct ffdvb_dmx_pes_filter_params *p)
{
	struct card_dmx_filter *flt = &f->dmx;
	int r;

	filter_stop(f);
	flt->type = CARD_DMX_PES;
	flt->pes = *p;
	flt->npids = 0;
	flt->state = CARD_DMX_SET;
	if (p->pes_type > FFDVB_DMX_PES_OTHER || p->pes_type < 0)
		return -EINVAL;
	r = add_pid(f, p->pid);
	if (r < 0)
		return r;
	return (p->flags & FFDVB_DMX_IMMEDIATE_START) ? filter_start(f) : 0;
}

static int set_sct_filter(struct card_file *f, const struct ffdvb_dmx_sct_filter_params *p)
{
	struct card_dmx_filter *flt = &f->dmx;

	filter_stop(f);
	flt->type = CARD_DMX_SECTION;
	flt->sct = *p;
	flt->state = CARD_DMX_SET;
	return (p->flags & FFDVB_DMX_IMMEDIATE_START) ? filter_start(f) : 0;
}

static int emulate_ioctl(struct card_file *f, struct ffdvb_ioctl *io)
{
	struct ffdvb_card *card = f->node->card;

	switch (io->cmd) {
	case FFDVB_DMX_START:
		return filter_start(f);
	case FFDVB_DMX_STOP:
		filter_stop(f);
		return 0;
	case FFDVB_DMX_SET_FILTER:
		return set_sct_filter(f, io->buf);
	case FFDVB_DMX_SET_PES_FILTER:
		return set_pes_filter(f, io->buf);
	case FFDVB_DMX_SET_BUFFER_SIZE: /* dmxdev: the same size is fine even while running */
		if (f->dmx.buffer_size == io->arg)
			return 0;
		if (!io->arg)
			return -EINVAL;
		if (f->dmx.state >= CARD_DMX_GO)
			return -EBUSY;
		f->dmx.buffer_size = io->arg; /* the new buffer exists at once */
		return 0;
	case FFDVB_DMX_GET_PES_PIDS:
		memcpy(io->buf, card->dmx_pids, 5 * sizeof(uint16_t));
		return 0;
	case FFDVB_DMX_GET_STC: {
		struct ffdvb_dmx_stc *stc = io->buf;

		if (stc->num != 0)
			return -EINVAL;
		stc->base = 1;
		stc->stc = card_stc(card); /* 33 bits, 90 kHz (playback.c) */
		return 0;
	}
	case FFDVB_DMX_ADD_PID:
		return add_pid(f, *(const uint16_t *)io->buf);
	case FFDVB_DMX_REMOVE_PID:
		return remove_pid(f, *(const uint16_t *)io->buf);
	default:
		return -ENOTTY;
	}
}

/* The card's own ioctls; the others go to the tuner's demux file too (see the top). */
static int demux_ioctl(struct card_file *f, struct ffdvb_ioctl *io)
{
	int r;

	if (io->cmd == FFDVB_DMX_GET_PES_PIDS || io->cmd == FFDVB_DMX_GET_STC)
		return emulate_ioctl(f, io);
	if (ffdvb_tuner_validates_demux(f->node->card->tuner)) {
		r = (int)card_tuner_result(ffdvb_tuner_ioctl(f->tf, io), io->nonblock,
					   io->interrupted);
		if (r < 0)
			return r;
		emulate_ioctl(f, io); /* the same dmxdev rules: keeps decoder feeds and states */
		return r;
	}
	r = emulate_ioctl(f, io);
	if (r < 0)
		return r;
	return (int)card_tuner_result(ffdvb_tuner_ioctl(f->tf, io), io->nonblock, io->interrupted);
}

static int demux_opened(struct card_file *f)
{
	f->dmx.buffer_size = 8192; /* dmxdev's default filter buffer */
	return card_tuner_attach(f, FFDVB_TUNER_DEMUX);
}

static void demux_released(struct card_file *f)
{
	filter_stop(f); /* frees the decoder feed; the firmware keeps its PIDs (§8.1) */
	card_tuner_detach(f);
}

/* dvb-core returns 0 (EOF) before a filter has ever been started: the tuner's file says so */
static ssize_t demux_read(struct card_file *f, void *buf, size_t len, int nonblock)
{
	return card_tuner_result(ffdvb_tuner_read(f->tf, buf, len), nonblock, 0);
}

static ssize_t demux_write(struct card_file *f, const void *buf, size_t len, int nonblock)
{
	(void)f, (void)buf, (void)len, (void)nonblock;
	return -EINVAL; /* no write op on demux0 (dvr0 takes TS) */
}

static unsigned int demux_poll(struct card_file *f)
{
	return ffdvb_tuner_poll(f->tf);
}

const struct card_node_impl card_demux_impl = {
	.opened = demux_opened,
	.released = demux_released,
	.read = demux_read,
	.write = demux_write,
	.ioctl = demux_ioctl,
	.poll = demux_poll,
};
