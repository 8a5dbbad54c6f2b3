/* SPDX-License-Identifier: GPL-2.0-or-later */
/* VIDEO_STILLPICTURE (§4.4, §9.5): the raw video elementary stream is queued behind a synthetic
 * unbounded PES header, n = 400000 / size + 1 times, so that the decoder pipeline is pushed
 * through. The caller blocks until everything is queued; O_NONBLOCK is ignored.
 * The decoder gets the picture itself once (ffdvb_decoder_still); the copies in the ring are
 * skipped when the decoder side takes them (decode.c).
 *
 * io->progress: 0 on the first call; afterwards 1 + the bytes of the virtual stream
 * (header + n copies) already queued. */
#include <errno.h>

#include "ffdvb/checksum.h"

#include "card_internal.h"

/* PES header, stream 0xE0, PES_packet_length 0, MPEG-2 flags, no PTS */
static const uint8_t still_pes_header[] = { 0x00, 0x00, 0x01, 0xe0, 0x00, 0x00, 0x80, 0x00, 0x00 };
#define STILL_MIN_BYTES 400000u

static int still_begin(struct ffdvb_card *card, struct ffdvb_ioctl *io, uint32_t size)
{
	card->video.stream_source = FFDVB_VIDEO_SOURCE_MEMORY; /* persists after the call */
	card_flush_stream(card, FFDVB_STREAM_VIDEO);
	card_wake_av(card);
	if (size == 0)
		return 0;
	if (!(card->playing & CARD_PLAY_VIDEO) && card_start_play(card, CARD_PLAY_VIDEO) < 0)
		return -EBUSY;
	if (io->data_fault || !io->data || io->data_len != size)
		return -EFAULT;
	card->last_still.size = size;
	card->last_still.fnv1a = ffdvb_fnv1a(FFDVB_FNV1A_INIT, io->data, size);
	/* the decoder gets the picture once, after the play state that starts it (so the update
	 * now, not at the end of the request); the copies below only keep av7110's blocking */
	card_update(card);
	card->decoder->still(card, io->data, size);
	/* av7110 also scans the data for a sequence extension and freezes progressive pictures;
	 * not needed here: the decoder shows every still picture at once and holds it
	 * (presenter.c), progressive or not. */
	io->progress = 1;
	return 1;
}

int card_still_picture(struct ffdvb_card *card, struct ffdvb_ioctl *io)
{
	const struct ffdvb_video_still_picture *sp = io->buf;
	uint32_t size = (uint32_t)sp->size;
	const uint8_t *data = io->data;
	size_t hdr = sizeof(still_pes_header), total, pos;
	struct card_stream *v = &card->st[FFDVB_STREAM_VIDEO];

	if (io->progress == 0) {
		int r = still_begin(card, io, size);

		if (r <= 0)
			return r;
	}
	total = hdr + (size_t)(STILL_MIN_BYTES / size + 1) * size;
	pos = io->progress - 1;
	/* same chunking and free-space rule as a blocking PES write (dvb_play) */
	while (pos < total && card_free_cond(card)) {
		size_t n, fill = card_ring_fill(&v->ring);

		if (pos < hdr) {
			n = hdr - pos;
			card_feed_pes(card, FFDVB_NODE_VIDEO, still_pes_header + pos, n);
		} else {
			size_t off = (pos - hdr) % size;

			n = CARD_PES_CHUNK - off % CARD_PES_CHUNK;
			if (n > size - off)
				n = size - off;
			card_feed_pes(card, FFDVB_NODE_VIDEO, data + off, n);
		}
		pos += n;
		card->still_ring_bytes += card_ring_fill(&v->ring) - fill;
	}
	io->progress = pos + 1;
	if (pos == total) {
		size_t fill = card_ring_fill(&v->ring);

		ffdvb_repacker_flush(&v->repack); /* ends the unbounded still-picture PES */
		card->still_ring_bytes += card_ring_fill(&v->ring) - fill;
	}
	card_decoder_kick(card); /* the skipped copies wake this request once it waits */
	card_wake_av(card);
	if (pos < total)
		return io->interrupted ? 0 : -FFDVB_EBLOCK; /* a signal ends it quietly */
	return 0;
}
