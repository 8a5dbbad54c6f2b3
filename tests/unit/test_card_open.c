/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Open counting (§2.1), the side effects of open and release (§2.2-2.4) and the status keys. */
#include "test_card_util.h"

static void open_counting(void)
{
	void *w, *w2, *ro[6], *a, *a2, *o, *fe_w, *fe_w2, *fe_r[4], *dmx[8];
	int rc;

	env_setup(0);
	/* video0: 1 writer + 5 read-only */
	w = xopen(FFDVB_NODE_VIDEO, O_RDWR | O_NONBLOCK, &rc);
	CHECK(w && rc == 0);
	w2 = xopen(FFDVB_NODE_VIDEO, O_WRONLY, &rc);
	CHECK(!w2 && rc == -EBUSY);
	for (int i = 0; i < 5; i++) {
		ro[i] = xopen(FFDVB_NODE_VIDEO, O_RDONLY, &rc);
		CHECK(ro[i] && rc == 0);
	}
	ro[5] = xopen(FFDVB_NODE_VIDEO, O_RDONLY, &rc);
	CHECK(!ro[5] && rc == -EBUSY);
	xclose(ro[0]);
	ro[0] = xopen(FFDVB_NODE_VIDEO, O_RDONLY, &rc);
	CHECK(ro[0] && rc == 0);
	xclose(w);
	w = xopen(FFDVB_NODE_VIDEO, O_WRONLY, &rc); /* the slot came back */
	CHECK(w && rc == 0);
	CHECK_EQ(E.card->nodes[FFDVB_NODE_VIDEO].users, 6);

	/* audio0 / osd0: one opener, and it must write */
	a = xopen(FFDVB_NODE_AUDIO, O_RDONLY, &rc);
	CHECK(!a && rc == -EBUSY);
	a = xopen(FFDVB_NODE_AUDIO, O_RDWR | O_NONBLOCK, &rc);
	CHECK(a && rc == 0);
	a2 = xopen(FFDVB_NODE_AUDIO, O_RDWR, &rc);
	CHECK(!a2 && rc == -EBUSY);
	o = xopen(FFDVB_NODE_OSD, O_RDONLY, &rc);
	CHECK(!o && rc == -EBUSY);
	o = xopen(FFDVB_NODE_OSD, O_RDWR, &rc);
	CHECK(o && rc == 0);
	CHECK(!xopen(FFDVB_NODE_OSD, O_WRONLY, &rc) && rc == -EBUSY);

	/* frontend0: one writer, many readers (VDR: O_RDONLY probe + O_RDWR) */
	for (int i = 0; i < 4; i++) {
		fe_r[i] = xopen(FFDVB_NODE_FRONTEND, O_RDONLY, &rc);
		CHECK(fe_r[i] && rc == 0);
	}
	fe_w = xopen(FFDVB_NODE_FRONTEND, O_RDWR | O_NONBLOCK, &rc);
	CHECK(fe_w && rc == 0);
	fe_w2 = xopen(FFDVB_NODE_FRONTEND, O_RDWR | O_NONBLOCK, &rc);
	CHECK(!fe_w2 && rc == -EBUSY);

	/* demux0: many openers of any mode */
	for (int i = 0; i < 8; i++) {
		dmx[i] = xopen(FFDVB_NODE_DEMUX, i & 1 ? O_RDONLY : O_RDWR, &rc);
		CHECK(dmx[i] && rc == 0);
	}

	for (int i = 0; i < 5; i++)
		xclose(ro[i]);
	for (int i = 0; i < 4; i++)
		xclose(fe_r[i]);
	for (int i = 0; i < 8; i++)
		xclose(dmx[i]);
	xclose(w), xclose(a), xclose(o), xclose(fe_w);
	for (int t = 0; t < FFDVB_NODE_COUNT; t++)
		CHECK_EQ(E.card->nodes[t].users, 0);
	env_teardown();
}

