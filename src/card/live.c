/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Live decoding from the demux (av7110 with VIDEO/AUDIO_SELECT_SOURCE DEMUX): when a client
 * starts a decoder feed (pes_type VIDEO/AUDIO with output DMX_OUT_DECODER), the firmware takes
 * that PID from its demux. Here the card opens a demux file of its own on the tuner with a TS
 * tap on the PID and pumps what it delivers through the repackers into the rings, from where
 * the decoder takes it as it takes memory playback. Memory playback of a stream suspends its
 * live feed (the firmware returns to the demux PIDs when playback stops). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>

#include <event2/event.h>

#include "ffdvb/tuner.h"

#include "card_internal.h"

#define LIVE_TAP_BUFFER (1024 * 1024) /* ~1 s of an HD service between two pumps */
#define LIVE_BATCH 16                 /* TS packets read at a time */

static const struct {
	int pes_type;
	const char *name;
} live_streams[FFDVB_STREAM_COUNT] = {
	[FFDVB_STREAM_VIDEO] = { FFDVB_DMX_PES_VIDEO0, "video" },
	[FFDVB_STREAM_AUDIO] = { FFDVB_DMX_PES_AUDIO0, "audio" },
};

static void live_cb(evutil_socket_t fd, short what, void *arg)
{
	struct ffdvb_card *card = arg;

	(void)fd, (void)what;
	card->dirty |= CARD_DIRTY_FEED; /* the taps first, then the rings */
	card_update(card);
}

static void tap_woke(void *ctx)
{
	card_live_kick(ctx);
}

int card_live_init(struct ffdvb_card *card)
{
	card->live_ev = event_new(card->base, -1, 0, live_cb, card);
	return card->live_ev ? 0 : -ENOMEM;
}

static void close_tap(struct ffdvb_card *card, int w)
{
	ffdvb_tuner_close(card->st[w].tap);
	card->st[w].tap = NULL;
}

void card_live_free(struct ffdvb_card *card)
{
	for (int w = 0; w < FFDVB_STREAM_COUNT; w++)
		close_tap(card, w);
	if (card->live_ev)
		event_free(card->live_ev);
	card->live_ev = NULL;
}

/* The PID the firmware would decode live for stream w, or -1. */
static int wanted_pid(const struct ffdvb_card *card, int w)
{
	const struct card_file *f = card->dmx_decoder[live_streams[w].pes_type];

	if (!f || f->dmx.pes.output != FFDVB_DMX_OUT_DECODER || !card->decoder->live)
		return -1;
	if (card->playing & CARD_PLAY_BIT(w))
		return -1;
	return card->dmx_pids[live_streams[w].pes_type];
}

/* A remote tuner answers later (-FFDVB_EBLOCK): the tap does not wait for it. Its calls run
 * in order after its open; if one fails, the tap stays without data, as with a lost tuner. */
static int tap_call(struct ffdvb_tuner_file *tap, struct ffdvb_ioctl *io)
{
	int r = ffdvb_tuner_ioctl(tap, io);

	if (r != -FFDVB_EBLOCK)
		return r;
	io->interrupted = 1; /* let go of the result; the call itself still runs */
	ffdvb_tuner_ioctl(tap, io);
	return 0;
}

static int open_tap(struct ffdvb_card *card, int w, uint16_t pid)
{
	struct ffdvb_dmx_pes_filter_params p = {
		.pid = pid,
		.input = FFDVB_DMX_IN_FRONTEND,
		.output = FFDVB_DMX_OUT_TSDEMUX_TAP,
		.pes_type = FFDVB_DMX_PES_OTHER, /* the client's feed holds the decoder slot */
		.flags = FFDVB_DMX_IMMEDIATE_START,
	};
	struct ffdvb_ioctl io = { .cmd = FFDVB_DMX_SET_BUFFER_SIZE, .arg = LIVE_TAP_BUFFER,
				  .nonblock = 1 };
	struct ffdvb_tuner_file *tap;
	int r = ffdvb_tuner_open(card->tuner, FFDVB_TUNER_DEMUX, O_RDONLY | O_NONBLOCK, &tap);

	if (r < 0 && r != -FFDVB_EBLOCK)
		return r;
	r = tap_call(tap, &io);
	if (r == 0) {
		io = (struct ffdvb_ioctl){ .cmd = FFDVB_DMX_SET_PES_FILTER, .buf = &p,
					   .nonblock = 1 };
		r = tap_call(tap, &io);
	}
	if (r < 0) {
		ffdvb_tuner_close(tap);
		return r;
	}
	ffdvb_tuner_set_wake(tap, tap_woke, card);
	card->st[w].tap = tap;
	card->st[w].pid = pid;
	return 0;
}

/* what the ring, the repacker and the decoder hold of live stream w is gone */
static void flush_live(struct ffdvb_card *card, int w)
{
	card_flush_stream(card, w);
	ffdvb_repacker_reset(&card->st[w].repack);
}

