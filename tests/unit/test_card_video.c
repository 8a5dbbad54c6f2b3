/* SPDX-License-Identifier: GPL-2.0-or-later */
/* video0 and audio0 ioctls (§4.4, §5.3), the RO-fd rule, removed ioctls, the event queue. */
#include "test_card_util.h"

static const unsigned int removed_video[] = {
	FFDVB_VIDEO_SET_ID, FFDVB_VIDEO_SET_SYSTEM, FFDVB_VIDEO_SET_HIGHLIGHT,
	FFDVB_VIDEO_SET_SPU, FFDVB_VIDEO_SET_SPU_PALETTE, FFDVB_VIDEO_GET_NAVI,
	FFDVB_VIDEO_SET_ATTRIBUTES, FFDVB_VIDEO_GET_FRAME_RATE, FFDVB_VIDEO_GET_PTS,
	FFDVB_VIDEO_GET_FRAME_COUNT, FFDVB_VIDEO_COMMAND, FFDVB_VIDEO_TRY_COMMAND,
	_IO('o', 99), 0x12345678,
};

static void ro_and_removed(void)
{
	static const unsigned int implemented[] = {
		FFDVB_VIDEO_STOP, FFDVB_VIDEO_PLAY, FFDVB_VIDEO_FREEZE, FFDVB_VIDEO_CONTINUE,
		FFDVB_VIDEO_SELECT_SOURCE, FFDVB_VIDEO_SET_BLANK, FFDVB_VIDEO_SET_DISPLAY_FORMAT,
		FFDVB_VIDEO_STILLPICTURE, FFDVB_VIDEO_FAST_FORWARD, FFDVB_VIDEO_SLOWMOTION,
		FFDVB_VIDEO_GET_CAPABILITIES, FFDVB_VIDEO_CLEAR_BUFFER, FFDVB_VIDEO_SET_STREAMTYPE,
		FFDVB_VIDEO_SET_FORMAT,
	};
	unsigned char buf[2048] = { 0 };
	struct ffdvb_video_status vs;
	struct ffdvb_video_size sz = { 1, 1, 1 };
	void *ro, *w;
	char c;

	env_setup(0);
	ro = xopen(FFDVB_NODE_VIDEO, O_RDONLY, NULL);
	w = xopen(FFDVB_NODE_VIDEO, O_RDWR, NULL);
	for (size_t i = 0; i < sizeof(implemented) / sizeof(implemented[0]); i++)
		CHECK_EQ(io_buf(ro, implemented[i], buf, 1), -EPERM);
	for (size_t i = 0; i < sizeof(removed_video) / sizeof(removed_video[0]); i++) {
		CHECK_EQ(io_buf(ro, removed_video[i], buf, 1), -EPERM);
		CHECK_EQ(io_buf(w, removed_video[i], buf, 1), -ENOTTY);
	}
	CHECK_EQ(E.card->video.play_state, FFDVB_VIDEO_STOPPED); /* RO PLAY did nothing */
	CHECK_EQ(io_buf(ro, FFDVB_VIDEO_GET_STATUS, &vs, 1), 0);
	CHECK_EQ(vs.video_blank, 0);
	CHECK_EQ(vs.play_state, FFDVB_VIDEO_STOPPED);
	CHECK_EQ(vs.stream_source, FFDVB_VIDEO_SOURCE_DEMUX);
	CHECK_EQ(vs.video_format, FFDVB_VIDEO_FORMAT_4_3);
	CHECK_EQ(vs.display_format, FFDVB_VIDEO_LETTER_BOX);
	CHECK_EQ(io_buf(ro, FFDVB_VIDEO_GET_SIZE, &sz, 1), 0);
	CHECK(sz.w == 0 && sz.h == 0 && sz.aspect_ratio == 0);
	CHECK_EQ(io_buf(ro, FFDVB_VIDEO_GET_EVENT, buf, 1), -EWOULDBLOCK);
	CHECK_EQ(E.ops->read(ro, &c, 1, 1), -EINVAL);
	CHECK_EQ(E.ops->read(w, &c, 1, 1), -EINVAL);
	CHECK_EQ(E.ops->poll(ro), 0);
	CHECK_EQ(E.ops->poll(w), POLLOUT | POLLWRNORM);
	CHECK(E.card->nodes[FFDVB_NODE_VIDEO].errors > 0);
	xclose(ro);
	xclose(w);
	env_teardown();
}

