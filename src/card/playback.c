/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Host -> decoder playback (§4.4 start_play / av_stop) and the rings' flushes; what plays the
 * rings is card->decoder: the decoder (decode.c) or, without one, the drain (drain.c). */
#include <errno.h>

#include "card_internal.h"

int card_free_cond(const struct ffdvb_card *card)
{
	for (int s = 0; s < FFDVB_STREAM_COUNT; s++)
		if (card_ring_space(&card->st[s].ring) < CARD_FREE_COND_PES)
			return 0;
	return 1;
}

/* start_play from nothing playing resets both repackers (§4.3) */
static void reset_repackers(struct ffdvb_card *card)
{
	for (int s = 0; s < FFDVB_STREAM_COUNT; s++)
		ffdvb_repacker_reset(&card->st[s].repack);
}

int card_start_play(struct ffdvb_card *card, unsigned int what)
{
	if (card->rec_mode || (card->playing & what))
		return -EBUSY;
	if (!card->playing)
		reset_repackers(card);
	card->playing |= what;
	card_play_state_changed(card);
	return 0;
}

void card_av_stop(struct ffdvb_card *card, unsigned int what)
{
	if (!(card->playing & what))
		return;
	card->playing &= ~what;
	/* nothing left: the firmware goes back to live decoding of the demux PIDs (card_update's
	 * routing, card_live_route in live.c) */
	card_play_state_changed(card);
}

void card_play_state_changed(struct ffdvb_card *card)
{
	/* memory playback suspends live decoding and gives it back; the decoder (or the drain's
	 * timer and STC) follows the state and paces the rings; the masks may change */
	card->dirty |= CARD_DIRTY_ROUTE | CARD_DIRTY_SYNC | CARD_DIRTY_FEED | CARD_DIRTY_WAKE;
}

void card_flush_stream(struct ffdvb_card *card, enum ffdvb_stream s)
{
	card_ring_flush(&card->st[s].ring);
	if (s == FFDVB_STREAM_VIDEO)
		card->still_ring_bytes = 0; /* the still picture's copies went with the ring */
	card->decoder->clear(card, s);
}

void card_audio_decoding_started(struct ffdvb_card *card)
{
	card->effective_mute = 0;
}