static void video_open_side_effects(void)
{
	struct ffdvb_video_status vs;
	struct ffdvb_audio_status as;
	struct ffdvb_video_event ev;
	void *w, *a, *ro;
	uint8_t pes[100], apes[100];

	fill_pes(pes, sizeof(pes), 0xe0, 2048); /* one whole video PES: passes the repacker as is */
	fill_pes(apes, sizeof(apes), 0xc0, 2048);
	env_setup(0);
	a = xopen(FFDVB_NODE_AUDIO, O_RDWR, NULL);
	w = xopen(FFDVB_NODE_VIDEO, O_RDWR, NULL);
	CHECK_EQ(io_arg(w, FFDVB_VIDEO_SELECT_SOURCE, FFDVB_VIDEO_SOURCE_MEMORY), 0);
	CHECK_EQ(io_arg(a, FFDVB_AUDIO_SELECT_SOURCE, FFDVB_AUDIO_SOURCE_MEMORY), 0);
	CHECK_EQ(io_arg(w, FFDVB_VIDEO_SET_BLANK, 1), 0);
	CHECK_EQ(io_arg(w, FFDVB_VIDEO_PLAY, 0), 0);
	CHECK_EQ(io_arg(a, FFDVB_AUDIO_PLAY, 0), 0);
	CHECK_EQ(io_arg(w, FFDVB_VIDEO_SET_DISPLAY_FORMAT, FFDVB_VIDEO_CENTER_CUT_OUT), 0);
	CHECK_EQ(E.ops->write(w, pes, sizeof(pes), 1), 100);
	CHECK_EQ(E.ops->write(a, apes, sizeof(apes), 1), 100);
	CHECK_EQ(card_ring_fill(&E.card->st[FFDVB_STREAM_VIDEO].ring), 100);
	CHECK_EQ(card_ring_fill(&E.card->st[FFDVB_STREAM_AUDIO].ring), 100);
	for (int i = 0; i < 9; i++) /* overflows the queue */
		card_video_size_changed(E.card, 720, 576, 2);
	CHECK(E.card->ev_overflow);
	CHECK_EQ(E.card->playing, CARD_PLAY_VIDEO | CARD_PLAY_AUDIO);

	/* writer release: video memory playback stops, reported state persists */
	xclose(w);
	CHECK_EQ(E.card->playing, CARD_PLAY_AUDIO);
	CHECK_EQ(E.card->video.play_state, FFDVB_VIDEO_PLAYING);
	CHECK_EQ(E.card->video.stream_source, FFDVB_VIDEO_SOURCE_MEMORY);
	CHECK_EQ(card_ring_fill(&E.card->st[FFDVB_STREAM_VIDEO].ring), 100); /* not flushed on close */

	/* read-only open: no side effects */
	ro = xopen(FFDVB_NODE_VIDEO, O_RDONLY, NULL);
	CHECK_EQ(card_ring_fill(&E.card->st[FFDVB_STREAM_VIDEO].ring), 100);
	CHECK_EQ(E.card->video.stream_source, FFDVB_VIDEO_SOURCE_MEMORY);
	xclose(ro);

	/* writer open: both rings flushed, AV sync reported 1, source DEMUX, queue emptied,
	 * overflow flag, blank, play_state, display_format kept */
	E.card->audio.AV_sync_state = 0;
	memset(E.wakes, 0, sizeof(E.wakes));
	w = xopen(FFDVB_NODE_VIDEO, O_WRONLY, NULL);
	CHECK_EQ(card_ring_fill(&E.card->st[FFDVB_STREAM_VIDEO].ring), 0);
	CHECK_EQ(card_ring_fill(&E.card->st[FFDVB_STREAM_AUDIO].ring), 0);
	CHECK(E.wakes[FFDVB_NODE_VIDEO] > 0 && E.wakes[FFDVB_NODE_AUDIO] > 0);
	CHECK_EQ(io_buf(w, FFDVB_VIDEO_GET_STATUS, &vs, 0), 0);
	CHECK_EQ(vs.stream_source, FFDVB_VIDEO_SOURCE_DEMUX);
	CHECK_EQ(vs.video_blank, 1);
	CHECK_EQ(vs.play_state, FFDVB_VIDEO_PLAYING);
	CHECK_EQ(vs.display_format, FFDVB_VIDEO_CENTER_CUT_OUT);
	CHECK_EQ(io_buf(a, FFDVB_AUDIO_GET_STATUS, &as, 0), 0);
	CHECK_EQ(as.AV_sync_state, 1);
	CHECK_EQ(as.stream_source, FFDVB_AUDIO_SOURCE_MEMORY); /* video open leaves audio source */
	CHECK(!card_events_pending(E.card));
	CHECK_EQ(io_buf(w, FFDVB_VIDEO_GET_EVENT, &ev, 1), -EOVERFLOW); /* flag survived */
	CHECK_EQ(io_buf(w, FFDVB_VIDEO_GET_EVENT, &ev, 1), -EWOULDBLOCK);

	/* audio release stops audio playback; audio open flushes its ring and sets DEMUX */
	xclose(a);
	CHECK_EQ(E.card->playing, 0);
	CHECK_EQ(E.card->audio.play_state, FFDVB_AUDIO_PLAYING);
	CHECK_EQ(io_arg(w, FFDVB_VIDEO_SELECT_SOURCE, FFDVB_VIDEO_SOURCE_MEMORY), 0);
	CHECK_EQ(E.ops->write(w, pes, sizeof(pes), 1), 100);
	E.card->audio.stream_source = FFDVB_AUDIO_SOURCE_MEMORY;
	card_ring_put(&E.card->st[FFDVB_STREAM_AUDIO].ring, pes, 50);
	a = xopen(FFDVB_NODE_AUDIO, O_WRONLY, NULL);
	CHECK_EQ(card_ring_fill(&E.card->st[FFDVB_STREAM_AUDIO].ring), 0);
	/* audio open leaves the video ring */
	CHECK_EQ(card_ring_fill(&E.card->st[FFDVB_STREAM_VIDEO].ring), 100);
	CHECK_EQ(E.card->audio.stream_source, FFDVB_AUDIO_SOURCE_DEMUX);
	xclose(a);
	xclose(w);
	env_teardown();
}

