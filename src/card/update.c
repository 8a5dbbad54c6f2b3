/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The card's one update step (mpv's playloop): requests (card.c's node_ops) and wake-ups (the
 * decoder's eventfd in decode.c, the live taps in live.c, the drain's timer in drain.c) only
 * change the card's state and mark in card->dirty what follows from it; this brings the rest up
 * to date once, in a fixed order, instead of the handlers calling each other. */
#include "card_internal.h"

void card_update(struct ffdvb_card *card)
{
	if (card->updating)
		return; /* a step's own marks are taken by the loop below */
	card->updating = 1;
	while (card->dirty) {
		unsigned int d = card->dirty;

		card->dirty = 0;
		/* memory playback suspends live decoding and gives it back; a new PID is a new
		   stream: the decoder gets its state and the taps are pumped */
		if ((d & CARD_DIRTY_ROUTE) && card_live_route(card))
			d |= CARD_DIRTY_SYNC | CARD_DIRTY_KICK;
		if (d & CARD_DIRTY_SYNC)
			card->decoder->sync(card);
		if (d & CARD_DIRTY_FEED) {
			if (card->st[FFDVB_STREAM_VIDEO].tap || card->st[FFDVB_STREAM_AUDIO].tap)
				card_live_pump(card); /* not called for every memory write */
			card->decoder->feed(card);
			d |= card->dirty; /* the feed's wake-ups and kick */
			card->dirty &= ~(CARD_DIRTY_WAKE | CARD_DIRTY_KICK);
		}
		if (d & CARD_DIRTY_WAKE) { /* room in the rings: POLLOUT, blocked writers */
			card_wake(card, FFDVB_NODE_VIDEO);
			card_wake(card, FFDVB_NODE_AUDIO);
		}
		if (d & CARD_DIRTY_KICK)
			card_live_kick(card);
	}
	card->updating = 0;
}
