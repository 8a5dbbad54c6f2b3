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

void *card_write_room(struct ffdvb_card *card, enum ffdvb_node_type type, size_t *len)
{
	struct card_stream *st;
	struct card_ring *r;
	size_t fit;

	if (type != FFDVB_NODE_VIDEO && type != FFDVB_NODE_AUDIO)
		return NULL;
	st = &card->st[card_node_stream(type)];
	r = &st->ring;
	/* only for a writer of large PES writes (a room refused costs a copy back), between
	 * packets, and as large as its last write, all of which the free-space rule would let
	 * in: one chunk with 20480 bytes free, and a chunk more per 4096 bytes beyond */
	if (st->last_pes_write < CARD_PES_CHUNK || !ffdvb_repacker_between_packets(&st->repack) ||
	    card_ring_space(r) < CARD_FREE_COND_PES ||
	    (type == FFDVB_NODE_VIDEO &&
	     card_ring_space(&card->st[FFDVB_STREAM_AUDIO].ring) < CARD_FREE_COND_PES))
		return NULL;
	/* up to the ring's end, or to one byte before rd (dvb_ringbuffer's free byte) */
	*len = r->rd > r->wr ? r->rd - r->wr - 1 : r->size - r->wr - (r->rd == 0);
	fit = ((card_ring_space(r) - CARD_FREE_COND_PES) / CARD_PES_CHUNK + 1) * CARD_PES_CHUNK;
	if (*len > fit)
		*len = fit;
	return *len >= st->last_pes_write ? r->buf + r->wr : NULL;
}

/* A write whose data the transport received into the room card_write_room gave (buf is where
 * the ring's next byte goes): taken whole and in place when each of its bytes would go to that
 * ring unchanged (whole packets of at most 2048 bytes of its stream, the repacker between
 * packets) and the free-space rule would let every chunk in (the ring gains no more than the
 * input before it). The repacker is told what passed; the ring only moves its write
 * position. Else 0, nothing taken: -EXDEV, and the transport calls again from elsewhere. */
static int in_place(struct ffdvb_card *card, enum ffdvb_node_type type, const uint8_t *p,
		    size_t len)
{
	struct card_stream *st = &card->st[card_node_stream(type)];
	size_t chunks = (len + CARD_PES_CHUNK - 1) / CARD_PES_CHUNK, packets = 0;
	struct ffdvb_pes_header h;

	if (p[0] == 0x47 && len % CARD_TS_SIZE == 0)
		return 0;
	if (!ffdvb_repacker_between_packets(&st->repack) ||
	    card_ring_space(&st->ring) < CARD_FREE_COND_PES + (chunks - 1) * CARD_PES_CHUNK)
		return 0;
	if (type == FFDVB_NODE_VIDEO &&
	    card_ring_space(&card->st[FFDVB_STREAM_AUDIO].ring) < CARD_FREE_COND_PES)
		return 0;
	for (size_t at = 0, n; at < len; at += n, packets++) {
		n = ffdvb_repacker_whole_len(p + at, len - at, &h);
		if (!n || (type == FFDVB_NODE_VIDEO && (h.stream_id & 0xf0) != 0xe0))
			return 0; /* video0 sends other stream ids to the audio ring */
	}
	ffdvb_repacker_passed(&st->repack, &h, packets, len);
	card_ring_put(&st->ring, p, len); /* in place: copies nothing */
	st->last_pes_write = len;
	return 1;
}

ssize_t card_av_write(struct ffdvb_card *card, enum ffdvb_node_type type, const void *buf,
		      size_t len)
{
	struct card_stream *st = &card->st[card_node_stream(type)];
	const uint8_t *p = buf;
	int ts;
	size_t done = 0;

	if (len == 0)
		return 0;
	if (p == st->ring.buf + st->ring.wr) {
		if (!in_place(card, type, p, len))
			return -EXDEV;
		card_wake_av(card);
		return (ssize_t)len;
	}
	ts = p[0] == 0x47 && len % CARD_TS_SIZE == 0;
	st->last_pes_write = ts ? 0 : len;
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
