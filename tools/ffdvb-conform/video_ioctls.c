/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Spec §4.4: every video0 ioctl on a writer fd — result, errno and the reported state it
 * changes, for DEMUX and MEMORY source, stopped / playing / frozen. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "conform.h"

static int v = -1, a = -1;

static struct ffdvb_video_status st(void)
{
	struct ffdvb_video_status s;

	video_status(v, &s);
	return s;
}

static long vio(unsigned long req, unsigned long val)
{
	return dev_ioctl_val(v, req, val);
}

static void play_state(const char *name, long want_rc, unsigned long req, unsigned long val,
		       int want_state)
{
	check_rc(cname("video.%s_returns", name), want_rc, vio(req, val));
	check_int(cname("video.%s_play_state", name), want_state, st().play_state);
}

static void stored_values(void)
{
	unsigned int caps = 0;
	struct ffdvb_video_status s;

	check_rc("video.get_capabilities_returns", 0,
		 dev_ioctl(v, FFDVB_VIDEO_GET_CAPABILITIES, &caps));
	check_hex("video.get_capabilities_mpeg1_mpeg2_sys_prog", 0x0F, caps);
	check_rc("video.get_status_returns", 0, video_status(v, &s));

	check_rc("video.set_blank_1_returns", 0, vio(FFDVB_VIDEO_SET_BLANK, 1));
	check_int("video.set_blank_1_stored", 1, st().video_blank);
	check_rc("video.set_blank_0_returns", 0, vio(FFDVB_VIDEO_SET_BLANK, 0));
	check_int("video.set_blank_0_stored", 0, st().video_blank);

	check_rc("video.select_source_memory_returns", 0,
		 vio(FFDVB_VIDEO_SELECT_SOURCE, FFDVB_VIDEO_SOURCE_MEMORY));
	check_int("video.select_source_memory_stored", FFDVB_VIDEO_SOURCE_MEMORY,
		  st().stream_source);
	check_rc("video.select_source_demux_returns", 0,
		 vio(FFDVB_VIDEO_SELECT_SOURCE, FFDVB_VIDEO_SOURCE_DEMUX));
	check_int("video.select_source_demux_stored", FFDVB_VIDEO_SOURCE_DEMUX,
		  st().stream_source);
	/* store only, no validation; any value other than MEMORY refuses writes */
	check_rc("video.select_source_7_unchecked_returns_0", 0, vio(FFDVB_VIDEO_SELECT_SOURCE, 7));
	check_int("video.select_source_7_stored_as_is", 7, st().stream_source);
	uint8_t pes[2048];

	make_pes(pes, sizeof pes, 0xE0);
	check_rc("video.write_with_source_7_eperm", -EPERM, dev_write(v, pes, sizeof pes));
	vio(FFDVB_VIDEO_SELECT_SOURCE, FFDVB_VIDEO_SOURCE_DEMUX);

	for (int f = 0; f <= 2; f++) {
		check_rc(cname("video.set_display_format_%d_returns", f), 0,
			 vio(FFDVB_VIDEO_SET_DISPLAY_FORMAT, (unsigned long)f));
		check_int(cname("video.set_display_format_%d_stored", f), f, st().display_format);
	}
	check_rc("video.set_display_format_3_einval", -EINVAL,
		 vio(FFDVB_VIDEO_SET_DISPLAY_FORMAT, 3));
	check_rc("video.set_display_format_minus1_einval", -EINVAL,
		 vio(FFDVB_VIDEO_SET_DISPLAY_FORMAT, (unsigned long)-1));
	check_int("video.set_display_format_invalid_keeps_value", FFDVB_VIDEO_CENTER_CUT_OUT,
		  st().display_format);
	vio(FFDVB_VIDEO_SET_DISPLAY_FORMAT, FFDVB_VIDEO_LETTER_BOX);

	int vf = st().video_format;

	check_rc("video.set_format_4_3_returns", 0, vio(FFDVB_VIDEO_SET_FORMAT, 0));
	check_rc("video.set_format_16_9_returns", 0, vio(FFDVB_VIDEO_SET_FORMAT, 1));
	check_int("video.set_format_does_not_touch_status_video_format", vf, st().video_format);
	check_rc("video.set_format_2_221_einval", -EINVAL, vio(FFDVB_VIDEO_SET_FORMAT, 2));
	check_rc("video.set_format_minus1_einval", -EINVAL,
		 vio(FFDVB_VIDEO_SET_FORMAT, (unsigned long)-1));
	vio(FFDVB_VIDEO_SET_FORMAT, 0);

	check_rc("video.set_streamtype_noop_returns_0", 0, vio(FFDVB_VIDEO_SET_STREAMTYPE, 1234));

	struct ffdvb_video_size sz;

	memset(&sz, 0x5A, sizeof sz);
	check_rc("video.get_size_returns", 0, dev_ioctl(v, FFDVB_VIDEO_GET_SIZE, &sz));
	if (!sz.w && !sz.h && !sz.aspect_ratio)
		check("video.get_size_zero_before_first_size_event", 1, "{0,0,0}", "{0,0,0}");
	else
		check("video.get_size_after_a_size_event_plausible",
		      sz.w > 0 && sz.w <= 1920 && sz.h > 0 && sz.h <= 1088 &&
			      sz.aspect_ratio >= 0 && sz.aspect_ratio <= 2,
		      "{0,0,0} or a decoded size", "{%d,%d,%d}", sz.w, sz.h, sz.aspect_ratio);
}

