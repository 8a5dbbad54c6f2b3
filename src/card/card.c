/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The card object and the node_ops entry points shared by all six nodes: open counting
 * (dvb-core dvb_generic_open, §2.1), per-node statistics, wake-up hooks. What each node does
 * lives in video.c, audio.c, osd_node.c, demux.c, frontend.c and dvr.c. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <event2/event.h>
#include <linux/dvb/frontend.h>

#include "ffdvb/clock.h"
#include "ffdvb/tuner.h"

#include "card_internal.h"

/* Open limits: users (total), readers (O_RDONLY), writers (O_WRONLY/O_RDWR). */
static const struct {
	int users, readers, writers;
	int full_errno; /* errno when users is exhausted */
} open_limits[FFDVB_NODE_COUNT] = {
	[FFDVB_NODE_VIDEO] = { 6, 5, 1, EBUSY },
	[FFDVB_NODE_AUDIO] = { 1, 0, 1, EBUSY },
	[FFDVB_NODE_OSD] = { 1, 0, 1, EBUSY },
	/* dvb-core's demux has no counters, only a filter pool (32 on av7110; dvb_demux_open
	 * says EMFILE when it is used up). We allow a generous pool. */
	[FFDVB_NODE_DEMUX] = { 256, 256, 256, EMFILE },
	/* dvb_frontend: one writer, any number of read-only openers */
	[FFDVB_NODE_FRONTEND] = { INT_MAX, INT_MAX, 1, EBUSY },
	/* dmxdev's dvr: one reader and one writer at a time */
	[FFDVB_NODE_DVR] = { INT_MAX, 1, 1, EBUSY },
};

static const struct card_node_impl *const impls[FFDVB_NODE_COUNT] = {
	[FFDVB_NODE_VIDEO] = &card_video_impl,
	[FFDVB_NODE_AUDIO] = &card_audio_impl,
	[FFDVB_NODE_OSD] = &card_osd_impl,
	[FFDVB_NODE_DEMUX] = &card_demux_impl,
	[FFDVB_NODE_FRONTEND] = &card_frontend_impl,
	[FFDVB_NODE_DVR] = &card_dvr_impl,
};

const char *ffdvb_node_name(enum ffdvb_node_type type)
{
	static const char *const names[FFDVB_NODE_COUNT] = {
		"video0", "audio0", "osd0", "demux0", "frontend0", "dvr0"
	};

	return (unsigned int)type < FFDVB_NODE_COUNT ? names[type] : "?";
}

static uint64_t monotonic_ns(void *ctx)
{
	(void)ctx;
	return ffdvb_monotonic_ns();
}

uint64_t card_now(struct ffdvb_card *card)
{
	return card->now_ns(card->now_ctx);
}

struct ffdvb_card *ffdvb_card_new(struct event_base *base, const struct ffdvb_card_config *cfg)
{
	struct ffdvb_card *card = calloc(1, sizeof(*card));

	if (!card)
		return NULL;
	card->base = base;
	if (cfg)
		card->cfg = *cfg;
	if (!card->cfg.drain_rate)
		card->cfg.drain_rate = FFDVB_DEFAULT_DRAIN_RATE;
	if (!card->cfg.osd_memsize)
		card->cfg.osd_memsize = FFDVB_DEFAULT_OSD_MEMSIZE;
	card->now_ns = monotonic_ns;
	for (int t = 0; t < FFDVB_NODE_COUNT; t++) {
		card->nodes[t].card = card;
		card->nodes[t].type = t;
	}

	/* §3 initial state */
	card->video.stream_source = FFDVB_VIDEO_SOURCE_DEMUX;
	card->video.play_state = FFDVB_VIDEO_STOPPED;
	card->video.video_format = FFDVB_VIDEO_FORMAT_4_3;
	card->video.display_format = FFDVB_VIDEO_LETTER_BOX;
	card->audio.play_state = FFDVB_AUDIO_STOPPED;
	card->audio.stream_source = FFDVB_AUDIO_SOURCE_DEMUX;
	card->audio.channel_select = FFDVB_AUDIO_STEREO;
	card->mixer.volume_left = card->mixer.volume_right = 255;
	for (int i = 0; i < FFDVB_DMX_PES_OTHER; i++)
		card->dmx_pids[i] = 0xffff; /* dvb_demux's "no PID" */

	card->tuner = card->cfg.tuner;
	if (!card->tuner) { /* no hardware: a frontend that never locks */
		char err[256];

		card->tuner = ffdvb_tuner_new(base, "none", err, sizeof(err));
		card->own_tuner = card->tuner != NULL;
	}
	card_repackers_init(card);
	card->decoder = card->cfg.decoder ? &card_decoder_ops : &card_drain_ops;
	card->osd = ffdvb_osd_new(card->cfg.osd_memsize);
	if (!card->tuner || card_live_init(card) < 0 || !card->osd ||
	    card_ring_init(&card->st[FFDVB_STREAM_VIDEO].ring, CARD_VIDEO_RING_SIZE) ||
	    card_ring_init(&card->st[FFDVB_STREAM_AUDIO].ring, CARD_AUDIO_RING_SIZE)) {
		ffdvb_card_free(card);
		errno = ENOMEM;
		return NULL;
	}
	int r = card->decoder->start(card);

	if (r == 0)
		r = card_osd_plane_start(card);

	if (r < 0) {
		ffdvb_card_free(card);
		errno = -r;
		return NULL;
	}
	return card;
}