void card_live_feed_changed(struct ffdvb_card *card, int pes_type, int stopped)
{
	for (int w = 0; w < FFDVB_STREAM_COUNT; w++)
		if (stopped && live_streams[w].pes_type == pes_type)
			card->st[w].refeed = 1; /* a restart on the same PID is a new stream too */
	card->dirty |= CARD_DIRTY_ROUTE;
}

int card_live_route(struct ffdvb_card *card)
{
	int changed = 0;

	for (int w = 0; w < FFDVB_STREAM_COUNT; w++) {
		int pid = wanted_pid(card, w);
		struct card_stream *l = &card->st[w];
		int refeed = l->refeed;

		l->refeed = 0;
		if (l->tap && pid == l->pid && !refeed)
			continue;
		if (!l->tap && pid < 0)
			continue;
		if (l->tap) /* a new PID (a zap) or the feed stopped: the old stream is gone */
			close_tap(card, w);
		if (!(card->playing & CARD_PLAY_BIT(w)))
			flush_live(card, w);
		if (pid >= 0 && open_tap(card, w, (uint16_t)pid) == 0 && w == FFDVB_STREAM_AUDIO)
			card_audio_decoding_started(card); /* a new audio PID un-mutes (§2.9) */
		changed = 1;
	}
	return changed;
}

int card_stream_active(const struct ffdvb_card *card, enum ffdvb_stream s)
{
	return (card->playing & CARD_PLAY_BIT(s)) || card->st[s].tap;
}

/* The av7110 stopped its PID filters and flushed its TS queue when its frontend was tuned, and
 * set the PIDs again at lock (docs/av7110.md, "Tuning while live"): what the decoder holds of the
 * old transponder, the tail of a picture above all, never reaches the screen after a zap. Here
 * the tuner already serves the new transponder (or nothing until lock), so what the taps, rings
 * and decoder hold now is all old. */
void card_live_retuned(struct ffdvb_card *card)
{
	uint8_t buf[LIVE_BATCH * CARD_TS_SIZE];

	for (int w = 0; w < FFDVB_STREAM_COUNT; w++) {
		struct card_stream *l = &card->st[w];
		ssize_t n;

		if (!l->tap || (card->playing & CARD_PLAY_BIT(w)))
			continue;
		do /* bounded by the tap's buffer */
			n = ffdvb_tuner_read(l->tap, buf, sizeof(buf));
		while (n > 0 || n == -EOVERFLOW);
		flush_live(card, w);
	}
}

void card_live_kick(struct ffdvb_card *card)
{
	if (card->live_ev && (card->st[FFDVB_STREAM_VIDEO].tap || card->st[FFDVB_STREAM_AUDIO].tap))
		event_active(card->live_ev, EV_TIMEOUT, 0);
}

/* Moves what the taps have into the rings while they have room; a full ring leaves the rest in
 * the tap (the tuner's buffer) until the decoder made room and kicks again. */
void card_live_pump(struct ffdvb_card *card)
{
	uint8_t buf[LIVE_BATCH * CARD_TS_SIZE];

	for (int w = 0; w < FFDVB_STREAM_COUNT; w++) {
		struct card_stream *l = &card->st[w];

		while (l->tap && card_ring_space(&l->ring) >= sizeof(buf) + CARD_FREE_COND_TS) {
			ssize_t n = ffdvb_tuner_read(l->tap, buf, sizeof(buf));

			if (n == -EOVERFLOW) { /* the decoder fell behind the broadcast */
				l->overflows++;
				ffdvb_repacker_reset(&l->repack);
				continue;
			}
			if (n <= 0)
				break; /* -EAGAIN: the tap wakes us; -ENODEV: the tuner is gone */
			for (ssize_t i = 0; i + CARD_TS_SIZE <= n; i += CARD_TS_SIZE) {
				if (buf[i] != 0x47)
					continue;
				ffdvb_repacker_ts_packet(&l->repack, buf + i);
				l->packets++;
			}
		}
	}
}

void card_live_status(struct ffdvb_card *card, FILE *out, int json)
{
	for (int w = 0; w < FFDVB_STREAM_COUNT; w++) {
		const struct card_stream *l = &card->st[w];

		if (json)
			fprintf(out, "%s\"%s\":{\"pid\":%d,\"packets\":%" PRIu64 ",\"overflows\":%" PRIu64
				"}", w ? "," : "\"live\":{", live_streams[w].name,
				l->tap ? l->pid : -1, l->packets, l->overflows);
		else if (l->tap)
			fprintf(out, "live %s: PID %u, %" PRIu64 " packets, %" PRIu64 " overflows\n",
				live_streams[w].name, l->pid, l->packets, l->overflows);
	}
	if (json)
		fputs("},", out);
}
