/* The memory data path: write() TS/PES detection, thresholds and partial counts (§4.1, §5.1),
 * poll masks (§4.2, §5.2), the drain and its wake-ups, VIDEO_STILLPICTURE (§4.4). */
#include "test_card_util.h"

#include <time.h>

#include "ffdvb/checksum.h"

static uint8_t big[300000];

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
	CHECK_EQ(E.ops->write(video_w, big, 0, 1), 0);
	/* 131071 usable; a chunk needs >= 20480 free: 27 chunks of 4096 fit */
	CHECK_EQ(E.ops->write(video_w, big, 200000, 1), 27 * 4096);
	CHECK_EQ(card_ring_fill(&E.card->vring), 27 * 4096);
	CHECK_EQ(E.ops->write(video_w, big, 100, 1), -EAGAIN);
	CHECK_EQ(vn->bytes_accepted, 27 * 4096);
	CHECK_EQ(vn->bytes_refused, 200000 - 27 * 4096 + 100);
	CHECK_EQ(vn->errors, 0);
	/* nothing plays: POLLOUT anyway ("may play if asked for") */
	CHECK_EQ(E.ops->poll(video_w), POLLOUT | POLLWRNORM);
	CHECK_EQ(E.ops->poll(audio_w), POLLOUT | POLLWRNORM);

	/* a short final chunk */
	card_ring_flush(&E.card->vring);
	CHECK_EQ(E.ops->write(video_w, big, 5000, 1), 5000);

	/* audio0 PES: only the audio ring counts; 11 chunks fit into 65535 */
	CHECK_EQ(E.ops->write(audio_w, big, 100000, 1), 11 * 4096);
	CHECK_EQ(E.ops->write(audio_w, big, 10, 1), -EAGAIN);
	/* now PES to video0 stalls on the audio ring, TS to video0 does not */
	card_ring_flush(&E.card->vring);
	CHECK_EQ(E.ops->write(video_w, big, 100, 1), -EAGAIN);
	memset(big, 0, 188);
	big[0] = 0x47;
	big[3] = 0x10;
	CHECK_EQ(E.ops->write(video_w, big, 188, 1), 188);
	big[0] = 0;
	big[3] = 0;

	/* EPERM unless source MEMORY, counted as an error */
	io_arg(audio_w, FFDVB_AUDIO_SELECT_SOURCE, FFDVB_AUDIO_SOURCE_DEMUX);
	CHECK_EQ(E.ops->write(audio_w, big, 10, 1), -EPERM);
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
	uint8_t pk[6 * 188];
	uint8_t out[1000];
	size_t n;

	open_memory_writers(0);
	ts_packet(pk + 0 * 188, 0, 1, 0, 0xA1);       /* 184 payload bytes */
	ts_packet(pk + 1 * 188, 0, 3, 10, 0xA2);      /* 188 - 4 - 11 = 173 */
	ts_packet(pk + 2 * 188, 1, 1, 0, 0xA3);       /* TEI: dropped */
	ts_packet(pk + 3 * 188, 0, 2, 183, 0xA4);     /* adaptation only: dropped */
	ts_packet(pk + 4 * 188, 0, 0, 0, 0xA5);       /* reserved afc 0: no payload */
	ts_packet(pk + 5 * 188, 0, 3, 183, 0xA6);     /* adaptation fills the packet */
	CHECK_EQ(E.ops->write(video_w, pk, sizeof(pk), 1), sizeof(pk));
	CHECK_EQ(card_ring_fill(&E.card->vring), 184 + 173);
	n = card_ring_fill(&E.card->vring);
	memcpy(out, E.card->vring.buf, n);
	CHECK(out[0] == 0xA1 && out[183] == 0xA1 && out[184] == 0xA2 && out[n - 1] == 0xA2);
	CHECK_EQ(E.card->nodes[FFDVB_NODE_VIDEO].bytes_accepted, sizeof(pk));

	/* 0x47 but not a multiple of 188: the whole call is PES */
	card_ring_flush(&E.card->vring);
	CHECK_EQ(E.ops->write(video_w, pk, 200, 1), 200);
	CHECK_EQ(card_ring_fill(&E.card->vring), 200);
	/* a multiple of 188 not starting with 0x47: PES too */
	card_ring_flush(&E.card->vring);
	pk[0] = 0x00;
	CHECK_EQ(E.ops->write(video_w, pk, 376, 1), 376);
	CHECK_EQ(card_ring_fill(&E.card->vring), 376);

	/* partial TS counts: a packet needs >= 4096 free in the node's own ring */
	card_ring_flush(&E.card->vring);
	for (int i = 0; i < 800; i++)
		ts_packet(big + i * 188, 0, 1, 0, 0x11);
	CHECK_EQ(E.ops->write(video_w, big, 800 * 188, 1), 691 * 188);
	CHECK_EQ(card_ring_fill(&E.card->vring), 691 * 184);
	CHECK_EQ(E.ops->write(video_w, big, 188, 1), -EAGAIN);
	CHECK_EQ(E.ops->write(audio_w, big, 800 * 188, 1), 334 * 188);
	CHECK_EQ(card_ring_fill(&E.card->aring), 334 * 184);
	CHECK_EQ(E.ops->write(audio_w, big, 188, 1), -EAGAIN);
	memset(big, 0, sizeof(big));
	close_writers();
}