void ffdvb_card_free(struct ffdvb_card *card)
{
	if (!card)
		return;
	card_live_free(card);
	card_osd_plane_stop(card);
	if (card->decoder)
		card->decoder->stop(card);
	if (card->own_tuner)
		ffdvb_tuner_free(card->tuner);
	for (int s = 0; s < FFDVB_STREAM_COUNT; s++)
		card_ring_release(&card->st[s].ring);
	ffdvb_osd_free(card->osd);
	free(card);
}

void *ffdvb_card_node(struct ffdvb_card *card, enum ffdvb_node_type type)
{
	return (unsigned int)type < FFDVB_NODE_COUNT ? &card->nodes[type] : NULL;
}

void ffdvb_card_set_wake(struct ffdvb_card *card, enum ffdvb_node_type type, ffdvb_wake_fn fn,
			 void *ctx)
{
	if ((unsigned int)type >= FFDVB_NODE_COUNT)
		return;
	card->nodes[type].wake = fn;
	card->nodes[type].wake_ctx = ctx;
}

/* ---- node_ops: counting and statistics, then the node's own implementation, then the card's
 * update (update.c) for whatever the request changed ---------------------------------------- */

static int open_file(struct card_node *node, int flags, void **file)
{
	int writer = (flags & O_ACCMODE) != O_RDONLY;
	struct card_file *f;

	if (node->users >= open_limits[node->type].users)
		return -open_limits[node->type].full_errno;
	if (writer ? node->writers >= open_limits[node->type].writers
		   : node->readers >= open_limits[node->type].readers)
		return -EBUSY;
	f = calloc(1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	f->node = node;
	f->flags = flags;
	f->writer = writer;
	node->users++;
	if (writer)
		node->writers++;
	else
		node->readers++;
	if (impls[node->type]->opened) {
		int r = impls[node->type]->opened(f);

		if (r == -FFDVB_EBLOCK) { /* the transport waits with node_open_wait */
			*file = f;
			return r;
		}
		if (r < 0) {
			node->users--;
			if (writer)
				node->writers--;
			else
				node->readers--;
			free(f);
			return r;
		}
	}
	*file = f;
	return 0;
}

static int node_open(void *node_ptr, int flags, void **file)
{
	struct card_node *node = node_ptr;
	int r = open_file(node, flags, file);

	card_update(node->card);
	return r;
}

/* an open whose tuner answers later (a remote device): released by the transport on -errno */
static int node_open_wait(void *file, int interrupted)
{
	struct card_file *f = file;
	int r = card_tuner_open_wait(f, interrupted);

	card_update(f->node->card);
	return r;
}

static void node_release(void *file)
{
	struct card_file *f = file;
	struct card_node *node = f->node;

	if (impls[node->type]->released)
		impls[node->type]->released(f);
	node->users--;
	if (f->writer)
		node->writers--;
	else
		node->readers--;
	free(f);
	card_update(node->card);
}

/* waiting is not an error: EAGAIN/EWOULDBLOCK, EBLOCK and EINTR are not counted */
static void count_result(struct card_node *node, long r)
{
	if (r < 0 && r != -EAGAIN && r != -EWOULDBLOCK && r != -FFDVB_EBLOCK && r != -EINTR)
		node->errors++;
}

static ssize_t node_read(void *file, void *buf, size_t len, int nonblock)
{
	struct card_file *f = file;
	ssize_t r = impls[f->node->type]->read ? impls[f->node->type]->read(f, buf, len, nonblock)
					       : -EINVAL;

	count_result(f->node, r);
	card_update(f->node->card);
	return r;
}

/* bytes_refused counts the bytes of a call that were not taken because of flow control (a
 * short count or EAGAIN; a blocking writer retries, so its bytes may be counted again). */
static ssize_t node_write(void *file, const void *buf, size_t len, int nonblock)
{
	struct card_file *f = file;
	ssize_t r = impls[f->node->type]->write ? impls[f->node->type]->write(f, buf, len, nonblock)
						: -EINVAL;

	if (r == -EXDEV)
		return r; /* nothing changed: the transport moves the data and calls again */
	if (r >= 0) {
		f->node->bytes_accepted += (size_t)r;
		f->node->bytes_refused += len - (size_t)r;
	} else if (r == -EAGAIN) {
		f->node->bytes_refused += len;
	}
	if (r > 0)
		f->node->card->dirty |= CARD_DIRTY_FEED; /* the decoder may take it at once */
	count_result(f->node, r);
	card_update(f->node->card);
	return r;
}

static int node_ioctl(void *file, struct ffdvb_ioctl *io)
{
	struct card_file *f = file;
	int r = impls[f->node->type]->ioctl(f, io);

	/* mute, mixer, sync, blank, formats...: whatever the ioctl changed goes to the decoder */
	if (f->node->type == FFDVB_NODE_VIDEO || f->node->type == FFDVB_NODE_AUDIO)
		f->node->card->dirty |= CARD_DIRTY_SYNC;
	count_result(f->node, r);
	card_update(f->node->card);
	return r;
}

static unsigned int node_poll(void *file)
{
	struct card_file *f = file;

	return impls[f->node->type]->poll(f);
}

static void *node_write_room(void *node, size_t *len)
{
	struct card_node *n = node;

	return n->writers ? card_write_room(n->card, n->type, len) : NULL;
}

static const struct ffdvb_node_ops card_ops = {
	.open = node_open,
	.open_wait = node_open_wait,
	.release = node_release,
	.read = node_read,
	.write = node_write,
	.write_room = node_write_room,
	.ioctl = node_ioctl,
	.poll = node_poll,
};

/* one table serves all nodes: the node pointer says which one */
const struct ffdvb_node_ops *ffdvb_card_node_ops(enum ffdvb_node_type type)
{
	return (unsigned int)type < FFDVB_NODE_COUNT ? &card_ops : NULL;
}
