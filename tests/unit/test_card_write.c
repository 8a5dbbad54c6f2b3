/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The memory data path: write() TS/PES detection, thresholds and partial counts (§4.1, §5.1),
 * poll masks (§4.2, §5.2), the drain and its wake-ups, VIDEO_STILLPICTURE (§4.4). */
#include "test_card_util.h"

#include <time.h>

#include "ffdvb/checksum.h"
#include "ffdvb/clock.h"

static uint8_t big[300000];
/* PES streams of whole 2048-byte packets (the tail one shorter): the repacker passes them on
 * unchanged, and every 4096-byte write chunk holds exactly two packets, so after a partial
 * write the ring holds exactly the bytes accepted. */
static uint8_t vpes[200000], apes[100000];
static uint8_t tsbuf[1000 * 188];

static void fill_streams(void)
{
	fill_pes(vpes, sizeof(vpes), 0xe0, FFDVB_PES_OUT_MAX);
	fill_pes(apes, sizeof(apes), 0xc0, FFDVB_PES_OUT_MAX);
}

static void *video_w, *audio_w;

static void open_memory_writers(uint32_t rate)
{
	env_setup(rate);
	video_w = xopen(FFDVB_NODE_VIDEO, O_RDWR | O_NONBLOCK, NULL);
	audio_w = xopen(FFDVB_NODE_AUDIO, O_RDWR | O_NONBLOCK, NULL);
	io_arg(video_w, FFDVB_VIDEO_SELECT_SOURCE, FFDVB_VIDEO_SOURCE_MEMORY);
	io_arg(audio_w, FFDVB_AUDIO_SELECT_SOURCE, FFDVB_AUDIO_SOURCE_MEMORY);
}

static void close_writers(void)
{
	xclose(video_w);
	xclose(audio_w);
	env_teardown();
}

static void pes_thresholds(void)
{
	struct card_node *vn;

	open_memory_writers(0);
	vn = &E.card->nodes[FFDVB_NODE_VIDEO];
	CHECK_EQ(E.ops->write(video_w, vpes, 0, 1), 0);
	/* 131071 usable; a chunk needs >= 20480 free: 27 chunks of 4096 (54 packets) fit */
	CHECK_EQ(E.ops->write(video_w, vpes, 200000, 1), 27 * 4096);
	CHECK_EQ(card_ring_fill(&E.card->st[FFDVB_STREAM_VIDEO].ring), 27 * 4096);
	CHECK(memcmp(E.card->st[FFDVB_STREAM_VIDEO].ring.buf, vpes, 27 * 4096) == 0);
	CHECK_EQ(E.ops->write(video_w, vpes, 100, 1), -EAGAIN);
	CHECK_EQ(vn->bytes_accepted, 27 * 4096);
	CHECK_EQ(vn->bytes_refused, 200000 - 27 * 4096 + 100);
	CHECK_EQ(vn->errors, 0);
	/* nothing plays: POLLOUT anyway ("may play if asked for") */
	CHECK_EQ(E.ops->poll(video_w), POLLOUT | POLLWRNORM);
	CHECK_EQ(E.ops->poll(audio_w), POLLOUT | POLLWRNORM);

	/* a short final chunk (packets of 2048, 2048 and 904 bytes) */
	card_ring_flush(&E.card->st[FFDVB_STREAM_VIDEO].ring);
	fill_pes(big, 5000, 0xe0, FFDVB_PES_OUT_MAX);
	CHECK_EQ(E.ops->write(video_w, big, 5000, 1), 5000);
	CHECK_EQ(card_ring_fill(&E.card->st[FFDVB_STREAM_VIDEO].ring), 5000);

	/* audio0 PES: only the audio ring counts; 11 chunks fit into 65535 */
	CHECK_EQ(E.ops->write(audio_w, apes, 100000, 1), 11 * 4096);
	CHECK_EQ(card_ring_fill(&E.card->st[FFDVB_STREAM_AUDIO].ring), 11 * 4096);
	CHECK_EQ(E.ops->write(audio_w, apes, 10, 1), -EAGAIN);
	/* now PES to video0 stalls on the audio ring, TS to video0 does not */
	card_ring_flush(&E.card->st[FFDVB_STREAM_VIDEO].ring);
	CHECK_EQ(E.ops->write(video_w, vpes, 100, 1), -EAGAIN);
	pes_packet(big, 184, 0xe0, 0);
	CHECK_EQ(ts_from_pes(tsbuf, big, 184), 1);
	CHECK_EQ(E.ops->write(video_w, tsbuf, 188, 1), 188);
	CHECK_EQ(card_ring_fill(&E.card->st[FFDVB_STREAM_VIDEO].ring), 184);
	CHECK_EQ(E.card->repack_dropped, 0);

	/* EPERM unless source MEMORY, counted as an error */
	io_arg(audio_w, FFDVB_AUDIO_SELECT_SOURCE, FFDVB_AUDIO_SOURCE_DEMUX);
	CHECK_EQ(E.ops->write(audio_w, apes, 10, 1), -EPERM);
	CHECK_EQ(E.card->nodes[FFDVB_NODE_AUDIO].errors, 1);
	close_writers();
}

