/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Spec §5.3: every audio0 ioctl — result, errno and the reported state it changes. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "conform.h"

static int a = -1;

static struct ffdvb_audio_status st(void)
{
	struct ffdvb_audio_status s;

	audio_status(a, &s);
	return s;
}

static long aio(unsigned long req, unsigned long val)
{
	return dev_ioctl_val(a, req, val);
}

static void play_state(const char *name, long want_rc, unsigned long req, int want_state)
{
	check_rc(cname("audio.%s_returns", name), want_rc, aio(req, 0));
	check_int(cname("audio.%s_play_state", name), want_state, st().play_state);
}

static void stored_values(void)
{
	unsigned int caps = 0;

	check_rc("audio.get_capabilities_returns", 0,
		 dev_ioctl(a, FFDVB_AUDIO_GET_CAPABILITIES, &caps));
	check_hex("audio.get_capabilities_fw_2621_lpcm_dts_ac3_mp1_mp2", 0x10F, caps);

	check_rc("audio.set_mute_1_returns", 0, aio(FFDVB_AUDIO_SET_MUTE, 1));
	check_int("audio.set_mute_1_stored", 1, st().mute_state);
	check_rc("audio.set_mute_0_returns", 0, aio(FFDVB_AUDIO_SET_MUTE, 0));
	check_int("audio.set_mute_0_stored", 0, st().mute_state);

	check_rc("audio.set_av_sync_0_returns", 0, aio(FFDVB_AUDIO_SET_AV_SYNC, 0));
	check_int("audio.set_av_sync_0_stored", 0, st().AV_sync_state);
	check_rc("audio.set_av_sync_1_returns", 0, aio(FFDVB_AUDIO_SET_AV_SYNC, 1));
	check_int("audio.set_av_sync_1_stored", 1, st().AV_sync_state);

	check_rc("audio.set_bypass_mode_1_returns_fw_2621", 0, aio(FFDVB_AUDIO_SET_BYPASS_MODE, 1));
	check_int("audio.set_bypass_mode_1_stored", 1, st().bypass_mode);
	aio(FFDVB_AUDIO_SET_BYPASS_MODE, 0);
	check_int("audio.set_bypass_mode_0_stored", 0, st().bypass_mode);

	for (int c = 0; c <= 2; c++) {
		check_rc(cname("audio.channel_select_%d_returns", c), 0,
			 aio(FFDVB_AUDIO_CHANNEL_SELECT, (unsigned long)c));
		check_int(cname("audio.channel_select_%d_stored", c), c, st().channel_select);
	}
	check_rc("audio.channel_select_3_mono_einval", -EINVAL,
		 aio(FFDVB_AUDIO_CHANNEL_SELECT, FFDVB_AUDIO_MONO));
	check_int("audio.quirk_channel_select_3_stored_despite_einval", FFDVB_AUDIO_MONO,
		  st().channel_select);
	check_rc("audio.channel_select_4_stereo_swapped_einval", -EINVAL,
		 aio(FFDVB_AUDIO_CHANNEL_SELECT, FFDVB_AUDIO_STEREO_SWAPPED));
	check_int("audio.quirk_channel_select_4_stored_despite_einval", FFDVB_AUDIO_STEREO_SWAPPED,
		  st().channel_select);
	aio(FFDVB_AUDIO_CHANNEL_SELECT, FFDVB_AUDIO_STEREO);

	check_rc("audio.select_source_memory_returns", 0,
		 aio(FFDVB_AUDIO_SELECT_SOURCE, FFDVB_AUDIO_SOURCE_MEMORY));
	check_int("audio.select_source_memory_stored", FFDVB_AUDIO_SOURCE_MEMORY,
		  st().stream_source);
	check_rc("audio.select_source_5_unchecked_returns_0", 0, aio(FFDVB_AUDIO_SELECT_SOURCE, 5));
	check_int("audio.select_source_5_stored_as_is", 5, st().stream_source);
	uint8_t pes[2048];

	make_pes(pes, sizeof pes, 0xC0);
	check_rc("audio.write_with_source_5_eperm", -EPERM, dev_write(a, pes, sizeof pes));
	aio(FFDVB_AUDIO_SELECT_SOURCE, FFDVB_AUDIO_SOURCE_DEMUX);
	check_rc("audio.write_with_source_demux_eperm", -EPERM, dev_write(a, pes, sizeof pes));

	struct ffdvb_audio_mixer mix = { .volume_left = 100, .volume_right = 200 };

	check_rc("audio.set_mixer_returns", 0, dev_ioctl(a, FFDVB_AUDIO_SET_MIXER, &mix));
	struct ffdvb_audio_status s = st();

	check("audio.get_status_mixer_state_always_zero",
	      !s.mixer_state.volume_left && !s.mixer_state.volume_right, "{0,0}", "{%u,%u}",
	      s.mixer_state.volume_left, s.mixer_state.volume_right);
	mix.volume_left = mix.volume_right = 255;
	dev_ioctl(a, FFDVB_AUDIO_SET_MIXER, &mix);

	check_rc("audio.set_id_noop_returns_0", 0, aio(FFDVB_AUDIO_SET_ID, 0xC1));
	check_rc("audio.set_streamtype_noop_returns_0", 0, aio(FFDVB_AUDIO_SET_STREAMTYPE, 3));
}

