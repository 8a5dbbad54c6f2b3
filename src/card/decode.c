/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The glue between the card and the decoder handed in (include/ffdvb/decoder.h), the card's
 * card_decoder_ops when it has one (drain.c stands in without): whole packets go from the
 * rings to the decoder as the firmware took them (audio first; video withheld while frozen;
 * nothing from a ring whose stream does not play), the play state goes over after every ioctl
 * that changes it, and what the decoder reports (room, picture sizes) comes back through the
 * decoder's eventfd (ffdvb_decoder_wake_fd), which its threads write and the card's event loop
 * reads. */
#include <errno.h>
#include <unistd.h>

#include <event2/event.h>

#include "ffdvb/decoder.h"

#include "card_internal.h"

static void on_decoder(evutil_socket_t fd, short what, void *arg)
{
	struct ffdvb_card *card = arg;
	uint64_t n;

	(void)what;
	if (read(fd, &n, sizeof(n)) < 0) {
		/* EAGAIN: a wake-up raced with an earlier read */
	}
	card->dirty |= CARD_DIRTY_FEED; /* room, or a size event */
	card_update(card);
}

static void dec_sync(struct ffdvb_card *card);

static int dec_start(struct ffdvb_card *card)
{
	card->dec = card->cfg.decoder;
	/* the decoder's threads write its eventfd; this loop reads it */
	card->dec_ev = event_new(card->base, ffdvb_decoder_wake_fd(card->dec), EV_READ | EV_PERSIST,
				 on_decoder, card);
	if (!card->dec_ev || event_add(card->dec_ev, NULL))
		return -ENOMEM;
	dec_sync(card);
	return 0;
}

static void dec_stop(struct ffdvb_card *card)
{
	if (card->dec_ev)
		event_free(card->dec_ev); /* the eventfd is the decoder's */
	card->dec_ev = NULL;
	card->dec = NULL; /* the caller's: it runs on until the caller frees it */
}

static void dec_sync(struct ffdvb_card *card)
{
	struct ffdvb_decoder_state st = { 0 };

	if (!card_stream_active(card, FFDVB_STREAM_VIDEO))
		st.video = FFDVB_DEC_VIDEO_STOPPED; /* neither memory playback nor a live PID */
	else if (card->video.play_state == FFDVB_VIDEO_FREEZED)
		st.video = FFDVB_DEC_VIDEO_FROZEN;
	else
		st.video = FFDVB_DEC_VIDEO_PLAYING;
	/* live audio plays once its PID is set, as the firmware's did; memory audio on AUDIO_PLAY */
	st.audio_playing = (card->playing & CARD_PLAY_AUDIO)
				   ? card->audio.play_state == FFDVB_AUDIO_PLAYING
				   : card->st[FFDVB_STREAM_AUDIO].tap &&
					     card->audio.play_state != FFDVB_AUDIO_PAUSED;
	st.audio_paused = card->audio.play_state == FFDVB_AUDIO_PAUSED;
	st.blank = card->video.video_blank;
	st.av_sync = card->audio.AV_sync_state;
	st.slow = card->trick == CARD_TRICK_SLOW ? (unsigned int)card->slow_count : 0;
	st.fast = card->trick == CARD_TRICK_FAST;
	st.mute = card->effective_mute;
	st.volume_left = card->mixer.volume_left;
	st.volume_right = card->mixer.volume_right;
	st.channel = card->audio.channel_select;
	st.bypass = card->audio.bypass_mode;
	st.tv = card->display_ar ? FFDVB_TV_16_9 : FFDVB_TV_4_3;
	st.display_format = (enum ffdvb_display_format)card->video.display_format;
	st.live = !(card->playing & CARD_PLAY_VIDEO) && card->st[FFDVB_STREAM_VIDEO].tap != NULL;
	ffdvb_decoder_set_state(card->dec, &st);
}

/* Hands whole packets of one ring to the decoder while it has room, straight from the ring
 * (ffdvb_decoder_put2 copies them into its queue: the only copy on this side; its -EAGAIN is
 * ffdvb_decoder_room's test, done under the same lock). Returns bytes moved. */
static size_t feed_ring(struct ffdvb_card *card, struct card_ring *r, enum ffdvb_stream s)
{
	size_t moved = 0;

	for (;;) {
		size_t len, fill = card_ring_fill(r), alen, blen;
		const uint8_t *a, *b;

		if (fill < 6)
			break;
		len = 6 + ((size_t)card_ring_at(r, 4) << 8 | card_ring_at(r, 5));
		if (len > FFDVB_PES_OUT_MAX || fill < len) {
			card_ring_flush(r); /* cannot happen: the rings hold whole packets only */
			break;
		}
		card_ring_span(r, len, &a, &alen, &b, &blen);
		if (ffdvb_decoder_put2(card->dec, s, a, alen, b, blen) < 0)
			break;
		card_ring_skip(r, len);
		moved += len;
	}
	return moved;
}

/* still-picture copies queued for blocking accounting only: the decoder has the picture */
static size_t skip_still_copies(struct ffdvb_card *card)
{
	size_t n = card->still_ring_bytes;

	if (!n)
		return 0;
	n = card_ring_skip(&card->st[FFDVB_STREAM_VIDEO].ring, n);
	card->still_ring_bytes -= n;
	if (card_ring_fill(&card->st[FFDVB_STREAM_VIDEO].ring) == 0)
		card->still_ring_bytes = 0;
	return n;
}