static void ts_packet(uint8_t *p, int tei, int afc, int af_len, uint8_t fill)
{
	memset(p, fill, 188);
	p[0] = 0x47;
	p[1] = (uint8_t)((tei ? 0x80 : 0) | 0x40 | 0x01); /* PID 0x100, PUSI */
	p[2] = 0x00;
	p[3] = (uint8_t)(afc << 4);
	if (afc & 2)
		p[4] = (uint8_t)af_len;
}

static void ts_path(void)
{
	uint8_t pk[6 * 188], pes[184 + 173];
	size_t n;

	open_memory_writers(0);
	/* one 357-byte PES carried by the first two packets; the others carry nothing */
	pes_packet(pes, sizeof(pes), 0xe0, 7);
	ts_packet(pk + 0 * 188, 0, 1, 0, 0xA1);       /* 184 payload bytes, PUSI */
	memcpy(pk + 4, pes, 184);
	ts_packet(pk + 1 * 188, 0, 3, 10, 0xA2);      /* 188 - 4 - 11 = 173 */
	pk[1 * 188 + 1] &= (uint8_t)~0x40;            /* continuation: no PUSI */
	memcpy(pk + 2 * 188 - 173, pes + 184, 173);
	ts_packet(pk + 2 * 188, 1, 1, 0, 0xA3);       /* TEI: dropped */
	ts_packet(pk + 3 * 188, 0, 2, 183, 0xA4);     /* adaptation only: dropped */
	ts_packet(pk + 4 * 188, 0, 0, 0, 0xA5);       /* reserved afc 0: no payload */
	ts_packet(pk + 5 * 188, 0, 3, 183, 0xA6);     /* adaptation fills the packet */
	CHECK_EQ(E.ops->write(video_w, pk, sizeof(pk), 1), sizeof(pk));
	CHECK_EQ(card_ring_fill(&E.card->st[FFDVB_STREAM_VIDEO].ring), 184 + 173);
	n = card_ring_fill(&E.card->st[FFDVB_STREAM_VIDEO].ring);
	CHECK(n == sizeof(pes) && memcmp(E.card->st[FFDVB_STREAM_VIDEO].ring.buf, pes, sizeof(pes)) == 0);
	CHECK_EQ(E.card->st[FFDVB_STREAM_VIDEO].repack.stats.ts_tei, 1);
	CHECK_EQ(E.card->nodes[FFDVB_NODE_VIDEO].bytes_accepted, sizeof(pk));

	/* TEI in the middle of a PES resets the repacker: the half PES is lost, the next one
	 * (PUSI) arrives whole */
	card_ring_flush(&E.card->st[FFDVB_STREAM_VIDEO].ring);
	fill_pes(big, 2 * 184 * 3, 0xe0, 3 * 184);      /* two PES of 3 TS packets each */
	CHECK_EQ(ts_from_pes(tsbuf, big, 2 * 184 * 3), 6);
	tsbuf[1 * 188 + 1] |= 0x80;
	CHECK_EQ(E.ops->write(video_w, tsbuf, 6 * 188, 1), 6 * 188);
	CHECK_EQ(card_ring_fill(&E.card->st[FFDVB_STREAM_VIDEO].ring), 3 * 184);
	CHECK(memcmp(E.card->st[FFDVB_STREAM_VIDEO].ring.buf, big + 3 * 184, 3 * 184) == 0);

	/* 0x47 but not a multiple of 188: the whole call is PES (the 0x47 is garbage before a
	 * 199-byte PES; as TS nothing of it would reach the ring) */
	card_ring_flush(&E.card->st[FFDVB_STREAM_VIDEO].ring);
	big[0] = 0x47;
	pes_packet(big + 1, 199, 0xe0, 1);
	CHECK_EQ(E.ops->write(video_w, big, 200, 1), 200);
	CHECK_EQ(card_ring_fill(&E.card->st[FFDVB_STREAM_VIDEO].ring), 199);
	/* a multiple of 188 not starting with 0x47: PES too (one 376-byte packet) */
	card_ring_flush(&E.card->st[FFDVB_STREAM_VIDEO].ring);
	pes_packet(big, 376, 0xe0, 2);
	big[188] = 0x47;
	CHECK_EQ(E.ops->write(video_w, big, 376, 1), 376);
	CHECK_EQ(card_ring_fill(&E.card->st[FFDVB_STREAM_VIDEO].ring), 376);

	/* partial TS counts: a packet needs >= 4096 free in the node's own ring. With one
	 * 184-byte PES per TS packet the ring grows by 184 per packet, as with the old
	 * "bytes as written" ring: 691 packets (691 * 184 = 127144 > 131071 - 4096) */
	card_ring_flush(&E.card->st[FFDVB_STREAM_VIDEO].ring);
	fill_pes(big, 800 * 184, 0xe0, 184);
	CHECK_EQ(ts_from_pes(tsbuf, big, 800 * 184), 800);
	CHECK_EQ(E.ops->write(video_w, tsbuf, 800 * 188, 1), 691 * 188);
	CHECK_EQ(card_ring_fill(&E.card->st[FFDVB_STREAM_VIDEO].ring), 691 * 184);
	CHECK_EQ(E.ops->write(video_w, tsbuf, 188, 1), -EAGAIN);
	CHECK_EQ(E.ops->write(audio_w, tsbuf, 800 * 188, 1), 334 * 188);
	CHECK_EQ(card_ring_fill(&E.card->st[FFDVB_STREAM_AUDIO].ring), 334 * 184);
	CHECK_EQ(E.ops->write(audio_w, tsbuf, 188, 1), -EAGAIN);

	/* PES of 11 TS packets (2024 bytes) reach the ring only when complete, so the fill grows
	 * by 2024 every 11th packet and the count moves past the PES boundary:
	 * video: fill 62 * 2024 = 125488 <= 126975 up to packet 692, packet 693 completes PES 63
	 * (127512) -> 693 taken; audio: 30 * 2024 = 60720 <= 65535 - 4096 = 61439 up to packet
	 * 340, packet 341 completes PES 31 (62744) -> 341 taken */
	card_ring_flush(&E.card->st[FFDVB_STREAM_VIDEO].ring);
	card_ring_flush(&E.card->st[FFDVB_STREAM_AUDIO].ring);
	fill_pes(big, 800 * 184, 0xe0, 11 * 184);
	CHECK_EQ(ts_from_pes(tsbuf, big, 800 * 184), 800);
	CHECK_EQ(E.ops->write(video_w, tsbuf, 800 * 188, 1), 693 * 188);
	CHECK_EQ(card_ring_fill(&E.card->st[FFDVB_STREAM_VIDEO].ring), 63 * 2024);
	CHECK_EQ(E.ops->write(video_w, tsbuf, 188, 1), -EAGAIN);
	CHECK_EQ(E.ops->write(audio_w, tsbuf, 800 * 188, 1), 341 * 188);
	CHECK_EQ(card_ring_fill(&E.card->st[FFDVB_STREAM_AUDIO].ring), 31 * 2024);
	CHECK_EQ(E.ops->write(audio_w, tsbuf, 188, 1), -EAGAIN);
	CHECK_EQ(E.card->repack_dropped, 0);
	memset(big, 0, sizeof(big));
	close_writers();
}