static void video_ioctls(void)
{
	struct ffdvb_video_status vs;
	unsigned int caps = 0;
	void *w, *a;
	uint8_t pes[64], apes[64];

	fill_pes(pes, sizeof(pes), 0xe0, 2048); /* whole PES packets: ring fill == bytes written */
	fill_pes(apes, sizeof(apes), 0xc0, 2048);
	env_setup(0);
	w = xopen(FFDVB_NODE_VIDEO, O_RDWR, NULL);
	a = xopen(FFDVB_NODE_AUDIO, O_RDWR, NULL);
	CHECK_EQ(io_buf(w, FFDVB_VIDEO_GET_CAPABILITIES, &caps, 0), 0);
	CHECK_EQ(caps, 0x0F);

	CHECK_EQ(io_arg(w, FFDVB_VIDEO_SET_FORMAT, 1), 0);
	CHECK_EQ(E.card->display_ar, 1);
	CHECK_EQ(io_arg(w, FFDVB_VIDEO_SET_FORMAT, 2), -EINVAL);
	CHECK_EQ(io_arg(w, FFDVB_VIDEO_SET_FORMAT, (unsigned long)-1), -EINVAL);
	CHECK_EQ(E.card->display_ar, 1);
	CHECK_EQ(E.card->video.video_format, FFDVB_VIDEO_FORMAT_4_3); /* not touched */
	CHECK_EQ(io_arg(w, FFDVB_VIDEO_SET_DISPLAY_FORMAT, 0), 0);
	CHECK_EQ(io_arg(w, FFDVB_VIDEO_SET_DISPLAY_FORMAT, 3), -EINVAL);
	CHECK_EQ(io_arg(w, FFDVB_VIDEO_SET_DISPLAY_FORMAT, (unsigned long)-1), -EINVAL);
	CHECK_EQ(E.card->video.display_format, FFDVB_VIDEO_PAN_SCAN);
	CHECK_EQ(io_arg(w, FFDVB_VIDEO_SET_STREAMTYPE, 77), 0);
	CHECK_EQ(io_arg(w, FFDVB_VIDEO_SET_BLANK, 5), 0);
	CHECK_EQ(E.card->video.video_blank, 5);

	/* DEMUX source: PLAY changes play_state only */
	CHECK_EQ(io_arg(w, FFDVB_VIDEO_PLAY, 0), 0);
	CHECK_EQ(E.card->video.play_state, FFDVB_VIDEO_PLAYING);
	CHECK_EQ(E.card->playing, 0);
	CHECK_EQ(io_arg(w, FFDVB_VIDEO_PLAY, 0), 0);
	CHECK_EQ(io_arg(w, FFDVB_VIDEO_STOP, 1), 0);
	CHECK_EQ(E.card->video.play_state, FFDVB_VIDEO_STOPPED);

	/* garbage source is stored and counts as "not memory" */
	CHECK_EQ(io_arg(w, FFDVB_VIDEO_SELECT_SOURCE, 7), 0);
	CHECK_EQ(E.card->video.stream_source, 7);
	CHECK_EQ(E.ops->write(w, pes, sizeof(pes), 1), -EPERM);

	/* memory playback */
	CHECK_EQ(io_arg(w, FFDVB_VIDEO_SELECT_SOURCE, FFDVB_VIDEO_SOURCE_MEMORY), 0);
	CHECK_EQ(io_arg(w, FFDVB_VIDEO_PLAY, 0), 0);
	CHECK_EQ(E.card->playing, CARD_PLAY_VIDEO);
	CHECK(E.card->drain_running);
	CHECK_EQ(io_arg(w, FFDVB_VIDEO_PLAY, 0), -EBUSY); /* video alone already plays */
	CHECK_EQ(io_arg(w, FFDVB_VIDEO_FREEZE, 0), 0);
	CHECK_EQ(E.card->video.play_state, FFDVB_VIDEO_FREEZED);
	CHECK_EQ(E.card->trick, CARD_TRICK_FREEZE);
	CHECK_EQ(io_arg(w, FFDVB_VIDEO_PLAY, 0), -EBUSY); /* ...but it un-froze first */
	CHECK_EQ(E.card->video.play_state, FFDVB_VIDEO_PLAYING);
	CHECK_EQ(E.card->trick, CARD_TRICK_NONE);
	CHECK_EQ(io_arg(a, FFDVB_AUDIO_SELECT_SOURCE, FFDVB_AUDIO_SOURCE_MEMORY), 0);
	CHECK_EQ(io_arg(a, FFDVB_AUDIO_PLAY, 0), 0);
	CHECK_EQ(E.card->playing, CARD_PLAY_VIDEO | CARD_PLAY_AUDIO);
	CHECK_EQ(io_arg(w, FFDVB_VIDEO_PLAY, 0), 0); /* A+V: soft restart */
	CHECK_EQ(E.card->playing, CARD_PLAY_VIDEO | CARD_PLAY_AUDIO);
	CHECK_EQ(io_arg(w, FFDVB_VIDEO_SLOWMOTION, 4), 0);
	CHECK_EQ(E.card->trick, CARD_TRICK_SLOW);
	CHECK_EQ(E.card->slow_count, 4);
	CHECK_EQ(io_arg(w, FFDVB_VIDEO_FREEZE, 0), 0);
	CHECK_EQ(io_arg(w, FFDVB_VIDEO_CONTINUE, 0), 0);
	CHECK_EQ(E.card->video.play_state, FFDVB_VIDEO_PLAYING);
	CHECK_EQ(E.card->trick, CARD_TRICK_NONE);
	CHECK_EQ(io_arg(w, FFDVB_VIDEO_FAST_FORWARD, 2), 0);
	CHECK_EQ(E.card->trick, CARD_TRICK_FAST);

	/* CLEAR_BUFFER flushes only the video ring */
	CHECK_EQ(E.ops->write(w, pes, sizeof(pes), 1), 64);
	CHECK_EQ(E.ops->write(a, apes, sizeof(apes), 1), 64);
	CHECK_EQ(io_arg(w, FFDVB_VIDEO_CLEAR_BUFFER, 0), 0);
	CHECK_EQ(card_ring_fill(&E.card->st[FFDVB_STREAM_VIDEO].ring), 0);
	CHECK_EQ(card_ring_fill(&E.card->st[FFDVB_STREAM_AUDIO].ring), 64);
	CHECK_EQ(E.card->video.play_state, FFDVB_VIDEO_PLAYING);

	/* switching to DEMUX does not stop memory playback; STOP then takes the DEMUX branch */
	CHECK_EQ(io_arg(w, FFDVB_VIDEO_SELECT_SOURCE, FFDVB_VIDEO_SOURCE_DEMUX), 0);
	CHECK_EQ(io_arg(w, FFDVB_VIDEO_STOP, 0), 0);
	CHECK_EQ(E.card->playing, CARD_PLAY_VIDEO | CARD_PLAY_AUDIO);
	CHECK_EQ(io_arg(w, FFDVB_VIDEO_SELECT_SOURCE, FFDVB_VIDEO_SOURCE_MEMORY), 0);
	CHECK_EQ(io_arg(w, FFDVB_VIDEO_STOP, 0), 0);
	CHECK_EQ(E.card->playing, CARD_PLAY_AUDIO);
	CHECK_EQ(E.card->video.play_state, FFDVB_VIDEO_STOPPED);
	CHECK_EQ(io_arg(a, FFDVB_AUDIO_STOP, 0), 0);
	CHECK_EQ(E.card->playing, 0);
	CHECK(!E.card->drain_running);
	CHECK_EQ(io_buf(w, FFDVB_VIDEO_GET_STATUS, &vs, 0), 0);
	CHECK_EQ(vs.video_blank, 5);
	xclose(a);
	xclose(w);
	env_teardown();
}