static void demux_source_states(void)
{
	vio(FFDVB_VIDEO_SELECT_SOURCE, FFDVB_VIDEO_SOURCE_DEMUX);
	play_state("demux.stop", 0, FFDVB_VIDEO_STOP, 0, FFDVB_VIDEO_STOPPED);
	play_state("demux.play", 0, FFDVB_VIDEO_PLAY, 0, FFDVB_VIDEO_PLAYING);
	play_state("demux.freeze", 0, FFDVB_VIDEO_FREEZE, 0, FFDVB_VIDEO_FREEZED);
	play_state("demux.clear_buffer_while_freezed", 0, FFDVB_VIDEO_CLEAR_BUFFER, 0,
		   FFDVB_VIDEO_FREEZED);
	play_state("demux.continue_from_freezed", 0, FFDVB_VIDEO_CONTINUE, 0, FFDVB_VIDEO_PLAYING);
	vio(FFDVB_VIDEO_FREEZE, 0);
	play_state("demux.play_from_freezed", 0, FFDVB_VIDEO_PLAY, 0, FFDVB_VIDEO_PLAYING);
	play_state("demux.clear_buffer_while_playing", 0, FFDVB_VIDEO_CLEAR_BUFFER, 0,
		   FFDVB_VIDEO_PLAYING);
	vio(FFDVB_VIDEO_STOP, 0);
	play_state("demux.continue_from_stopped_plays", 0, FFDVB_VIDEO_CONTINUE, 0,
		   FFDVB_VIDEO_PLAYING);
	vio(FFDVB_VIDEO_STOP, 0);
	play_state("demux.fast_forward_from_stopped", 0, FFDVB_VIDEO_FAST_FORWARD, 2,
		   FFDVB_VIDEO_PLAYING);
	vio(FFDVB_VIDEO_STOP, 0);
	play_state("demux.slowmotion_from_stopped", 0, FFDVB_VIDEO_SLOWMOTION, 2,
		   FFDVB_VIDEO_PLAYING);
	vio(FFDVB_VIDEO_SET_BLANK, 1);
	play_state("demux.stop_with_blank", 0, FFDVB_VIDEO_STOP, 1, FFDVB_VIDEO_STOPPED);
	check_int("video.demux.stop_keeps_blank", 1, st().video_blank);
	vio(FFDVB_VIDEO_SET_BLANK, 0);
}