/* The video repacker routes by stream id (0xE0-0xEF video ring, others audio ring); raw ES is
 * garbage; CLEAR_BUFFER forgets a half-written packet (§4.1, §6.1). */
static void routing(void)
{
	uint8_t pes[3000], es[10000];
	uint64_t garbage;

	open_memory_writers(0);
	/* audio PES written to video0 lands in the audio ring, PES or TS */
	fill_pes(pes, sizeof(pes), 0xc0, FFDVB_PES_OUT_MAX);
	CHECK_EQ(E.ops->write(video_w, pes, sizeof(pes), 1), sizeof(pes));
	CHECK_EQ(card_ring_fill(&E.card->st[FFDVB_STREAM_VIDEO].ring), 0);
	CHECK_EQ(card_ring_fill(&E.card->st[FFDVB_STREAM_AUDIO].ring), sizeof(pes));
	CHECK(memcmp(E.card->st[FFDVB_STREAM_AUDIO].ring.buf, pes, sizeof(pes)) == 0);
	card_ring_flush(&E.card->st[FFDVB_STREAM_AUDIO].ring);
	fill_pes(pes, 3 * 184, 0xbd, FFDVB_PES_OUT_MAX); /* private stream 1 (AC-3) */
	CHECK_EQ(ts_from_pes(tsbuf, pes, 3 * 184), 3);
	CHECK_EQ(E.ops->write(video_w, tsbuf, 3 * 188, 1), 3 * 188);
	CHECK_EQ(card_ring_fill(&E.card->st[FFDVB_STREAM_VIDEO].ring), 0);
	CHECK_EQ(card_ring_fill(&E.card->st[FFDVB_STREAM_AUDIO].ring), 3 * 184);
	card_ring_flush(&E.card->st[FFDVB_STREAM_AUDIO].ring);
	/* ...and a video PES written to audio0 stays in the audio ring */
	fill_pes(pes, sizeof(pes), 0xe0, FFDVB_PES_OUT_MAX);
	CHECK_EQ(E.ops->write(audio_w, pes, sizeof(pes), 1), sizeof(pes));
	CHECK_EQ(card_ring_fill(&E.card->st[FFDVB_STREAM_VIDEO].ring), 0);
	CHECK_EQ(card_ring_fill(&E.card->st[FFDVB_STREAM_AUDIO].ring), sizeof(pes));
	card_ring_flush(&E.card->st[FFDVB_STREAM_AUDIO].ring);

	/* raw video ES (sequence header start code 00 00 01 B3, slices...): accepted whole,
	 * nothing reaches a ring */
	garbage = E.card->st[FFDVB_STREAM_VIDEO].repack.stats.garbage_bytes;
	for (size_t i = 0; i < sizeof(es); i++)
		es[i] = (uint8_t)(0x20 + i % 0xd0);
	memcpy(es, (const uint8_t[]){ 0, 0, 1, 0xb3, 0x2d, 0x02, 0x40, 0x33 }, 8);
	memcpy(es + 5000, (const uint8_t[]){ 0, 0, 1, 0x01, 0x12 }, 5);
	CHECK_EQ(E.ops->write(video_w, es, sizeof(es), 1), sizeof(es));
	CHECK_EQ(card_ring_fill(&E.card->st[FFDVB_STREAM_VIDEO].ring), 0);
	CHECK_EQ(card_ring_fill(&E.card->st[FFDVB_STREAM_AUDIO].ring), 0);
	CHECK_EQ(E.card->st[FFDVB_STREAM_VIDEO].repack.stats.garbage_bytes - garbage, sizeof(es));
	CHECK_EQ(E.card->nodes[FFDVB_NODE_VIDEO].bytes_accepted, 3000 + 3 * 188 + sizeof(es));

	/* VIDEO_CLEAR_BUFFER drops a half-written PES: the next packet starts clean (without the
	 * reset the 1048 missing bytes would be taken from the new data) */
	fill_pes(pes, sizeof(pes), 0xe0, FFDVB_PES_OUT_MAX); /* 2048 + 952 */
	CHECK_EQ(E.ops->write(video_w, pes, 1000, 1), 1000);
	CHECK_EQ(card_ring_fill(&E.card->st[FFDVB_STREAM_VIDEO].ring), 0);
	CHECK_EQ(io_arg(video_w, FFDVB_VIDEO_CLEAR_BUFFER, 0), 0);
	CHECK_EQ(E.ops->write(video_w, pes, sizeof(pes), 1), sizeof(pes));
	CHECK_EQ(card_ring_fill(&E.card->st[FFDVB_STREAM_VIDEO].ring), sizeof(pes));
	CHECK(memcmp(E.card->st[FFDVB_STREAM_VIDEO].ring.buf, pes, sizeof(pes)) == 0);
	/* the same on audio0 with AUDIO_CLEAR_BUFFER */
	fill_pes(pes, sizeof(pes), 0xc0, FFDVB_PES_OUT_MAX);
	CHECK_EQ(E.ops->write(audio_w, pes, 1000, 1), 1000);
	CHECK_EQ(card_ring_fill(&E.card->st[FFDVB_STREAM_AUDIO].ring), 0);
	CHECK_EQ(io_arg(audio_w, FFDVB_AUDIO_CLEAR_BUFFER, 0), 0);
	CHECK_EQ(E.ops->write(audio_w, pes, sizeof(pes), 1), sizeof(pes));
	CHECK_EQ(card_ring_fill(&E.card->st[FFDVB_STREAM_AUDIO].ring), sizeof(pes));
	CHECK(memcmp(E.card->st[FFDVB_STREAM_AUDIO].ring.buf, pes, sizeof(pes)) == 0);
	CHECK_EQ(E.card->repack_dropped, 0);
	close_writers();
}

