/* SPDX-License-Identifier: GPL-2.0-or-later */
/* video0 (§2.2, §4): one writer and five read-only openers sharing the card's video state. */
#include <errno.h>
#include <poll.h>
#include <string.h>

#include "card_internal.h"

static int video_opened(struct card_file *f)
{
	struct ffdvb_card *card = f->node->card;

	if (!f->writer)
		return 0;
	for (int s = 0; s < FFDVB_STREAM_COUNT; s++) /* both rings, even if audio0 plays elsewhere */
		card_flush_stream(card, s);
	card->audio.AV_sync_state = 1; /* reported only, nothing is applied */
	card->video.stream_source = FFDVB_VIDEO_SOURCE_DEMUX;
	card->video_blank_internal = 1;
	card_events_reset(card);
	card_wake_av(card);
	return 0;
}

static void video_released(struct card_file *f)
{
	if (f->writer)
		card_av_stop(f->node->card, CARD_PLAY_VIDEO); /* reported state persists */
}

static ssize_t video_read(struct card_file *f, void *buf, size_t len, int nonblock)
{
	(void)f, (void)buf, (void)len, (void)nonblock;
	return -EINVAL;
}

static ssize_t video_write(struct card_file *f, const void *buf, size_t len, int nonblock)
{
	struct ffdvb_card *card = f->node->card;

	(void)nonblock;
	if (!f->writer) /* the VFS says EBADF first; kept for direct callers */
		return -EPERM;
	if (card->video.stream_source != FFDVB_VIDEO_SOURCE_MEMORY)
		return -EPERM;
	return card_av_write(card, FFDVB_NODE_VIDEO, buf, len);
}

static int video_play(struct ffdvb_card *card)
{
	card->trick = CARD_TRICK_NONE;
	if (card->video.play_state == FFDVB_VIDEO_FREEZED)
		card->video.play_state = FFDVB_VIDEO_PLAYING;
	if (card->video.stream_source == FFDVB_VIDEO_SOURCE_MEMORY) {
		int r;

		/* A+V playing: soft restart of the firmware player in AV mode */
		if (card->playing == (CARD_PLAY_VIDEO | CARD_PLAY_AUDIO))
			card->playing &= ~CARD_PLAY_VIDEO;
		r = card_start_play(card, CARD_PLAY_VIDEO);
		if (r < 0)
			return r;
	}
	card->video.play_state = FFDVB_VIDEO_PLAYING;
	return 0;
}

static int video_ioctl(struct card_file *f, struct ffdvb_ioctl *io)
{
	struct ffdvb_card *card = f->node->card;
	int r = 0;

	if (!f->writer && io->cmd != FFDVB_VIDEO_GET_STATUS && io->cmd != FFDVB_VIDEO_GET_EVENT &&
	    io->cmd != FFDVB_VIDEO_GET_SIZE)
		return -EPERM;

	/* Queries and setters of values that neither a waiting request, a poll mask, the STC nor
	 * the drain depend on return at once: card_play_state_changed() would wake for nothing. */
	switch (io->cmd) {
	case FFDVB_VIDEO_GET_STATUS:
		memcpy(io->buf, &card->video, sizeof(card->video));
		return 0;
	case FFDVB_VIDEO_GET_EVENT:
		return card_get_event(card, io);
	case FFDVB_VIDEO_GET_SIZE:
		memcpy(io->buf, &card->video_size, sizeof(card->video_size));
		return 0;
	case FFDVB_VIDEO_GET_CAPABILITIES:
		*(unsigned int *)io->buf = FFDVB_VIDEO_CAP_MPEG1 | FFDVB_VIDEO_CAP_MPEG2 |
					   FFDVB_VIDEO_CAP_SYS | FFDVB_VIDEO_CAP_PROG;
		return 0;
	case FFDVB_VIDEO_STILLPICTURE:
		r = card_still_picture(card, io);
		if (r == -FFDVB_EBLOCK)
			return r;
		break;
	case FFDVB_VIDEO_STOP:
		card->video.play_state = FFDVB_VIDEO_STOPPED;
		if (card->video.stream_source == FFDVB_VIDEO_SOURCE_MEMORY)
			card_av_stop(card, CARD_PLAY_VIDEO);
		/* DEMUX source: av7110 stops the live picture (black if video_blank). Not emulated:
		 * a live decoder feed keeps playing (the decoder's sync looks at the feed, not at
		 * play_state) */
		card->trick = CARD_TRICK_NONE;
		break;
	case FFDVB_VIDEO_PLAY:
		r = video_play(card);
		break;
	case FFDVB_VIDEO_FREEZE:
		card->video.play_state = FFDVB_VIDEO_FREEZED;
		card->trick = CARD_TRICK_FREEZE;
		break;
	case FFDVB_VIDEO_CONTINUE:
		card->video.play_state = FFDVB_VIDEO_PLAYING;
		card->trick = CARD_TRICK_NONE;
		break;
	case FFDVB_VIDEO_SELECT_SOURCE:
		card->video.stream_source = (int32_t)io->arg; /* stored, no validation */
		break;
	case FFDVB_VIDEO_SET_BLANK:
		card->video.video_blank = (int32_t)io->arg;
		return 0;
	case FFDVB_VIDEO_SET_DISPLAY_FORMAT:
		if ((int32_t)io->arg < FFDVB_VIDEO_PAN_SCAN ||
		    (int32_t)io->arg > FFDVB_VIDEO_CENTER_CUT_OUT)
			return -EINVAL;
		card->video.display_format = (int32_t)io->arg;
		return 0;
	case FFDVB_VIDEO_FAST_FORWARD:
		card->trick = CARD_TRICK_FAST;
		card->video.play_state = FFDVB_VIDEO_PLAYING;
		break;
	case FFDVB_VIDEO_SLOWMOTION:
		card->trick = CARD_TRICK_SLOW;
		card->slow_count = io->arg;
		card->video.play_state = FFDVB_VIDEO_PLAYING;
		break;
	case FFDVB_VIDEO_CLEAR_BUFFER:
		card_flush_stream(card, FFDVB_STREAM_VIDEO);
		ffdvb_repacker_reset(&card->st[FFDVB_STREAM_VIDEO].repack);
		if (card->playing) /* docs/av7110.md, clients §2.9: restarting decoding un-mutes */
			card->effective_mute = 0;
		break;
	case FFDVB_VIDEO_SET_STREAMTYPE:
		return 0;
	case FFDVB_VIDEO_SET_FORMAT:
		if (io->arg > 1) /* unsigned: negative values too */
			return -EINVAL;
		card->display_ar = (int)io->arg;
		return 0;
	default: /* removed or never implemented on av7110 */
		return -ENOTTY;
	}
	card_play_state_changed(card); /* STC, drain timer, wake-ups */
	return r;
}

static unsigned int video_poll(struct card_file *f)
{
	struct ffdvb_card *card = f->node->card;
	unsigned int mask = 0;

	if (card_events_pending(card))
		mask |= POLLPRI;
	if (f->writer && (!card->playing || card_free_cond(card)))
		mask |= POLLOUT | POLLWRNORM;
	return mask;
}

const struct card_node_impl card_video_impl = {
	.opened = video_opened,
	.released = video_released,
	.read = video_read,
	.write = video_write,
	.ioctl = video_ioctl,
	.poll = video_poll,
};