static void memory_source_states(void)
{
	vio(FFDVB_VIDEO_SELECT_SOURCE, FFDVB_VIDEO_SOURCE_MEMORY);
	play_state("memory.play", 0, FFDVB_VIDEO_PLAY, 0, FFDVB_VIDEO_PLAYING);
	play_state("memory.play_twice_video_only_ebusy", -EBUSY, FFDVB_VIDEO_PLAY, 0,
		   FFDVB_VIDEO_PLAYING);
	play_state("memory.freeze", 0, FFDVB_VIDEO_FREEZE, 0, FFDVB_VIDEO_FREEZED);
	play_state("memory.clear_buffer_while_freezed", 0, FFDVB_VIDEO_CLEAR_BUFFER, 0,
		   FFDVB_VIDEO_FREEZED);
	play_state("memory.continue", 0, FFDVB_VIDEO_CONTINUE, 0, FFDVB_VIDEO_PLAYING);
	play_state("memory.slowmotion", 0, FFDVB_VIDEO_SLOWMOTION, 4, FFDVB_VIDEO_PLAYING);
	play_state("memory.fast_forward", 0, FFDVB_VIDEO_FAST_FORWARD, 0, FFDVB_VIDEO_PLAYING);
	play_state("memory.continue_after_trick", 0, FFDVB_VIDEO_CONTINUE, 0, FFDVB_VIDEO_PLAYING);
	play_state("memory.stop", 0, FFDVB_VIDEO_STOP, 0, FFDVB_VIDEO_STOPPED);
	play_state("memory.play_after_stop_not_ebusy", 0, FFDVB_VIDEO_PLAY, 0,
		   FFDVB_VIDEO_PLAYING);
	vio(FFDVB_VIDEO_STOP, 0);

	/* A+V memory playback: a second VIDEO_PLAY is a soft restart, not EBUSY */
	dev_ioctl_val(a, FFDVB_AUDIO_SELECT_SOURCE, FFDVB_AUDIO_SOURCE_MEMORY);
	check_rc("video.memory.audio_play_for_av", 0, dev_ioctl_val(a, FFDVB_AUDIO_PLAY, 0));
	play_state("memory.play_with_audio", 0, FFDVB_VIDEO_PLAY, 0, FFDVB_VIDEO_PLAYING);
	play_state("memory.play_again_during_av_playback_restarts", 0, FFDVB_VIDEO_PLAY, 0,
		   FFDVB_VIDEO_PLAYING);
	play_state("memory.clear_buffer_during_av_playback", 0, FFDVB_VIDEO_CLEAR_BUFFER, 0,
		   FFDVB_VIDEO_PLAYING);
	vio(FFDVB_VIDEO_STOP, 0);
	dev_ioctl_val(a, FFDVB_AUDIO_STOP, 0);
	dev_ioctl_val(a, FFDVB_AUDIO_SELECT_SOURCE, FFDVB_AUDIO_SOURCE_DEMUX);

	/* quirk (§4.4 SELECT_SOURCE caveat): after MEMORY->DEMUX a STOP takes the DEMUX branch
	 * and the memory playback keeps running */
	vio(FFDVB_VIDEO_SELECT_SOURCE, FFDVB_VIDEO_SOURCE_MEMORY);
	vio(FFDVB_VIDEO_PLAY, 0);
	vio(FFDVB_VIDEO_SELECT_SOURCE, FFDVB_VIDEO_SOURCE_DEMUX);
	vio(FFDVB_VIDEO_STOP, 0);
	vio(FFDVB_VIDEO_SELECT_SOURCE, FFDVB_VIDEO_SOURCE_MEMORY);
	check_rc("video.quirk_stop_with_demux_source_keeps_memory_playback_play_ebusy", -EBUSY,
		 vio(FFDVB_VIDEO_PLAY, 0));
	vio(FFDVB_VIDEO_STOP, 0);
	vio(FFDVB_VIDEO_SELECT_SOURCE, FFDVB_VIDEO_SOURCE_DEMUX);
}

static long still_ioctl(void *arg)
{
	return dev_ioctl(v, FFDVB_VIDEO_STILLPICTURE, arg);
}