static void drain_and_poll(void)
{
	open_memory_writers(1000000);
	CHECK_EQ(E.ops->write(video_w, vpes, 200000, 1), 27 * 4096);
	CHECK_EQ(E.ops->write(audio_w, apes, 100000, 1), 11 * 4096);
	CHECK(!E.card->drain_running);
	card_drain_tick(E.card); /* nothing plays: nothing drains */
	CHECK_EQ(card_ring_fill(&E.card->st[FFDVB_STREAM_VIDEO].ring), 27 * 4096);

	CHECK_EQ(io_arg(video_w, FFDVB_VIDEO_PLAY, 0), 0);
	CHECK(E.card->drain_running);
	/* playing: POLLOUT only with FREE_COND (both rings) */
	CHECK_EQ(E.ops->poll(video_w), 0);
	CHECK_EQ(E.ops->poll(audio_w), 0);
	memset(E.wakes, 0, sizeof(E.wakes));
	E.now += 10000000; /* 10 ms at 1 MB/s: 10000 bytes, video only */
	card_drain_tick(E.card);
	CHECK_EQ(card_ring_fill(&E.card->st[FFDVB_STREAM_VIDEO].ring), 27 * 4096 - 10000);
	CHECK_EQ(card_ring_fill(&E.card->st[FFDVB_STREAM_AUDIO].ring), 11 * 4096);
	CHECK(E.wakes[FFDVB_NODE_VIDEO] > 0 && E.wakes[FFDVB_NODE_AUDIO] > 0);
	CHECK_EQ(E.ops->poll(video_w), 0); /* the audio ring is still full */

	CHECK_EQ(io_arg(audio_w, FFDVB_AUDIO_PLAY, 0), 0);
	E.now += 1000000; /* 1 ms: 1000 bytes each */
	card_drain_tick(E.card);
	CHECK_EQ(card_ring_fill(&E.card->st[FFDVB_STREAM_AUDIO].ring), 11 * 4096 - 1000);
	CHECK_EQ(E.ops->poll(audio_w), POLLOUT | POLLWRNORM);
	CHECK_EQ(E.ops->poll(video_w), POLLOUT | POLLWRNORM);

	/* frozen: video is withheld, audio keeps flowing */
	CHECK_EQ(io_arg(video_w, FFDVB_VIDEO_FREEZE, 0), 0);
	E.now += 1000000;
	card_drain_tick(E.card);
	CHECK_EQ(card_ring_fill(&E.card->st[FFDVB_STREAM_VIDEO].ring), 27 * 4096 - 11000);
	CHECK_EQ(card_ring_fill(&E.card->st[FFDVB_STREAM_AUDIO].ring), 11 * 4096 - 2000);
	/* fractions of a byte carry over */
	CHECK_EQ(io_arg(video_w, FFDVB_VIDEO_CONTINUE, 0), 0);
	for (int i = 0; i < 10; i++) {
		E.now += 500; /* 0.5 byte each */
		card_drain_tick(E.card);
	}
	CHECK_EQ(card_ring_fill(&E.card->st[FFDVB_STREAM_VIDEO].ring), 27 * 4096 - 11005);

	/* stopping everything stops the timer */
	CHECK_EQ(io_arg(video_w, FFDVB_VIDEO_STOP, 0), 0);
	CHECK(E.card->drain_running);
	CHECK_EQ(io_arg(audio_w, FFDVB_AUDIO_STOP, 0), 0);
	CHECK(!E.card->drain_running);
	CHECK_EQ(event_base_get_num_events(E.base, EVENT_BASE_COUNT_ADDED), 0);
	close_writers();
}

