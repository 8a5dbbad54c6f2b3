/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The memory data path of video0/audio0 (§4.1, §5.1): TS or PES detection per write() call,
 * the free-space conditions, chunking and partial counts. Blocking is the transport's job:
 * we return a short count or -EAGAIN and it waits for a wake-up. */
#include <errno.h>

#include "card_internal.h"

/* Repacked packets go whole into a ring or not at all (the firmware only ever takes whole
 * packets). The free-space checks before each chunk leave room for
 * ffdvb_repacker_out_bound(), so a drop means a stream id routed to the ring that the
 * write did not check: audio carried in TS written to video0 (§4.1). The body comes from the
 * write's own buffer: this is the one copy between the client's data and the ring. */
static void ring_put_packet(struct ffdvb_card *card, struct card_ring *r, const uint8_t *head,
			    size_t head_len, const uint8_t *body, size_t body_len)
{
	if (card_ring_space(r) < head_len + body_len) {
		card->repack_dropped++;
		return;
	}
	card_ring_put(r, head, head_len);
	if (body_len)
		card_ring_put(r, body, body_len);
}

/* video instance: 0xE0-0xEF to the video ring, every other stream id to the audio ring */
static void video_sink(void *ctx, uint8_t stream_id, const uint8_t *head, size_t head_len,
		       const uint8_t *body, size_t body_len)
{
	struct ffdvb_card *card = ctx;
	enum ffdvb_stream s = (stream_id & 0xf0) == 0xe0 ? FFDVB_STREAM_VIDEO : FFDVB_STREAM_AUDIO;

	ring_put_packet(card, &card->st[s].ring, head, head_len, body, body_len);
}

/* audio instance: whatever the stream id, it is for the audio decoder */
static void audio_sink(void *ctx, uint8_t stream_id, const uint8_t *head, size_t head_len,
		       const uint8_t *body, size_t body_len)
{
	struct ffdvb_card *card = ctx;

	(void)stream_id;
	ring_put_packet(card, &card->st[FFDVB_STREAM_AUDIO].ring, head, head_len, body, body_len);
}

void card_repackers_init(struct ffdvb_card *card)
{
	ffdvb_repacker_init(&card->st[FFDVB_STREAM_VIDEO].repack, video_sink, card);
	ffdvb_repacker_init(&card->st[FFDVB_STREAM_AUDIO].repack, audio_sink, card);
}

static struct ffdvb_repacker *repacker_of(struct ffdvb_card *card, enum ffdvb_node_type type)
{
	return &card->st[card_node_stream(type)].repack;
}

void card_feed_pes(struct ffdvb_card *card, enum ffdvb_node_type type, const uint8_t *data,
		   size_t len)
{
	ffdvb_repacker_feed(repacker_of(card, type), data, len);
}

static int has_room(const struct ffdvb_card *card, enum ffdvb_node_type type, int ts)
{
	const struct card_ring *own = &card->st[card_node_stream(type)].ring;

	if (ts)
		return card_ring_space(own) >= CARD_FREE_COND_TS;
	if (type == FFDVB_NODE_VIDEO) /* PES to video0 needs room in both rings */
		return card_free_cond(card);
	return card_ring_space(own) >= CARD_FREE_COND_PES;
}

ssize_t card_av_write(struct ffdvb_card *card, enum ffdvb_node_type type, const void *buf,
		      size_t len)
{
	const uint8_t *p = buf;
	int ts;
	size_t done = 0;

	if (len == 0)
		return 0;
	ts = p[0] == 0x47 && len % CARD_TS_SIZE == 0;
	while (done < len && has_room(card, type, ts)) {
		size_t n = CARD_TS_SIZE;

		if (ts) {
			/* PIDs ignored, TEI resets, PUSI closes an unbounded PES (§4.1) */
			ffdvb_repacker_ts_packet(repacker_of(card, type), p + done);
		} else {
			n = len - done < CARD_PES_CHUNK ? len - done : CARD_PES_CHUNK;
			card_feed_pes(card, type, p + done, n);
		}
		done += n;
	}
	if (!done)
		return -EAGAIN;
	card_wake_av(card); /* fuller rings may drop POLLOUT */
	return (ssize_t)done;
}