/* the OSD model's view of window n (the card keeps no window bookkeeping of its own) */
static struct ffdvb_osd_window_info win_info(int n)
{
	struct ffdvb_osd_window_info i = { 0 };

	ffdvb_osd_window(E.card->osd, n, &i);
	return i;
}

static void osd_close_keeps_windows(void)
{
	struct ffdvb_osd_cmd c = { .cmd = FFDVB_OSD_SetWindow, .x0 = 3 };
	void *o;

	env_setup(0);
	o = xopen(FFDVB_NODE_OSD, O_RDWR, NULL);
	CHECK_EQ(io_buf(o, FFDVB_OSD_SEND_CMD, &c, 0), 0);
	c = (struct ffdvb_osd_cmd){ .cmd = FFDVB_OSD_Open, .x0 = 10, .y0 = 20, .x1 = 109, .y1 = 69,
				    .color = 4 };
	CHECK_EQ(io_buf(o, FFDVB_OSD_SEND_CMD, &c, 0), 0);
	xclose(o);
	o = xopen(FFDVB_NODE_OSD, O_RDWR, NULL);
	CHECK_EQ(ffdvb_osd_current_window(E.card->osd), 3);
	CHECK(win_info(3).open && win_info(3).visible);
	CHECK_EQ(win_info(3).bpp, 4);
	xclose(o);
	env_teardown();
}

static void status_json(void)
{
	static const char *const keys[] = {
		"{\"adapter\":0,", "\"nodes\":{", "\"video0\":{\"openers\":1,\"readers\":0,\"writers\":1,",
		"\"audio0\":{", "\"osd0\":{", "\"demux0\":{", "\"frontend0\":{", "\"bytes_accepted\":",
		"\"bytes_refused\":", "\"errors\":", "\"video\":{\"play_state\":\"STOPPED\"",
		"\"stream_source\":\"DEMUX\"", "\"ring_fill\":0", "\"ring_size\":131072",
		"\"playing\":false", "\"audio\":{\"play_state\":\"STOPPED\"", "\"ring_size\":65536",
		"\"mute\":0", "\"trick\":\"NONE\",\"slow_count\":0}",
		"\"last_still\":{\"size\":0,\"fnv1a\":0}",
		"\"last_osd_data\":{\"cmd\":0,\"size\":0,\"fnv1a\":0}",
	};
	char *text = NULL;
	size_t len = 0;
	FILE *m;
	void *w;

	env_setup(0);
	w = xopen(FFDVB_NODE_VIDEO, O_RDWR, NULL);
	m = open_memstream(&text, &len);
	CHECK_EQ(ffdvb_card_status(E.card, m, 1), 0);
	fclose(m);
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		checks++;
		if (!strstr(text, keys[i])) {
			failures++;
			printf("FAIL status json lacks %s\n%s", keys[i], text);
		}
	}
	/* balanced braces, one line */
	int depth = 0, min = 0;
	for (char *p = text; *p; p++) {
		depth += *p == '{' ? 1 : *p == '}' ? -1 : 0;
		if (depth < min)
			min = depth;
	}
	CHECK_EQ(depth, 0);
	CHECK_EQ(min, 0);
	CHECK_EQ(strchr(text, '\n') - text, (long long)len - 1);
	free(text);

	text = NULL;
	m = open_memstream(&text, &len);
	CHECK_EQ(ffdvb_card_status(E.card, m, 0), 0);
	fclose(m);
	CHECK(strstr(text, "video0") && strstr(text, "frontend0") && strstr(text, "STOPPED"));
	free(text);

	/* the trick mode left in effect, as a client set it */
	text = NULL;
	CHECK_EQ(io_arg(w, FFDVB_VIDEO_SLOWMOTION, 6), 0);
	m = open_memstream(&text, &len);
	CHECK_EQ(ffdvb_card_status(E.card, m, 1), 0);
	fclose(m);
	CHECK_LABELLED("status shows VIDEO_SLOWMOTION 6",
		       strstr(text, "\"trick\":\"SLOW\",\"slow_count\":6}") != NULL);
	free(text);
	xclose(w);
	env_teardown();
}

int main(void)
{
	open_counting();
	video_open_side_effects();
	osd_close_keeps_windows();
	status_json();
	return finish("test_card_open");
}