static uint64_t real_now(void *ctx)
{
	(void)ctx;
	return ffdvb_monotonic_ns();
}

/* the libevent timer with the real clock */
static void drain_timer(void)
{
	struct timeval tv = { 0, 100000 };

	open_memory_writers(1000000);
	E.card->now_ns = real_now;
	CHECK_EQ(E.ops->write(video_w, vpes, 200000, 1), 27 * 4096);
	CHECK_EQ(io_arg(video_w, FFDVB_VIDEO_PLAY, 0), 0);
	CHECK_EQ(event_base_get_num_events(E.base, EVENT_BASE_COUNT_ADDED), 1);
	memset(E.wakes, 0, sizeof(E.wakes));
	event_base_loopexit(E.base, &tv);
	event_base_dispatch(E.base);
	/* ~100 ms at 1 MB/s: about 100000 bytes (allow for a slow machine) */
	size_t drained = 27 * 4096 - card_ring_fill(&E.card->st[FFDVB_STREAM_VIDEO].ring);
	CHECK(drained >= 50000);
	CHECK(E.wakes[FFDVB_NODE_VIDEO] >= 3);
	CHECK_EQ(io_arg(video_w, FFDVB_VIDEO_STOP, 0), 0);
	CHECK_EQ(event_base_get_num_events(E.base, EVENT_BASE_COUNT_ADDED), 0);
	close_writers();
}