static void audio_ioctls(void)
{
	static const unsigned int removed_audio[] = {
		FFDVB_AUDIO_SET_EXT_ID, FFDVB_AUDIO_SET_ATTRIBUTES, FFDVB_AUDIO_SET_KARAOKE,
		FFDVB_AUDIO_GET_PTS, FFDVB_AUDIO_BILINGUAL_CHANNEL_SELECT, _IO('o', 120),
	};
	struct ffdvb_audio_status as;
	struct ffdvb_audio_mixer mix = { 10, 20 };
	unsigned int caps = 0;
	unsigned char buf[64] = { 0 };
	void *a;
	char c;

	env_setup(0);
	a = xopen(FFDVB_NODE_AUDIO, O_RDWR, NULL);
	for (size_t i = 0; i < sizeof(removed_audio) / sizeof(removed_audio[0]); i++)
		CHECK_EQ(io_buf(a, removed_audio[i], buf, 0), -ENOTTY);
	CHECK_EQ(E.ops->read(a, &c, 1, 0), -EINVAL);
	CHECK_EQ(io_buf(a, FFDVB_AUDIO_GET_CAPABILITIES, &caps, 0), 0);
	CHECK_EQ(caps, 0x10F);
	CHECK_EQ(io_arg(a, FFDVB_AUDIO_SET_ID, 3), 0);
	CHECK_EQ(io_arg(a, FFDVB_AUDIO_SET_STREAMTYPE, 3), 0);
	CHECK_EQ(io_buf(a, FFDVB_AUDIO_SET_MIXER, &mix, 0), 0);
	CHECK_EQ(E.card->mixer.volume_right, 20);

	CHECK_EQ(io_arg(a, FFDVB_AUDIO_CHANNEL_SELECT, FFDVB_AUDIO_MONO_LEFT), 0);
	CHECK_EQ(io_arg(a, FFDVB_AUDIO_CHANNEL_SELECT, FFDVB_AUDIO_MONO), -EINVAL);
	CHECK_EQ(io_arg(a, FFDVB_AUDIO_SET_BYPASS_MODE, 1), 0);
	CHECK_EQ(io_arg(a, FFDVB_AUDIO_SET_AV_SYNC, 1), 0);
	CHECK_EQ(io_buf(a, FFDVB_AUDIO_GET_STATUS, &as, 0), 0);
	CHECK_EQ(as.channel_select, FFDVB_AUDIO_MONO); /* the invalid value stays */
	CHECK_EQ(as.bypass_mode, 1);
	CHECK_EQ(as.AV_sync_state, 1);
	CHECK(as.mixer_state.volume_left == 0 && as.mixer_state.volume_right == 0);
	CHECK_EQ(io_arg(a, FFDVB_AUDIO_CHANNEL_SELECT, 9), -EINVAL);
	CHECK_EQ(E.card->audio.channel_select, 9);

	/* the auto-unmute of docs/av7110.md, clients §2.9 */
	CHECK_EQ(io_arg(a, FFDVB_AUDIO_SET_MUTE, 1), 0);
	CHECK_EQ(E.card->audio.mute_state, 1);
	CHECK_EQ(E.card->effective_mute, 1);
	CHECK_EQ(io_arg(a, FFDVB_AUDIO_CONTINUE, 0), 0); /* not PAUSED: no-op */
	CHECK_EQ(E.card->effective_mute, 1);
	CHECK_EQ(E.card->audio.play_state, FFDVB_AUDIO_STOPPED);
	CHECK_EQ(io_arg(a, FFDVB_AUDIO_CLEAR_BUFFER, 0), 0); /* no memory playback: stays */
	CHECK_EQ(E.card->effective_mute, 1);
	CHECK_EQ(io_arg(a, FFDVB_AUDIO_PLAY, 0), 0); /* DEMUX source: unmute, PLAYING */
	CHECK_EQ(E.card->audio.play_state, FFDVB_AUDIO_PLAYING);
	CHECK_EQ(E.card->audio.mute_state, 1);
	CHECK_EQ(E.card->effective_mute, 0);
	CHECK_EQ(E.card->playing, 0);
	CHECK_EQ(io_arg(a, FFDVB_AUDIO_PAUSE, 0), 0);
	CHECK_EQ(E.card->audio.play_state, FFDVB_AUDIO_PAUSED);
	CHECK_EQ(E.card->effective_mute, 1);
	CHECK_EQ(io_arg(a, FFDVB_AUDIO_CONTINUE, 0), 0);
	CHECK_EQ(E.card->audio.play_state, FFDVB_AUDIO_PLAYING);
	CHECK_EQ(E.card->effective_mute, 0);
	CHECK_EQ(io_arg(a, FFDVB_AUDIO_STOP, 0), 0); /* DEMUX: firmware mute */
	CHECK_EQ(E.card->effective_mute, 1);
	CHECK_EQ(E.card->audio.mute_state, 1);

	/* memory playback */
	CHECK_EQ(io_arg(a, FFDVB_AUDIO_SELECT_SOURCE, FFDVB_AUDIO_SOURCE_MEMORY), 0);
	CHECK_EQ(io_arg(a, FFDVB_AUDIO_PLAY, 0), 0);
	CHECK_EQ(E.card->playing, CARD_PLAY_AUDIO);
	CHECK_EQ(io_arg(a, FFDVB_AUDIO_PLAY, 0), -EBUSY);
	CHECK_EQ(io_arg(a, FFDVB_AUDIO_SET_MUTE, 1), 0);
	CHECK_EQ(io_arg(a, FFDVB_AUDIO_CLEAR_BUFFER, 0), 0);
	CHECK_EQ(E.card->effective_mute, 0);
	CHECK_EQ(E.card->audio.mute_state, 1);
	CHECK_EQ(io_arg(a, FFDVB_AUDIO_SET_MUTE, 0), 0);
	CHECK_EQ(E.card->audio.mute_state, 0);
	CHECK_EQ(io_arg(a, FFDVB_AUDIO_STOP, 0), 0);
	CHECK_EQ(E.card->playing, 0);
	CHECK_EQ(E.card->audio.play_state, FFDVB_AUDIO_STOPPED);
	xclose(a);
	env_teardown();
}