/* §4.4 VIDEO_STILLPICTURE semantics with a small frame (payload group: big ones) */
static void still_picture(void)
{
	struct ffdvb_video_still_picture sp = { .iFrame = NULL, .size = 0 };
	struct child c;
	long rc;

	vio(FFDVB_VIDEO_STOP, 0);
	check_rc("video.stillpicture_size0_returns_0", 0,
		 dev_ioctl(v, FFDVB_VIDEO_STILLPICTURE, &sp));
	check_int("video.stillpicture_size0_sets_source_memory", FFDVB_VIDEO_SOURCE_MEMORY,
		  st().stream_source);
	vio(FFDVB_VIDEO_SELECT_SOURCE, FFDVB_VIDEO_SOURCE_DEMUX);

	sp.size = 8192;
	sp.iFrame = malloc((size_t)sp.size);
	make_es((uint8_t *)sp.iFrame, (size_t)sp.size, 8192);
	if (child_start(&c, still_ioctl, &sp) < 0) {
		check("video.stillpicture_8k_returns_0", 0, "0", "fork failed");
	} else if (child_wait(&c, 30000, &rc) < 0) {
		child_kill(&c);
		check("video.stillpicture_8k_returns_0", 0, "0 within 30 s", "no answer");
	} else {
		check_rc("video.stillpicture_8k_returns_0", 0, rc);
	}
	free(sp.iFrame);
	struct ffdvb_video_status s = st();

	check_int("video.stillpicture_leaves_source_memory", FFDVB_VIDEO_SOURCE_MEMORY,
		  s.stream_source);
	check_int("video.stillpicture_keeps_play_state_stopped", FFDVB_VIDEO_STOPPED,
		  s.play_state);
	check_rc("video.stillpicture_leaves_memory_playback_running_play_ebusy", -EBUSY,
		 vio(FFDVB_VIDEO_PLAY, 0));
	vio(FFDVB_VIDEO_STOP, 0);

	sp.size = 100;
	sp.iFrame = bad_page();
	check_rc("video.stillpicture_unreadable_data_efault", -EFAULT,
		 dev_ioctl(v, FFDVB_VIDEO_STILLPICTURE, &sp));
	sp.iFrame = NULL;
	check_rc("video.stillpicture_null_data_efault_no_blank_feature", -EFAULT,
		 dev_ioctl(v, FFDVB_VIDEO_STILLPICTURE, &sp));
	vio(FFDVB_VIDEO_SELECT_SOURCE, FFDVB_VIDEO_SOURCE_MEMORY);
	vio(FFDVB_VIDEO_STOP, 0);
	vio(FFDVB_VIDEO_SELECT_SOURCE, FFDVB_VIDEO_SOURCE_DEMUX);
}

const struct named_request video_unimplemented[] = {
	{ "VIDEO_SET_ID", FFDVB_VIDEO_SET_ID },
	{ "VIDEO_SET_SYSTEM", FFDVB_VIDEO_SET_SYSTEM },
	{ "VIDEO_SET_HIGHLIGHT", FFDVB_VIDEO_SET_HIGHLIGHT },
	{ "VIDEO_SET_SPU", FFDVB_VIDEO_SET_SPU },
	{ "VIDEO_SET_SPU_PALETTE", FFDVB_VIDEO_SET_SPU_PALETTE },
	{ "VIDEO_GET_NAVI", FFDVB_VIDEO_GET_NAVI },
	{ "VIDEO_SET_ATTRIBUTES", FFDVB_VIDEO_SET_ATTRIBUTES },
	{ "VIDEO_GET_FRAME_RATE", FFDVB_VIDEO_GET_FRAME_RATE },
	{ "VIDEO_GET_PTS", FFDVB_VIDEO_GET_PTS },
	{ "VIDEO_GET_FRAME_COUNT", FFDVB_VIDEO_GET_FRAME_COUNT },
	{ "VIDEO_COMMAND", FFDVB_VIDEO_COMMAND },
	{ "VIDEO_TRY_COMMAND", FFDVB_VIDEO_TRY_COMMAND },
	{ "unknown_IO_o_99", _IO('o', 99) },
	{ "unknown_IOR_o_99_int", _IOR('o', 99, int) },
	{ "unknown_IOW_o_200_16bytes", _IOC(_IOC_WRITE, 'o', 200, 16) },
	{ "unknown_IO_X_1", _IO('X', 1) },
};
const size_t video_unimplemented_count = ARRAY_SIZE(video_unimplemented);

