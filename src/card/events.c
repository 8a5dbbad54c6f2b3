/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The video event queue (§9.4): 8 slots, at most 7 pending; when full the oldest event is
 * dropped and the next VIDEO_GET_EVENT reports EOVERFLOW once. */
#include <errno.h>
#include <string.h>

#include "card_internal.h"

void card_events_reset(struct ffdvb_card *card)
{
	card->ev_rd = card->ev_wr = 0; /* the overflow flag is kept, as on av7110 */
	card_wake(card, FFDVB_NODE_VIDEO);
}

int card_events_pending(const struct ffdvb_card *card)
{
	return card->ev_rd != card->ev_wr;
}

void card_queue_event(struct ffdvb_card *card, const struct ffdvb_video_event *ev)
{
	unsigned int next = (card->ev_wr + 1) % CARD_EVENT_SLOTS;

	if (next == card->ev_rd) {
		card->ev_rd = (card->ev_rd + 1) % CARD_EVENT_SLOTS;
		card->ev_overflow = 1;
	}
	card->events[card->ev_wr] = *ev;
	card->ev_wr = next;
	card_wake(card, FFDVB_NODE_VIDEO);
}

void card_video_size_changed(struct ffdvb_card *card, int w, int h, int mpeg_aspect)
{
	struct ffdvb_video_event ev;
	int fmt = mpeg_aspect == 3 ? FFDVB_VIDEO_FORMAT_16_9
		: mpeg_aspect == 4 ? FFDVB_VIDEO_FORMAT_221_1
				   : FFDVB_VIDEO_FORMAT_4_3;

	card->video_size.w = w;
	card->video_size.h = h;
	card->video_size.aspect_ratio = fmt;
	card->video.video_format = fmt;
	memset(&ev, 0, sizeof(ev));
	ev.type = FFDVB_VIDEO_EVENT_SIZE_CHANGED;
	ev.timestamp = 0;
	ev.u.size = card->video_size;
	card_queue_event(card, &ev);
}

int card_get_event(struct ffdvb_card *card, struct ffdvb_ioctl *io)
{
	if (card->ev_overflow) {
		card->ev_overflow = 0;
		return -EOVERFLOW;
	}
	if (!card_events_pending(card)) {
		if (io->nonblock)
			return -EWOULDBLOCK;
		return io->interrupted ? -EINTR : -FFDVB_EBLOCK;
	}
	memcpy(io->buf, &card->events[card->ev_rd], sizeof(struct ffdvb_video_event));
	card->ev_rd = (card->ev_rd + 1) % CARD_EVENT_SLOTS;
	card_wake(card, FFDVB_NODE_VIDEO); /* POLLPRI may go away */
	return 0;
}
