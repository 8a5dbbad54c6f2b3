/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The drain: what plays the rings of a card without a decoder (--no-decode, the flow-control
 * tests), behind the same card_decoder_ops as the decoder (decode.c). It takes drain_rate
 * bytes a second from each ring that the firmware would be fed from and discards them, keeps
 * a 90 kHz counter as the STC, decodes nothing live and reports no decoder in the status. */
#include <errno.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <event2/event.h>

#include "card_internal.h"

#define DRAIN_PERIOD_US 10000
#define NS_PER_S 1000000000u
#define STC_MASK ((1ull << 33) - 1)

static void drain_cb(evutil_socket_t fd, short what, void *arg)
{
	uint64_t expirations;

	(void)what;
	if (read(fd, &expirations, sizeof(expirations)) < 0)
		return; /* EAGAIN: not expired after all */
	card_drain_tick(arg);
}

/* The drain period is a timerfd (armed in drain_sync below), not a libevent timer: with a
 * timer pending, every turn of the loop passes a timeout to epoll_wait, and the kernel then
 * reads the clock and arms a timer of its own for each request served (in the TCG VM that
 * added about a tenth of a bare CUSE device's round trip to every 188-byte write). */
static int drain_start(struct ffdvb_card *card)
{
	int fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);

	if (fd < 0)
		return -errno;
	card->drain_ev = event_new(card->base, fd, EV_READ | EV_PERSIST, drain_cb, card);
	if (!card->drain_ev) {
		close(fd);
		return -ENOMEM;
	}
	return 0;
}

static void drain_stop(struct ffdvb_card *card)
{
	if (card->drain_ev) {
		int fd = event_get_fd(card->drain_ev);

		event_free(card->drain_ev);
		close(fd);
	}
	card->drain_ev = NULL;
	card->drain_running = 0;
}

/* The STC: a 90 kHz counter that runs while video plays from memory and is not frozen, and
 * stands still otherwise (VDR reads it as the replay position and expects it to stop in pause
 * and when data runs out). */
static int stc_should_run(const struct ffdvb_card *card)
{
	return (card->playing & CARD_PLAY_VIDEO) && card->video.play_state != FFDVB_VIDEO_FREEZED;
}

static uint64_t drain_stc(struct ffdvb_card *card)
{
	uint64_t v = card->stc_base;

	if (card->stc_running)
		v += (card_now(card) - card->stc_anchor_ns) * 9 / 100000;
	return v & STC_MASK;
}

static void stc_update(struct ffdvb_card *card)
{
	int run = stc_should_run(card);

	if (run == card->stc_running)
		return;
	card->stc_base = drain_stc(card);
	card->stc_anchor_ns = card_now(card);
	card->stc_running = run;
}

/* the timer runs while anything plays from memory */
static void drain_sync(struct ffdvb_card *card)
{
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
	for (int s = 0; s < FFDVB_STREAM_COUNT; s++)
		if ((card->playing & CARD_PLAY_BIT(s)) &&
		    (s != FFDVB_STREAM_VIDEO || card->video.play_state != FFDVB_VIDEO_FREEZED))
			drained += card_ring_skip(&card->st[s].ring, bytes);
	if (drained)
		card_wake_av(card);
	card_update(card);
}

/* the rings are emptied by the timer alone: nothing is pushed, cleared or held elsewhere */
static void drain_nothing(struct ffdvb_card *card)
{
	(void)card;
}

static void drain_clear(struct ffdvb_card *card, enum ffdvb_stream s)
{
	(void)card, (void)s;
}

static void drain_still(struct ffdvb_card *card, const uint8_t *es, size_t len)
{
	(void)card, (void)es, (void)len;
}

static void drain_status(struct ffdvb_card *card, FILE *out, int json)
{
	(void)card;
	fprintf(out, json ? "\"decoder\":null," : "decoder: none (--no-decode)\n");
}

const struct card_decoder_ops card_drain_ops = {
	.live = 0, /* nothing to show: the demux's decoder feeds are not tapped */
	.start = drain_start,
	.stop = drain_stop,
	.sync = drain_sync,
	.feed = drain_nothing,
	.clear = drain_clear,
	.still = drain_still,
	.stc = drain_stc,
	.status = drain_status,
};