/* removed and unknown ioctls: ENOTTY, but EFAULT first when a sized argument is unreadable */
static void removed(void)
{
	static const struct named_request other_nodes[] = {
		{ "AUDIO_PLAY_number", FFDVB_AUDIO_PLAY },
		{ "OSD_GET_CAPABILITY_number", FFDVB_OSD_GET_CAPABILITY },
	};
	uint8_t *buf = calloc(1, 2048);
	void *bad = bad_page();

	for (size_t i = 0; i < video_unimplemented_count + ARRAY_SIZE(other_nodes); i++) {
		const struct named_request *t = i < video_unimplemented_count
			? &video_unimplemented[i] : &other_nodes[i - video_unimplemented_count];
		long r = _IOC_SIZE(t->req) ? dev_ioctl(v, t->req, buf) : dev_ioctl_val(v, t->req, 0);

		check_rc(cname("video.removed.%s_enotty", t->name), -ENOTTY, r);
		if (_IOC_SIZE(t->req))
			check_rc(cname("video.removed.%s_unreadable_arg_efault", t->name),
				 -EFAULT, dev_ioctl(v, t->req, bad));
	}
	/* the removed SPU palette call is never executed, so its embedded pointer is not read */
	struct ffdvb_video_spu_palette pal = { .length = 64, .palette = bad };

	check_rc("video.removed.VIDEO_SET_SPU_PALETTE_embedded_pointer_not_followed", -ENOTTY,
		 dev_ioctl(v, FFDVB_VIDEO_SET_SPU_PALETTE, &pal));
	free(buf);

	static const struct {
		const char *name;
		unsigned long req;
	} sized[] = {
		{ "VIDEO_GET_STATUS", FFDVB_VIDEO_GET_STATUS },
		{ "VIDEO_GET_EVENT", FFDVB_VIDEO_GET_EVENT },
		{ "VIDEO_GET_SIZE", FFDVB_VIDEO_GET_SIZE },
		{ "VIDEO_GET_CAPABILITIES", FFDVB_VIDEO_GET_CAPABILITIES },
		{ "VIDEO_STILLPICTURE", FFDVB_VIDEO_STILLPICTURE },
	};
	for (size_t i = 0; i < ARRAY_SIZE(sized); i++) {
		check_rc(cname("video.%s_null_arg_efault", sized[i].name), -EFAULT,
			 dev_ioctl(v, sized[i].req, NULL));
		check_rc(cname("video.%s_unreadable_arg_efault", sized[i].name), -EFAULT,
			 dev_ioctl(v, sized[i].req, bad));
	}
	/* 20-byte status whose last 4 bytes lie in an unmapped page */
	check_rc("video.VIDEO_GET_STATUS_arg_crossing_into_unmapped_page_efault", -EFAULT,
		 dev_ioctl(v, FFDVB_VIDEO_GET_STATUS, page_end_buf(16)));
	vio(FFDVB_VIDEO_SELECT_SOURCE, FFDVB_VIDEO_SOURCE_DEMUX);
}

void group_video(void)
{
	v = dev_open("video0", O_RDWR | O_NONBLOCK);
	a = dev_open("audio0", O_RDWR | O_NONBLOCK);
	if (v < 0 || a < 0) {
		check("video.open_writer_and_audio", 0, "0", "%s", rcname(v < 0 ? v : a));
		dev_close(&v);
		dev_close(&a);
		return;
	}
	stored_values();
	demux_source_states();
	memory_source_states();
	still_picture();
	removed();
	dev_close(&v);
	dev_close(&a);
}
