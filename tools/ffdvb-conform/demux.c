/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Spec §8, §9.2: decoder feeds on demux0 (one per pes_type) and DMX_GET_STC; frontend0
 * answers FE_GET_INFO. */
#include <errno.h>
#include <fcntl.h>
#include <linux/dvb/frontend.h>
#include <string.h>
#include <unistd.h>

#include "conform.h"

static long pes_filter(int fd, unsigned int pid, int output, int pes_type)
{
	struct ffdvb_dmx_pes_filter_params p = {
		.pid = (uint16_t)pid,
		.input = FFDVB_DMX_IN_FRONTEND,
		.output = output,
		.pes_type = pes_type,
		.flags = FFDVB_DMX_IMMEDIATE_START,
	};

	return dev_ioctl(fd, FFDVB_DMX_SET_PES_FILTER, &p);
}

static void stc(int d)
{
	struct ffdvb_dmx_stc s = { .num = 0 };

	check_rc("demux.get_stc_num_0_returns", 0, dev_ioctl(d, FFDVB_DMX_GET_STC, &s));
	check_int("demux.get_stc_base_1_90khz", 1, s.base);
	check("demux.get_stc_33_bit", s.stc < (1ULL << 33), "< 2^33", "0x%llx",
	      (unsigned long long)s.stc);
	s.num = 1;
	check_rc("demux.get_stc_num_1_einval", -EINVAL, dev_ioctl(d, FFDVB_DMX_GET_STC, &s));
	check_rc("demux.get_stc_unreadable_arg_efault", -EFAULT,
		 dev_ioctl(d, FFDVB_DMX_GET_STC, bad_page()));
}

static void decoder_feeds(void)
{
	int d1 = dev_open("demux0", O_RDWR), d2 = dev_open("demux0", O_RDWR);
	int d3 = dev_open("demux0", O_RDWR);

	check_rc("demux.open_three", 0, d1 < 0 ? d1 : d2 < 0 ? d2 : d3 < 0 ? d3 : 0);
	if (d1 < 0 || d2 < 0 || d3 < 0)
		goto out;
	stc(d1);
	check_rc("demux.pes_filter_decoder_video", 0,
		 pes_filter(d1, 0x100, FFDVB_DMX_OUT_DECODER, FFDVB_DMX_PES_VIDEO0));
	check_rc("demux.second_decoder_feed_same_pes_type_einval", -EINVAL,
		 pes_filter(d2, 0x200, FFDVB_DMX_OUT_DECODER, FFDVB_DMX_PES_VIDEO0));
	check_rc("demux.second_decoder_feed_ts_tap_same_pes_type_einval", -EINVAL,
		 pes_filter(d2, 0x200, FFDVB_DMX_OUT_TS_TAP, FFDVB_DMX_PES_VIDEO0));
	check_rc("demux.pes_filter_decoder_audio", 0,
		 pes_filter(d2, 0x101, FFDVB_DMX_OUT_DECODER, FFDVB_DMX_PES_AUDIO0));
	check_rc("demux.pes_filter_decoder_pes_other_accepted", 0,
		 pes_filter(d3, 0x102, FFDVB_DMX_OUT_DECODER, FFDVB_DMX_PES_OTHER));
	check_rc("demux.pes_filter_pes_type_21_einval", -EINVAL,
		 pes_filter(d3, 0x103, FFDVB_DMX_OUT_DECODER, 21));
	/* VDR switches a decoder PID off: stop, re-set the same fd with PID 0x1FFF */
	check_rc("demux.stop_decoder_feed", 0, dev_ioctl_val(d1, FFDVB_DMX_STOP, 0));
	check_rc("demux.pes_filter_pid_0x1fff_same_fd_accepted", 0,
		 pes_filter(d1, 0x1FFF, FFDVB_DMX_OUT_DECODER, FFDVB_DMX_PES_VIDEO0));
	dev_close(&d1);
	check_rc("demux.decoder_pes_type_free_after_close", 0,
		 pes_filter(d3, 0x100, FFDVB_DMX_OUT_DECODER, FFDVB_DMX_PES_VIDEO0));
	/* leave no decoder PIDs behind (0x1FFF clears them all) */
	pes_filter(d3, 0x1FFF, FFDVB_DMX_OUT_DECODER, FFDVB_DMX_PES_VIDEO0);
	pes_filter(d2, 0x1FFF, FFDVB_DMX_OUT_DECODER, FFDVB_DMX_PES_AUDIO0);
out:
	dev_close(&d1);
	dev_close(&d2);
	dev_close(&d3);
}