static int mpeg_aspect_of(int num, int den)
{
	if (num * 9 == den * 16)
		return 3;
	if (num * 100 == den * 221)
		return 4;
	return 2;
}

static void dec_feed(struct ffdvb_card *card)
{
	size_t moved = 0;
	int w, h, num, den;

	if (card_stream_active(card, FFDVB_STREAM_AUDIO))
		moved += feed_ring(card, &card->st[FFDVB_STREAM_AUDIO].ring, FFDVB_STREAM_AUDIO);
	if (card_stream_active(card, FFDVB_STREAM_VIDEO)) {
		moved += skip_still_copies(card);
		if (card->video.play_state != FFDVB_VIDEO_FREEZED)
			moved += feed_ring(card, &card->st[FFDVB_STREAM_VIDEO].ring, FFDVB_STREAM_VIDEO);
	}
	while (ffdvb_decoder_size_event(card->dec, &w, &h, &num, &den))
		card_video_size_changed(card, w, h, mpeg_aspect_of(num, den));
	if (moved) /* room in the rings: POLLOUT, blocked writers, and what the taps hold */
		card->dirty |= CARD_DIRTY_WAKE | CARD_DIRTY_KICK;
}

void card_decoder_kick(struct ffdvb_card *card)
{
	if (card->dec_ev)
		event_active(card->dec_ev, EV_READ, 0);
}

static void dec_clear(struct ffdvb_card *card, enum ffdvb_stream s)
{
	ffdvb_decoder_clear(card->dec, s);
}

static void dec_still(struct ffdvb_card *card, const uint8_t *es, size_t len)
{
	ffdvb_decoder_still(card->dec, es, len);
}

/* the PTS of the picture on screen (0 before the first one) */
static uint64_t dec_stc(struct ffdvb_card *card)
{
	uint64_t v;

	return ffdvb_decoder_stc(card->dec, &v) == 0 ? v : 0;
}

static void dec_status(struct ffdvb_card *card, FILE *out, int json)
{
	struct ffdvb_decoder_stats s;

	ffdvb_decoder_get_stats(card->dec, &s);
	if (json) {
		fprintf(out, "\"decoder\":{\"output\":\"%s\",\"video_codec\":\"%s\",\"audio_codec\":\"%s\","
			"\"width\":%d,\"height\":%d,\"video_decoded\":%llu,\"video_shown\":%llu,"
			"\"video_dropped\":%llu,\"video_repeats\":%llu,\"audio_decoded\":%llu,"
			"\"audio_samples\":%llu,\"bad_pes\":%llu,\"decode_errors\":%llu,"
			"\"skipped_bytes\":%llu,\"codec_changes\":%llu,\"discontinuities\":%llu,"
			"\"av_offset_ms\":%lld,\"video_queued\":%zu,\"audio_queued\":%zu,\"idle\":%s,"
			"\"osd_updates\":%u,\"osd_presented\":%u,\"osd_presented_ns\":%llu,"
			"\"audio_device_ms\":%.1f,\"video_device_ms\":%.1f},",
			s.output, s.video_codec,
			s.audio_codec, s.width, s.height, (unsigned long long)s.video_frames_decoded,
			(unsigned long long)s.video_frames_shown,
			(unsigned long long)s.video_frames_dropped, (unsigned long long)s.video_repeats,
			(unsigned long long)s.audio_frames_decoded,
			(unsigned long long)s.audio_samples_played, (unsigned long long)s.bad_pes,
			(unsigned long long)s.decode_errors, (unsigned long long)s.skipped_bytes,
			(unsigned long long)s.codec_changes, (unsigned long long)s.discontinuities,
			(long long)s.av_offset_ms, s.video_queued, s.audio_queued,
			s.idle ? "true" : "false", s.osd_updates, s.osd_presented,
			(unsigned long long)s.osd_presented_ns, s.audio_device_ns / 1e6,
			s.video_device_ns / 1e6);
		return;
	}
	fprintf(out, "decoder (%s): video %s %dx%d, %llu decoded, %llu shown, %llu dropped; audio %s, "
		"%llu decoded; %llu bad PES, %llu decode errors, A/V offset %lld ms; devices: "
		"sound %.1f ms, picture %.1f ms\n",
		s.output, s.video_codec[0] ? s.video_codec : "-",
		s.width, s.height, (unsigned long long)s.video_frames_decoded,
		(unsigned long long)s.video_frames_shown, (unsigned long long)s.video_frames_dropped,
		s.audio_codec[0] ? s.audio_codec : "-", (unsigned long long)s.audio_frames_decoded,
		(unsigned long long)s.bad_pes, (unsigned long long)s.decode_errors,
		(long long)s.av_offset_ms, s.audio_device_ns / 1e6, s.video_device_ns / 1e6);
}

const struct card_decoder_ops card_decoder_ops = {
	.live = 1,
	.start = dec_start,
	.stop = dec_stop,
	.sync = dec_sync,
	.feed = dec_feed,
	.clear = dec_clear,
	.still = dec_still,
	.stc = dec_stc,
	.status = dec_status,
};