/* The still picture is one unbounded PES (9-byte header, then 401 * 1000 data bytes); the
 * repacker cuts it into 2048-byte packets of 2039 payload bytes, each with its real
 * PES_packet_length 2042 = 0x07FA (the first keeps the synthetic header, the later ones get a
 * minimal one that looks the same), the last one (401000 - 196 * 2039 = 1356 bytes) is emitted
 * by the final flush. So the ring receives 401000 + 197 * 9 bytes. */
static const uint8_t still_hdr[9] = { 0, 0, 1, 0xe0, 0x07, 0xfa, 0x80, 0, 0 };
#define STILL_RING_BYTES (401000 + 197 * 9)

static void still_picture(void)
{
	struct ffdvb_video_still_picture sp = { .size = 1000 };
	struct ffdvb_ioctl io = { .cmd = FFDVB_VIDEO_STILLPICTURE, .buf = &sp, .nonblock = 1 };
	uint8_t data[1000];
	size_t total = 9 + (400000 / 1000 + 1) * 1000, drained = 0;
	const uint8_t *vbuf;
	int r, rounds = 0;

	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)(i * 7 + 3);
	open_memory_writers(1000000);
	io_arg(video_w, FFDVB_VIDEO_SELECT_SOURCE, FFDVB_VIDEO_SOURCE_DEMUX);
	CHECK_EQ(E.ops->write(video_w, big, 10, 1), -EPERM);
	E.card->video.stream_source = FFDVB_VIDEO_SOURCE_MEMORY;
	CHECK_EQ(E.ops->write(video_w, vpes, 5000, 1), 5000);
	/* 2 packets; 904 bytes stay open in the repacker until start_play (from nothing playing)
	 * resets it below, else the still header would be taken as their payload */
	CHECK_EQ(card_ring_fill(&E.card->st[FFDVB_STREAM_VIDEO].ring), 4096);
	E.card->video.stream_source = FFDVB_VIDEO_SOURCE_DEMUX;

	/* size 0: source MEMORY, ring flushed, nothing else */
	sp.size = 0;
	CHECK_EQ(E.ops->ioctl(video_w, &io), 0);
	CHECK_EQ(E.card->video.stream_source, FFDVB_VIDEO_SOURCE_MEMORY);
	CHECK_EQ(card_ring_fill(&E.card->st[FFDVB_STREAM_VIDEO].ring), 0);
	CHECK_EQ(E.card->playing, 0);

	/* bad pointer: playback was started first, then EFAULT */
	sp.size = 1000;
	io.data_fault = 1;
	CHECK_EQ(E.ops->ioctl(video_w, &io), -EFAULT);
	CHECK_EQ(E.card->playing, CARD_PLAY_VIDEO);
	io_arg(video_w, FFDVB_VIDEO_STOP, 0);
	io.data_fault = 0;

	/* firmware recording blocks the start: EBUSY */
	E.card->rec_mode = 1;
	io.progress = 0;
	io.data = data;
	io.data_len = sizeof(data);
	CHECK_EQ(E.ops->ioctl(video_w, &io), -EBUSY);
	E.card->rec_mode = 0;

	/* the real thing: blocks (O_NONBLOCK ignored) until 9 + 401 * 1000 bytes are queued */
	io.progress = 0;
	r = E.ops->ioctl(video_w, &io);
	CHECK_EQ(r, -FFDVB_EBLOCK);
	CHECK_EQ(E.card->playing, CARD_PLAY_VIDEO);
	CHECK_EQ(E.card->video.play_state, FFDVB_VIDEO_STOPPED); /* not changed */
	CHECK_EQ(E.card->last_still.size, 1000);
	CHECK_EQ(E.card->last_still.fnv1a, ffdvb_fnv1a(FFDVB_FNV1A_INIT, data, sizeof(data)));
	vbuf = E.card->st[FFDVB_STREAM_VIDEO].ring.buf;
	CHECK(memcmp(vbuf, still_hdr, 9) == 0);
	CHECK(memcmp(vbuf + 9, data, 1000) == 0);
	CHECK(memcmp(vbuf + 1009, data, 1000) == 0);
	CHECK(memcmp(vbuf + 2048, still_hdr, 9) == 0); /* continuation header */
	CHECK(memcmp(vbuf + 2057, data + 39, 961) == 0); /* 2039 % 1000 = 39 */
	CHECK(io.progress > 1);
	CHECK(card_ring_space(&E.card->st[FFDVB_STREAM_VIDEO].ring) < CARD_FREE_COND_PES);
	while (r == -FFDVB_EBLOCK && rounds++ < 100) {
		size_t before = card_ring_fill(&E.card->st[FFDVB_STREAM_VIDEO].ring);

		E.now += 20000000; /* 20 ms: 20000 bytes */
		card_drain_tick(E.card);
		drained += before - card_ring_fill(&E.card->st[FFDVB_STREAM_VIDEO].ring);
		r = E.ops->ioctl(video_w, &io);
	}
	CHECK_EQ(r, 0);
	CHECK_EQ(io.progress - 1, total);
	CHECK_EQ(drained + card_ring_fill(&E.card->st[FFDVB_STREAM_VIDEO].ring), STILL_RING_BYTES);
	CHECK_EQ(E.card->repack_dropped, 0);
	CHECK_EQ(E.card->nodes[FFDVB_NODE_VIDEO].errors, 3); /* EPERM, EFAULT, EBUSY */

	/* frozen: nothing drains, a signal ends the call with 0 */
	CHECK_EQ(io_arg(video_w, FFDVB_VIDEO_FREEZE, 0), 0);
	io.progress = 0;
	CHECK_EQ(E.ops->ioctl(video_w, &io), -FFDVB_EBLOCK);
	E.now += 20000000;
	card_drain_tick(E.card);
	CHECK_EQ(E.ops->ioctl(video_w, &io), -FFDVB_EBLOCK);
	io.interrupted = 1;
	CHECK_EQ(E.ops->ioctl(video_w, &io), 0);
	CHECK_EQ(E.card->playing, CARD_PLAY_VIDEO);
	close_writers();
}