static void states(void)
{
	aio(FFDVB_AUDIO_SELECT_SOURCE, FFDVB_AUDIO_SOURCE_DEMUX);
	play_state("demux.stop", 0, FFDVB_AUDIO_STOP, FFDVB_AUDIO_STOPPED);
	play_state("demux.continue_from_stopped_does_nothing", 0, FFDVB_AUDIO_CONTINUE,
		   FFDVB_AUDIO_STOPPED);
	play_state("demux.play", 0, FFDVB_AUDIO_PLAY, FFDVB_AUDIO_PLAYING);
	play_state("demux.pause", 0, FFDVB_AUDIO_PAUSE, FFDVB_AUDIO_PAUSED);
	play_state("demux.clear_buffer_while_paused", 0, FFDVB_AUDIO_CLEAR_BUFFER,
		   FFDVB_AUDIO_PAUSED);
	play_state("demux.continue_from_paused", 0, FFDVB_AUDIO_CONTINUE, FFDVB_AUDIO_PLAYING);
	play_state("demux.continue_while_playing", 0, FFDVB_AUDIO_CONTINUE, FFDVB_AUDIO_PLAYING);

	/* mute_state is only changed by AUDIO_SET_MUTE */
	aio(FFDVB_AUDIO_SET_MUTE, 1);
	aio(FFDVB_AUDIO_STOP, 0);
	aio(FFDVB_AUDIO_PLAY, 0);
	check_int("audio.play_does_not_change_reported_mute_state", 1, st().mute_state);
	aio(FFDVB_AUDIO_PAUSE, 0);
	aio(FFDVB_AUDIO_CONTINUE, 0);
	check_int("audio.continue_does_not_change_reported_mute_state", 1, st().mute_state);
	aio(FFDVB_AUDIO_SET_MUTE, 0);
	aio(FFDVB_AUDIO_PAUSE, 0);
	check_int("audio.pause_does_not_change_reported_mute_state", 0, st().mute_state);
	aio(FFDVB_AUDIO_STOP, 0);
	check_int("audio.demux_stop_does_not_change_reported_mute_state", 0, st().mute_state);

	aio(FFDVB_AUDIO_SELECT_SOURCE, FFDVB_AUDIO_SOURCE_MEMORY);
	play_state("memory.play", 0, FFDVB_AUDIO_PLAY, FFDVB_AUDIO_PLAYING);
	play_state("memory.play_twice_ebusy", -EBUSY, FFDVB_AUDIO_PLAY, FFDVB_AUDIO_PLAYING);
	play_state("memory.pause", 0, FFDVB_AUDIO_PAUSE, FFDVB_AUDIO_PAUSED);
	play_state("memory.continue", 0, FFDVB_AUDIO_CONTINUE, FFDVB_AUDIO_PLAYING);
	play_state("memory.clear_buffer", 0, FFDVB_AUDIO_CLEAR_BUFFER, FFDVB_AUDIO_PLAYING);
	play_state("memory.stop", 0, FFDVB_AUDIO_STOP, FFDVB_AUDIO_STOPPED);
	play_state("memory.play_after_stop_not_ebusy", 0, FFDVB_AUDIO_PLAY, FFDVB_AUDIO_PLAYING);
	aio(FFDVB_AUDIO_STOP, 0);
	aio(FFDVB_AUDIO_SELECT_SOURCE, FFDVB_AUDIO_SOURCE_DEMUX);
}

static void removed(void)
{
	static const struct {
		const char *name;
		unsigned long req;
	} t[] = {
		{ "AUDIO_SET_EXT_ID", FFDVB_AUDIO_SET_EXT_ID },
		{ "AUDIO_SET_ATTRIBUTES", FFDVB_AUDIO_SET_ATTRIBUTES },
		{ "AUDIO_SET_KARAOKE", FFDVB_AUDIO_SET_KARAOKE },
		{ "AUDIO_GET_PTS", FFDVB_AUDIO_GET_PTS },
		{ "AUDIO_BILINGUAL_CHANNEL_SELECT", FFDVB_AUDIO_BILINGUAL_CHANNEL_SELECT },
		{ "unknown_IO_o_99", _IO('o', 99) },
		{ "unknown_IOR_o_99_int", _IOR('o', 99, int) },
		{ "VIDEO_PLAY_number", FFDVB_VIDEO_PLAY },
		{ "VIDEO_GET_STATUS_number", FFDVB_VIDEO_GET_STATUS },
	};
	uint8_t *buf = calloc(1, 256);
	void *bad = bad_page();

	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		long r = _IOC_SIZE(t[i].req) ? dev_ioctl(a, t[i].req, buf)
					     : dev_ioctl_val(a, t[i].req, 0);

		check_rc(cname("audio.removed.%s_enotty", t[i].name), -ENOTTY, r);
		if (_IOC_SIZE(t[i].req))
			check_rc(cname("audio.removed.%s_unreadable_arg_efault", t[i].name),
				 -EFAULT, dev_ioctl(a, t[i].req, bad));
	}
	free(buf);
	static const struct {
		const char *name;
		unsigned long req;
	} sized[] = {
		{ "AUDIO_GET_STATUS", FFDVB_AUDIO_GET_STATUS },
		{ "AUDIO_GET_CAPABILITIES", FFDVB_AUDIO_GET_CAPABILITIES },
		{ "AUDIO_SET_MIXER", FFDVB_AUDIO_SET_MIXER },
	};
	for (size_t i = 0; i < ARRAY_SIZE(sized); i++) {
		check_rc(cname("audio.%s_null_arg_efault", sized[i].name), -EFAULT,
			 dev_ioctl(a, sized[i].req, NULL));
		check_rc(cname("audio.%s_unreadable_arg_efault", sized[i].name), -EFAULT,
			 dev_ioctl(a, sized[i].req, bad));
	}
}

void group_audio(void)
{
	a = dev_open("audio0", O_RDWR | O_NONBLOCK);
	check_rc("audio.open", 0, a < 0 ? a : 0);
	if (a < 0)
		return;
	stored_values();
	states();
	removed();
	dev_close(&a);
}