static void drain_and_poll(void)
{
	open_memory_writers(1000000);
	CHECK_EQ(E.ops->write(video_w, big, 200000, 1), 27 * 4096);
	CHECK_EQ(E.ops->write(audio_w, big, 100000, 1), 11 * 4096);
	CHECK(!E.card->drain_running);
	card_drain_tick(E.card); /* nothing plays: nothing drains */
	CHECK_EQ(card_ring_fill(&E.card->vring), 27 * 4096);

	CHECK_EQ(io_arg(video_w, FFDVB_VIDEO_PLAY, 0), 0);
	CHECK(E.card->drain_running);
	/* playing: POLLOUT only with FREE_COND (both rings) */
	CHECK_EQ(E.ops->poll(video_w), 0);
	CHECK_EQ(E.ops->poll(audio_w), 0);
	memset(E.wakes, 0, sizeof(E.wakes));
	E.now += 10000000; /* 10 ms at 1 MB/s: 10000 bytes, video only */
	card_drain_tick(E.card);
	CHECK_EQ(card_ring_fill(&E.card->vring), 27 * 4096 - 10000);
	CHECK_EQ(card_ring_fill(&E.card->aring), 11 * 4096);
	CHECK(E.wakes[FFDVB_NODE_VIDEO] > 0 && E.wakes[FFDVB_NODE_AUDIO] > 0);
	CHECK_EQ(E.ops->poll(video_w), 0); /* the audio ring is still full */

	CHECK_EQ(io_arg(audio_w, FFDVB_AUDIO_PLAY, 0), 0);
	E.now += 1000000; /* 1 ms: 1000 bytes each */
	card_drain_tick(E.card);
	CHECK_EQ(card_ring_fill(&E.card->aring), 11 * 4096 - 1000);
	CHECK_EQ(E.ops->poll(audio_w), POLLOUT | POLLWRNORM);
	CHECK_EQ(E.ops->poll(video_w), POLLOUT | POLLWRNORM);

	/* frozen: video is withheld, audio keeps flowing */
	CHECK_EQ(io_arg(video_w, FFDVB_VIDEO_FREEZE, 0), 0);
	E.now += 1000000;
	card_drain_tick(E.card);
	CHECK_EQ(card_ring_fill(&E.card->vring), 27 * 4096 - 11000);
	CHECK_EQ(card_ring_fill(&E.card->aring), 11 * 4096 - 2000);
	/* fractions of a byte carry over */
	CHECK_EQ(io_arg(video_w, FFDVB_VIDEO_CONTINUE, 0), 0);
	for (int i = 0; i < 10; i++) {
		E.now += 500; /* 0.5 byte each */
		card_drain_tick(E.card);
	}
	CHECK_EQ(card_ring_fill(&E.card->vring), 27 * 4096 - 11005);

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
	struct timespec ts;

	(void)ctx;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* the libevent timer with the real clock */
static void drain_timer(void)
{
	struct timeval tv = { 0, 100000 };

	open_memory_writers(1000000);
	E.card->now_ns = real_now;
	CHECK_EQ(E.ops->write(video_w, big, 200000, 1), 27 * 4096);
	CHECK_EQ(io_arg(video_w, FFDVB_VIDEO_PLAY, 0), 0);
	CHECK_EQ(event_base_get_num_events(E.base, EVENT_BASE_COUNT_ADDED), 1);
	memset(E.wakes, 0, sizeof(E.wakes));
	event_base_loopexit(E.base, &tv);
	event_base_dispatch(E.base);
	/* ~100 ms at 1 MB/s: about 100000 bytes (allow for a slow machine) */
	size_t drained = 27 * 4096 - card_ring_fill(&E.card->vring);
	CHECK(drained >= 50000);
	CHECK(E.wakes[FFDVB_NODE_VIDEO] >= 3);
	CHECK_EQ(io_arg(video_w, FFDVB_VIDEO_STOP, 0), 0);
	CHECK_EQ(event_base_get_num_events(E.base, EVENT_BASE_COUNT_ADDED), 0);
	close_writers();
}

static const uint8_t still_hdr[9] = { 0, 0, 1, 0xe0, 0, 0, 0x80, 0, 0 };

static void still_picture(void)
{
	struct ffdvb_video_still_picture sp = { .size = 1000 };
	struct ffdvb_ioctl io = { .cmd = FFDVB_VIDEO_STILLPICTURE, .buf = &sp, .nonblock = 1 };
	uint8_t data[1000];
	size_t total = 9 + (400000 / 1000 + 1) * 1000, drained = 0;
	int r, rounds = 0;

	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)(i * 7 + 3);
	open_memory_writers(1000000);
	io_arg(video_w, FFDVB_VIDEO_SELECT_SOURCE, FFDVB_VIDEO_SOURCE_DEMUX);
	CHECK_EQ(E.ops->write(video_w, big, 10, 1), -EPERM);
	E.card->video.stream_source = FFDVB_VIDEO_SOURCE_MEMORY;
	CHECK_EQ(E.ops->write(video_w, big, 5000, 1), 5000);
	E.card->video.stream_source = FFDVB_VIDEO_SOURCE_DEMUX;

	/* size 0: source MEMORY, ring flushed, nothing else */
	sp.size = 0;
	CHECK_EQ(E.ops->ioctl(video_w, &io), 0);
	CHECK_EQ(E.card->video.stream_source, FFDVB_VIDEO_SOURCE_MEMORY);
	CHECK_EQ(card_ring_fill(&E.card->vring), 0);
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
	CHECK(memcmp(E.card->vring.buf, still_hdr, 9) == 0);
	CHECK(memcmp(E.card->vring.buf + 9, data, 1000) == 0);
	CHECK(memcmp(E.card->vring.buf + 1009, data, 1000) == 0);
	CHECK(io.progress > 1);
	CHECK(card_ring_space(&E.card->vring) < CARD_FREE_COND_PES);
	while (r == -FFDVB_EBLOCK && rounds++ < 100) {
		size_t before = card_ring_fill(&E.card->vring);

		E.now += 20000000; /* 20 ms: 20000 bytes */
		card_drain_tick(E.card);
		drained += before - card_ring_fill(&E.card->vring);
		r = E.ops->ioctl(video_w, &io);
	}
	CHECK_EQ(r, 0);
	CHECK_EQ(io.progress - 1, total);
	CHECK_EQ(drained + card_ring_fill(&E.card->vring), total);
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

int main(void)
{
	pes_thresholds();
	ts_path();
	drain_and_poll();
	drain_timer();
	still_picture();
	return finish("test_card_write");
}
