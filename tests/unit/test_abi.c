/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Our ABI (include/ffdvb/abi.h) against the numbers of docs/av7110.md §1/§10 and,
 * where the system still ships them, the deprecated <linux/dvb/...> headers. */
#include <stddef.h>
#include <stdio.h>
#include <sys/ioctl.h>

#include "check.h"
#include "ffdvb/abi.h"

/* request numbers as the spec tables give them for x86_64 and i386 */
static void spec_numbers(void)
{
	static const struct { const char *name; unsigned long got, want; } t[] = {
		{ "VIDEO_STOP", FFDVB_VIDEO_STOP, 0x6F15 },
		{ "VIDEO_PLAY", FFDVB_VIDEO_PLAY, 0x6F16 },
		{ "VIDEO_GET_STATUS", FFDVB_VIDEO_GET_STATUS, 0x80146F1B },
		{ "VIDEO_GET_EVENT", FFDVB_VIDEO_GET_EVENT, 0x80206F1C },
		{ "VIDEO_GET_EVENT32", FFDVB_VIDEO_GET_EVENT32, 0x80146F1C },
		{ "VIDEO_STILLPICTURE", FFDVB_VIDEO_STILLPICTURE, 0x40106F1E },
		{ "VIDEO_STILLPICTURE32", FFDVB_VIDEO_STILLPICTURE32, 0x40086F1E },
		{ "VIDEO_GET_CAPABILITIES", FFDVB_VIDEO_GET_CAPABILITIES, 0x80046F21 },
		{ "VIDEO_CLEAR_BUFFER", FFDVB_VIDEO_CLEAR_BUFFER, 0x6F22 },
		{ "VIDEO_SET_FORMAT", FFDVB_VIDEO_SET_FORMAT, 0x6F25 },
		{ "VIDEO_SET_HIGHLIGHT", FFDVB_VIDEO_SET_HIGHLIGHT, 0x40106F27 },
		{ "VIDEO_SET_SPU", FFDVB_VIDEO_SET_SPU, 0x40086F32 },
		{ "VIDEO_SET_SPU_PALETTE", FFDVB_VIDEO_SET_SPU_PALETTE, 0x40106F33 },
		{ "VIDEO_SET_SPU_PALETTE32", FFDVB_VIDEO_SET_SPU_PALETTE32, 0x40086F33 },
		{ "VIDEO_GET_NAVI", FFDVB_VIDEO_GET_NAVI, 0x84046F34 },
		{ "VIDEO_GET_SIZE", FFDVB_VIDEO_GET_SIZE, 0x800C6F37 },
		{ "VIDEO_GET_PTS", FFDVB_VIDEO_GET_PTS, 0x80086F39 },
		{ "VIDEO_COMMAND", FFDVB_VIDEO_COMMAND, 0xC0486F3B },
		{ "VIDEO_TRY_COMMAND", FFDVB_VIDEO_TRY_COMMAND, 0xC0486F3C },
		{ "AUDIO_STOP", FFDVB_AUDIO_STOP, 0x6F01 },
		{ "AUDIO_GET_STATUS", FFDVB_AUDIO_GET_STATUS, 0x80206F0A },
		{ "AUDIO_GET_CAPABILITIES", FFDVB_AUDIO_GET_CAPABILITIES, 0x80046F0B },
		{ "AUDIO_SET_MIXER", FFDVB_AUDIO_SET_MIXER, 0x40086F0E },
		{ "AUDIO_SET_ATTRIBUTES", FFDVB_AUDIO_SET_ATTRIBUTES, 0x40026F11 },
		{ "AUDIO_SET_KARAOKE", FFDVB_AUDIO_SET_KARAOKE, 0x400C6F12 },
		{ "AUDIO_GET_PTS", FFDVB_AUDIO_GET_PTS, 0x80086F13 },
		{ "AUDIO_BILINGUAL_CHANNEL_SELECT", FFDVB_AUDIO_BILINGUAL_CHANNEL_SELECT, 0x6F14 },
		{ "OSD_SEND_CMD", FFDVB_OSD_SEND_CMD, 0x40206FA0 },
		{ "OSD_SEND_CMD32", FFDVB_OSD_SEND_CMD32, 0x401C6FA0 },
		{ "OSD_GET_CAPABILITY", FFDVB_OSD_GET_CAPABILITY, 0x80106FA1 },
		{ "OSD_GET_CAPABILITY32", FFDVB_OSD_GET_CAPABILITY32, 0x80086FA1 },
		{ "DMX_START", FFDVB_DMX_START, 0x6F29 },
		{ "DMX_SET_FILTER", FFDVB_DMX_SET_FILTER, 0x403C6F2B },
		{ "DMX_SET_PES_FILTER", FFDVB_DMX_SET_PES_FILTER, 0x40146F2C },
		{ "DMX_GET_PES_PIDS", FFDVB_DMX_GET_PES_PIDS, 0x800A6F2F },
		{ "DMX_GET_STC", FFDVB_DMX_GET_STC, 0xC0106F32 },
		{ "DMX_ADD_PID", FFDVB_DMX_ADD_PID, 0x40026F33 },
		{ "DMX_REMOVE_PID", FFDVB_DMX_REMOVE_PID, 0x40026F34 },
		{ "FE_SET_PROPERTY32", FFDVB_FE_SET_PROPERTY32, 0x40086F52 },
		{ "FE_GET_PROPERTY32", FFDVB_FE_GET_PROPERTY32, 0x80086F53 },
	};
#if __SIZEOF_POINTER__ == 8
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
		EXPECT_EQ(t[i].name, t[i].got, t[i].want);
#else
	/* a 32-bit build issues the i386 numbers through the plain macros */
	(void)t;
	EXPECT_EQ("VIDEO_GET_EVENT is the 32-bit one", FFDVB_VIDEO_GET_EVENT, 0x80146F1C);
	EXPECT_EQ("VIDEO_STILLPICTURE is the 32-bit one", FFDVB_VIDEO_STILLPICTURE, 0x40086F1E);
	EXPECT_EQ("OSD_SEND_CMD is the 32-bit one", FFDVB_OSD_SEND_CMD, 0x401C6FA0);
	EXPECT_EQ("OSD_GET_CAPABILITY is the 32-bit one", FFDVB_OSD_GET_CAPABILITY, 0x80086FA1);
#endif
	EXPECT_EQ("sizeof dtv_property32", sizeof(struct ffdvb_dtv_property32), 72);
	EXPECT_EQ("sizeof osd_cmd32", sizeof(struct ffdvb_osd_cmd32), 28);
	EXPECT_EQ("sizeof video_event32", sizeof(struct ffdvb_video_event32), 20);
	EXPECT_EQ("offsetof video_event32.u", offsetof(struct ffdvb_video_event32, u), 8);
}