/* A write received into the room the node offers (node_ops write_room: the free part of the
 * ring where its data would go) is taken there without a copy when every byte goes to that
 * ring unchanged; anything else is answered -EXDEV with nothing taken, and the same data from
 * elsewhere then goes the usual way. */
static void in_place(void)
{
	struct card_node *vn;
	struct card_ring *vr;
	size_t len = 0;
	uint8_t *room;

	open_memory_writers(0);
	vn = &E.card->nodes[FFDVB_NODE_VIDEO];
	vr = &E.card->st[FFDVB_STREAM_VIDEO].ring;
	CHECK(E.ops->write_room(vn, &len) == NULL); /* only after a large PES write */
	CHECK_EQ(E.ops->write(video_w, vpes, 4096, 1), 4096);
	io_arg(video_w, FFDVB_VIDEO_CLEAR_BUFFER, 0);
	room = E.ops->write_room(vn, &len);
	CHECK(room == vr->buf);
	/* what the free-space rule lets in whole: 20480 free for the last chunk */
	CHECK_EQ(len, (size_t)(131071 - 20480) / 4096 * 4096 + 4096);
	memcpy(room, vpes, 65536);
	CHECK_EQ(E.ops->write(video_w, room, 65536, 1), 65536);
	CHECK_EQ(card_ring_fill(vr), 65536);
	CHECK(memcmp(vr->buf, vpes, 65536) == 0);
	CHECK_EQ(vn->bytes_accepted, 4096 + 65536);
	/* the repacker counts them as if fed: 2 + 32 packets of 2048 bytes */
	CHECK_EQ(E.card->st[FFDVB_STREAM_VIDEO].repack.stats.packets_in, 34);
	CHECK_EQ(E.card->st[FFDVB_STREAM_VIDEO].repack.stats.packets_out, 34);
	CHECK_EQ(E.card->st[FFDVB_STREAM_VIDEO].repack.stats.forwarded_bytes, 4096 + 65536);
	CHECK_EQ(E.card->st[FFDVB_STREAM_VIDEO].repack.stats.bytes_out, 4096 + 65536);
	CHECK_EQ(E.card->st[FFDVB_STREAM_VIDEO].repack.id, 0xe0);

	CHECK(E.ops->write_room(vn, &len) == NULL); /* 65535 free: 45056 bytes fit, not 65536 */
	E.card->st[FFDVB_STREAM_VIDEO].last_pes_write = 4096;
	room = E.ops->write_room(vn, &len);
	CHECK(room == vr->buf + 65536);
	CHECK_EQ(len, 45056);
	memcpy(room, apes, 8192); /* audio stream ids: video0 sends them to the audio ring */
	CHECK_EQ(E.ops->write(video_w, room, 8192, 1), -EXDEV);
	memcpy(room, tsbuf, 188 * 10); /* TS */
	CHECK_EQ(E.ops->write(video_w, room, 188 * 10, 1), -EXDEV);
	memcpy(room, vpes, 49152); /* more than the free-space rule lets in */
	CHECK_EQ(E.ops->write(video_w, room, 49152, 1), -EXDEV);
	CHECK_EQ(card_ring_fill(vr), 65536);
	CHECK_EQ(vn->bytes_accepted, 4096 + 65536);
	CHECK_EQ(vn->bytes_refused, 0);
	CHECK_EQ(vn->errors, 0);
	CHECK_EQ(E.ops->write(video_w, apes, 8192, 1), 8192);
	CHECK_EQ(card_ring_fill(&E.card->st[FFDVB_STREAM_AUDIO].ring), 8192);

	/* a packet cut by the write: the repacker holds it, no room until it is complete */
	CHECK_EQ(E.ops->write(video_w, vpes, 100, 1), 100);
	CHECK(E.ops->write_room(vn, &len) == NULL);
	CHECK(E.ops->write_room(&E.card->nodes[FFDVB_NODE_OSD], &len) == NULL);
	close_writers();
}

int main(void)
{
	fill_streams();
	pes_thresholds();
	ts_path();
	routing();
	drain_and_poll();
	drain_timer();
	still_picture();
	in_place();
	return finish("test_card_write");
}