static void events(void)
{
	struct ffdvb_video_event ev;
	struct ffdvb_video_size sz;
	struct ffdvb_ioctl io = { .cmd = FFDVB_VIDEO_GET_EVENT, .buf = &ev };
	void *ro, *w;

	env_setup(0);
	ro = xopen(FFDVB_NODE_VIDEO, O_RDONLY, NULL);
	w = xopen(FFDVB_NODE_VIDEO, O_RDWR, NULL);
	CHECK_EQ(E.ops->ioctl(ro, &io), -FFDVB_EBLOCK); /* blocking and empty */
	io.interrupted = 1;
	CHECK_EQ(E.ops->ioctl(ro, &io), -EINTR);
	io.interrupted = 0;

	E.wakes[FFDVB_NODE_VIDEO] = 0;
	card_video_size_changed(E.card, 720, 576, 3);
	CHECK(E.wakes[FFDVB_NODE_VIDEO] > 0);
	CHECK_EQ(E.ops->poll(ro), POLLPRI);
	CHECK_EQ(E.ops->poll(w), POLLPRI | POLLOUT | POLLWRNORM);
	CHECK_EQ(E.card->video.video_format, FFDVB_VIDEO_FORMAT_16_9);
	CHECK_EQ(io_buf(ro, FFDVB_VIDEO_GET_SIZE, &sz, 0), 0);
	CHECK(sz.w == 720 && sz.h == 576 && sz.aspect_ratio == FFDVB_VIDEO_FORMAT_16_9);
	memset(&ev, 0xff, sizeof(ev));
	CHECK_EQ(E.ops->ioctl(ro, &io), 0);
	CHECK_EQ(ev.type, FFDVB_VIDEO_EVENT_SIZE_CHANGED);
	CHECK_EQ(ev.timestamp, 0);
	CHECK(ev.u.size.w == 720 && ev.u.size.h == 576 && ev.u.size.aspect_ratio == 1);
	CHECK_EQ(E.ops->poll(ro), 0);
	card_video_size_changed(E.card, 1, 1, 4);
	CHECK_EQ(E.card->video.video_format, FFDVB_VIDEO_FORMAT_221_1);
	card_video_size_changed(E.card, 1, 1, 1);
	CHECK_EQ(E.card->video.video_format, FFDVB_VIDEO_FORMAT_4_3);
	io.nonblock = 1;
	CHECK_EQ(E.ops->ioctl(ro, &io), 0);
	CHECK_EQ(E.ops->ioctl(ro, &io), 0);
	CHECK_EQ(E.ops->ioctl(ro, &io), -EWOULDBLOCK);

	/* 7 pending fit; the 8th drops the oldest and sets the overflow flag */
	for (int i = 1; i <= 7; i++)
		card_video_size_changed(E.card, i, i, 2);
	CHECK(!E.card->ev_overflow);
	card_video_size_changed(E.card, 8, 8, 2);
	CHECK(E.card->ev_overflow);
	CHECK_EQ(E.ops->ioctl(ro, &io), -EOVERFLOW);
	for (int i = 2; i <= 8; i++) {
		CHECK_EQ(E.ops->ioctl(w, &io), 0);
		CHECK_EQ(ev.u.size.w, i);
	}
	CHECK_EQ(E.ops->ioctl(ro, &io), -EWOULDBLOCK);
	xclose(ro);
	xclose(w);
	env_teardown();
}

int main(void)
{
	ro_and_removed();
	video_ioctls();
	audio_ioctls();
	events();
	return finish("test_card_video");
}