#if __has_include(<linux/dvb/video.h>) && __has_include(<linux/dvb/audio.h>) && \
	__has_include(<linux/dvb/osd.h>) && __has_include(<linux/dvb/dmx.h>)
#define HAVE_SYSTEM_HEADERS 1
#include <linux/dvb/audio.h>
#include <linux/dvb/dmx.h>
#include <linux/dvb/frontend.h>
#include <linux/dvb/osd.h>
#include <linux/dvb/video.h>

#define SAME_NUMBER(n) EXPECT_EQ(#n, FFDVB_##n, n)
#define SAME_SIZE(ours, theirs) EXPECT_EQ("sizeof " #theirs, sizeof(ours), sizeof(theirs))
#define SAME_OFFSET(ours, theirs, field) \
	EXPECT_EQ("offsetof " #theirs "." #field, offsetof(ours, field), offsetof(theirs, field))

static void system_headers(void)
{
	SAME_NUMBER(VIDEO_STOP); SAME_NUMBER(VIDEO_PLAY); SAME_NUMBER(VIDEO_FREEZE);
	SAME_NUMBER(VIDEO_CONTINUE); SAME_NUMBER(VIDEO_SELECT_SOURCE); SAME_NUMBER(VIDEO_SET_BLANK);
	SAME_NUMBER(VIDEO_GET_STATUS); SAME_NUMBER(VIDEO_GET_EVENT);
	SAME_NUMBER(VIDEO_SET_DISPLAY_FORMAT); SAME_NUMBER(VIDEO_STILLPICTURE);
	SAME_NUMBER(VIDEO_FAST_FORWARD); SAME_NUMBER(VIDEO_SLOWMOTION);
	SAME_NUMBER(VIDEO_GET_CAPABILITIES); SAME_NUMBER(VIDEO_CLEAR_BUFFER);
	SAME_NUMBER(VIDEO_SET_STREAMTYPE); SAME_NUMBER(VIDEO_SET_FORMAT); SAME_NUMBER(VIDEO_GET_SIZE);
	SAME_NUMBER(VIDEO_GET_PTS); SAME_NUMBER(VIDEO_GET_FRAME_COUNT); SAME_NUMBER(VIDEO_COMMAND);
	SAME_NUMBER(VIDEO_TRY_COMMAND);
	SAME_NUMBER(AUDIO_STOP); SAME_NUMBER(AUDIO_PLAY); SAME_NUMBER(AUDIO_PAUSE);
	SAME_NUMBER(AUDIO_CONTINUE); SAME_NUMBER(AUDIO_SELECT_SOURCE); SAME_NUMBER(AUDIO_SET_MUTE);
	SAME_NUMBER(AUDIO_SET_AV_SYNC); SAME_NUMBER(AUDIO_SET_BYPASS_MODE);
	SAME_NUMBER(AUDIO_CHANNEL_SELECT); SAME_NUMBER(AUDIO_GET_STATUS);
	SAME_NUMBER(AUDIO_GET_CAPABILITIES); SAME_NUMBER(AUDIO_CLEAR_BUFFER); SAME_NUMBER(AUDIO_SET_ID);
	SAME_NUMBER(AUDIO_SET_MIXER); SAME_NUMBER(AUDIO_SET_STREAMTYPE);
	SAME_NUMBER(AUDIO_BILINGUAL_CHANNEL_SELECT);
	SAME_NUMBER(OSD_SEND_CMD); SAME_NUMBER(OSD_GET_CAPABILITY);
	SAME_NUMBER(DMX_START); SAME_NUMBER(DMX_STOP); SAME_NUMBER(DMX_SET_FILTER);
	SAME_NUMBER(DMX_SET_PES_FILTER); SAME_NUMBER(DMX_SET_BUFFER_SIZE);
	SAME_NUMBER(DMX_GET_PES_PIDS); SAME_NUMBER(DMX_GET_STC); SAME_NUMBER(DMX_ADD_PID);
	SAME_NUMBER(DMX_REMOVE_PID);

	SAME_SIZE(struct ffdvb_video_status, struct video_status);
	SAME_OFFSET(struct ffdvb_video_status, struct video_status, display_format);
	SAME_SIZE(struct ffdvb_video_size, video_size_t);
	SAME_SIZE(struct ffdvb_video_event, struct video_event);
	SAME_OFFSET(struct ffdvb_video_event, struct video_event, timestamp);
	SAME_OFFSET(struct ffdvb_video_event, struct video_event, u);
	SAME_SIZE(struct ffdvb_video_still_picture, struct video_still_picture);
	SAME_OFFSET(struct ffdvb_video_still_picture, struct video_still_picture, size);
	SAME_SIZE(struct ffdvb_video_command, struct video_command);
	SAME_SIZE(struct ffdvb_audio_status, audio_status_t);
	SAME_OFFSET(struct ffdvb_audio_status, audio_status_t, bypass_mode);
	SAME_OFFSET(struct ffdvb_audio_status, audio_status_t, mixer_state);
	SAME_SIZE(struct ffdvb_audio_mixer, audio_mixer_t);
	SAME_SIZE(struct ffdvb_osd_cmd, osd_cmd_t);
	SAME_OFFSET(struct ffdvb_osd_cmd, osd_cmd_t, color);
	SAME_OFFSET(struct ffdvb_osd_cmd, osd_cmd_t, data);
	SAME_SIZE(struct ffdvb_osd_cap, osd_cap_t);
	SAME_OFFSET(struct ffdvb_osd_cap, osd_cap_t, val);
	SAME_SIZE(struct ffdvb_dmx_pes_filter_params, struct dmx_pes_filter_params);
	SAME_OFFSET(struct ffdvb_dmx_pes_filter_params, struct dmx_pes_filter_params, pes_type);
	SAME_SIZE(struct ffdvb_dmx_sct_filter_params, struct dmx_sct_filter_params);
	SAME_OFFSET(struct ffdvb_dmx_sct_filter_params, struct dmx_sct_filter_params, timeout);
	SAME_SIZE(struct ffdvb_dmx_stc, struct dmx_stc);
	SAME_OFFSET(struct ffdvb_dmx_stc, struct dmx_stc, stc);

	EXPECT_EQ("OSD_OpenRaw", FFDVB_OSD_OpenRaw, OSD_OpenRaw);
	EXPECT_EQ("OSD_Text", FFDVB_OSD_Text, OSD_Text);
	EXPECT_EQ("DMX_PES_OTHER", FFDVB_DMX_PES_OTHER, DMX_PES_OTHER);
	EXPECT_EQ("VIDEO_CENTER_CUT_OUT", FFDVB_VIDEO_CENTER_CUT_OUT, VIDEO_CENTER_CUT_OUT);
	EXPECT_EQ("AUDIO_STEREO_SWAPPED", FFDVB_AUDIO_STEREO_SWAPPED, AUDIO_STEREO_SWAPPED);
	/* the 32-bit dtv_property is the native one minus the 4 extra pointer bytes */
	EXPECT_EQ("dtv_property32 vs native",
		  sizeof(struct ffdvb_dtv_property32) + sizeof(void *) - 4, sizeof(struct dtv_property));
}
#endif

int main(void)
{
	spec_numbers();
#ifdef HAVE_SYSTEM_HEADERS
	system_headers();
	printf("compared with the system's linux/dvb headers\n");
#else
	printf("NOTE: <linux/dvb/video.h> and friends not installed: compared with the spec only\n");
#endif
	printf("%d passed, %d failed\n", checks - failures, failures);
	return failures != 0;
}