/* §8.1: an A/V feed with TS output puts the card into PES recording; memory playback then
 * cannot start (EBUSY) until the feed goes away */
static void recording(void)
{
	int d = dev_open("demux0", O_RDWR), v = dev_open("video0", O_RDWR | O_NONBLOCK);
	int a = dev_open("audio0", O_RDWR | O_NONBLOCK);
	struct ffdvb_video_still_picture sp = { .iFrame = (char *)"\0\0\1\xb3", .size = 4 };

	if (d < 0 || v < 0 || a < 0) {
		check("demux.recording_setup", 0, "demux0, video0, audio0 open", "%s",
		      rcname(d < 0 ? d : v < 0 ? v : a));
		goto out;
	}
	dev_ioctl_val(v, FFDVB_VIDEO_SELECT_SOURCE, FFDVB_VIDEO_SOURCE_MEMORY);
	dev_ioctl_val(a, FFDVB_AUDIO_SELECT_SOURCE, FFDVB_AUDIO_SOURCE_MEMORY);
	check_rc("demux.pes_filter_ts_tap_video_starts_recording", 0,
		 pes_filter(d, 0x100, FFDVB_DMX_OUT_TS_TAP, FFDVB_DMX_PES_VIDEO0));
	check_rc("demux.recording_makes_video_memory_play_ebusy", -EBUSY,
		 dev_ioctl_val(v, FFDVB_VIDEO_PLAY, 0));
	check_rc("demux.recording_makes_audio_memory_play_ebusy", -EBUSY,
		 dev_ioctl_val(a, FFDVB_AUDIO_PLAY, 0));
	check_rc("demux.recording_makes_stillpicture_ebusy", -EBUSY,
		 dev_ioctl(v, FFDVB_VIDEO_STILLPICTURE, &sp));
	dev_ioctl_val(d, FFDVB_DMX_STOP, 0);
	dev_close(&d);
	check_rc("demux.recording_ended_by_close_video_play_ok", 0,
		 dev_ioctl_val(v, FFDVB_VIDEO_PLAY, 0));

	/* VDR reads the STC as the replay position: it must stand still while frozen */
	struct ffdvb_dmx_stc s1 = { .num = 0 }, s2 = { .num = 0 };

	d = dev_open("demux0", O_RDWR);
	dev_ioctl_val(v, FFDVB_VIDEO_FREEZE, 0);
	dev_ioctl(d, FFDVB_DMX_GET_STC, &s1);
	usleep(300000);
	long r = dev_ioctl(d, FFDVB_DMX_GET_STC, &s2);

	check("demux.get_stc_stands_still_while_freezed", r == 0 && s1.stc == s2.stc,
	      "the same STC 0.3 s later", "%s 0x%llx then 0x%llx", rcname(r),
	      (unsigned long long)s1.stc, (unsigned long long)s2.stc);
	dev_ioctl_val(v, FFDVB_VIDEO_STOP, 0);
out:
	dev_close(&d);
	dev_close(&v);
	dev_close(&a);
}

static void frontend(void)
{
	struct dvb_frontend_info info;
	int fe = dev_open("frontend0", O_RDONLY | O_NONBLOCK);

	if (fe == -ENOENT) {
		skip("demux.frontend_get_info", "no frontend0 node");
		return;
	}
	memset(&info, 0, sizeof info);
	check_rc("demux.frontend_get_info", 0, fe < 0 ? fe : dev_ioctl(fe, FE_GET_INFO, &info));
	dev_close(&fe);
}

void group_demux(void)
{
	decoder_feeds();
	card_reset();
	recording();
	frontend();
}
