/* The memory data path of video0/audio0 (§4.1, §5.1): TS or PES detection per write() call,
 * the free-space conditions, chunking and partial counts. Blocking is the transport's job:
 * we return a short count or -EAGAIN and it waits for a wake-up. */
#include <errno.h>

#include "card_internal.h"

/* The PES repacker and stream-id routing of §6.1 (video0 writes of 0xC0-0xDF/0xBD going to the
 * audio ring, PS headers dropped, 2048-byte output packets) belong to src/demux and will be put
 * in here. Until then the bytes go as written into the ring of the node written to. */
size_t card_feed_pes(struct ffdvb_card *card, enum ffdvb_node_type type, const uint8_t *data,
		     size_t len)
{
	struct card_ring *r = type == FFDVB_NODE_VIDEO ? &card->vring : &card->aring;

	return card_ring_put(r, data, len);
}

/* PIDs are ignored: everything written to a node belongs to its decoder. */
static void feed_ts_packet(struct ffdvb_card *card, enum ffdvb_node_type type, const uint8_t *pkt)
{
	unsigned int afc = (pkt[3] >> 4) & 3;
	size_t off = 4;

	if (pkt[1] & 0x80) /* transport_error_indicator: dropped (and the repacker reset) */
		return;
	if (!(afc & 1)) /* no payload */
		return;
	if (afc & 2)
		off += 1 + (size_t)pkt[4];
	if (off >= CARD_TS_SIZE)
		return;
	/* payload_unit_start (pkt[1] & 0x40) will close an open unbounded PES in the repacker */
	card_feed_pes(card, type, pkt + off, CARD_TS_SIZE - off);
}

static int has_room(const struct ffdvb_card *card, enum ffdvb_node_type type, int ts)
{
	const struct card_ring *own = type == FFDVB_NODE_VIDEO ? &card->vring : &card->aring;

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
			feed_ts_packet(card, type, p + done);
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
