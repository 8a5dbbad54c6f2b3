/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Host -> decoder playback (§4.4 start_play / av_stop). Without a decoder (flow-control tests),
 * a drain at a steady rate and a 90 kHz counter stand in for its consumption and its STC. */
#include <errno.h>
#include <sys/timerfd.h>

#include <event2/event.h>

#include "ffdvb/decoder.h"

#include "card_internal.h"

#define DRAIN_PERIOD_US 10000
#define NS_PER_S 1000000000u
#define STC_MASK ((1ull << 33) - 1)

int card_free_cond(const struct ffdvb_card *card)
{
	return card_ring_space(&card->vring) >= CARD_FREE_COND_PES &&
	       card_ring_space(&card->aring) >= CARD_FREE_COND_PES;
}

/* start_play from nothing playing resets both repackers (§4.3) */
static void reset_repackers(struct ffdvb_card *card)
{
	ffdvb_repacker_reset(&card->vrepack);
	ffdvb_repacker_reset(&card->arepack);
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
	/* nothing left: the firmware goes back to live decoding of the demux PIDs (done by
	 * card_live_update, live.c, from card_play_state_changed) */
	card_play_state_changed(card);
}

/* The STC of a card without a decoder (--no-decode, the flow-control tests; with one it is the
 * decoder's, below): a 90 kHz counter that runs while video plays from memory and is not
 * frozen, and stands still otherwise (VDR reads it as the replay position and expects it to
 * stop in pause and when data runs out). */
static int stc_should_run(const struct ffdvb_card *card)
{
	return (card->playing & CARD_PLAY_VIDEO) && card->video.play_state != FFDVB_VIDEO_FREEZED;
}

uint64_t card_stc(struct ffdvb_card *card)
{
	uint64_t v = card->stc_base;

	/* the decoder's: the PTS of the picture on screen (0 before the first one) */
	if (card->dec)
		return ffdvb_decoder_stc(card->dec, &v) == 0 ? v : 0;

	if (card->stc_running)
		v += (card_now(card) - card->stc_anchor_ns) * 9 / 100000;
	return v & STC_MASK;
}

static void stc_update(struct ffdvb_card *card)
{
	int run = stc_should_run(card);

	if (run == card->stc_running)
		return;
	card->stc_base = card_stc(card);
	card->stc_anchor_ns = card_now(card);
	card->stc_running = run;
}

void card_play_state_changed(struct ffdvb_card *card)
{
	card_live_update(card); /* memory playback suspends live decoding and gives it back */
	if (card->dec) { /* the decoder paces the rings and keeps the STC */
		card_decoder_sync(card);
		card_feed_decoder(card);
		card_wake_av(card);
		return;
	}
	stc_update(card);
	if (card->playing && !card->drain_running) {
		const struct timespec period = { 0, DRAIN_PERIOD_US * 1000 };
		const struct itimerspec every = { period, period };

		card->drain_last_ns = card_now(card);
		card->drain_frac = 0;
		if (timerfd_settime(event_get_fd(card->drain_ev), 0, &every, NULL) == 0 &&
		    event_add(card->drain_ev, NULL) == 0)
			card->drain_running = 1;
	} else if (!card->playing && card->drain_running) {
		const struct itimerspec off = { { 0, 0 }, { 0, 0 } };

		event_del(card->drain_ev);
		timerfd_settime(event_get_fd(card->drain_ev), 0, &off, NULL);
		card->drain_running = 0;
	}
	card_wake_av(card);
}

/* Takes drain_rate * dt bytes from each ring that the firmware would be fed from: video only
 * while not FREEZED (§6.2), nothing of a ring whose bit is not in `playing`. */
void card_drain_tick(struct ffdvb_card *card)
{
	uint64_t now = card_now(card);
	uint64_t dt = now - card->drain_last_ns;
	uint64_t scaled, bytes;
	size_t drained = 0;

	card->drain_last_ns = now;
	if (dt > NS_PER_S)
		dt = NS_PER_S;
	scaled = (uint64_t)card->cfg.drain_rate * dt + card->drain_frac;
	bytes = scaled / NS_PER_S;
	card->drain_frac = scaled % NS_PER_S;
	if ((card->playing & CARD_PLAY_VIDEO) && card->video.play_state != FFDVB_VIDEO_FREEZED)
		drained += card_ring_skip(&card->vring, bytes);
	if (card->playing & CARD_PLAY_AUDIO)
		drained += card_ring_skip(&card->aring, bytes);
	if (drained)
		card_wake_av(card);
}

void card_audio_decoding_started(struct ffdvb_card *card)
{
	card->effective_mute = 0;
}
