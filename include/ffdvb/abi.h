/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ffdvb ABI: our own copy of the full-featured DVB decoder interface (video0, audio0, osd0 and
 * the demux calls that feed the decoder), request numbers, structs and constants, for 64-bit
 * and 32-bit callers. Layouts follow docs/av7110.md §10; the project never needs
 * the deprecated <linux/dvb/video.h>, audio.h or osd.h. The frontend ABI is the current uapi
 * <linux/dvb/frontend.h>; only its 32-bit layouts are defined here. */
#ifndef FFDVB_ABI_H
#define FFDVB_ABI_H

#include <stdint.h>
#include <sys/ioctl.h>

/* ---- video0 ------------------------------------------------------------------------------ */

enum { FFDVB_VIDEO_FORMAT_4_3 = 0, FFDVB_VIDEO_FORMAT_16_9 = 1, FFDVB_VIDEO_FORMAT_221_1 = 2 };
enum { FFDVB_VIDEO_PAN_SCAN = 0, FFDVB_VIDEO_LETTER_BOX = 1, FFDVB_VIDEO_CENTER_CUT_OUT = 2 };
enum { FFDVB_VIDEO_SOURCE_DEMUX = 0, FFDVB_VIDEO_SOURCE_MEMORY = 1 };
enum { FFDVB_VIDEO_STOPPED = 0, FFDVB_VIDEO_PLAYING = 1, FFDVB_VIDEO_FREEZED = 2 };

#define FFDVB_VIDEO_EVENT_SIZE_CHANGED 1

#define FFDVB_VIDEO_CAP_MPEG1 1
#define FFDVB_VIDEO_CAP_MPEG2 2
#define FFDVB_VIDEO_CAP_SYS 4
#define FFDVB_VIDEO_CAP_PROG 8

struct ffdvb_video_status {
	int32_t video_blank;
	int32_t play_state;
	int32_t stream_source;
	int32_t video_format;
	int32_t display_format;
};

struct ffdvb_video_size {
	int32_t w;
	int32_t h;
	int32_t aspect_ratio;
};

struct ffdvb_video_event {
	int32_t type;
	long timestamp; /* never filled by av7110; we report 0 */
	union {
		struct ffdvb_video_size size;
		unsigned int frame_rate;
		unsigned char vsync_field;
	} u;
};

struct ffdvb_video_event32 { /* i386 layout: long is 4 bytes */
	int32_t type;
	int32_t timestamp;
	union {
		struct ffdvb_video_size size;
		uint32_t frame_rate;
		unsigned char vsync_field;
	} u;
};

struct ffdvb_video_still_picture {
	char *iFrame;
	int32_t size;
};

struct ffdvb_video_still_picture32 {
	uint32_t iFrame;
	int32_t size;
};

/* the removed ioctls still need their sizes: dvb-core copies their argument before saying ENOTTY */
struct ffdvb_video_highlight { unsigned char raw[16]; };
struct ffdvb_video_spu { int32_t active; int32_t stream_id; };
struct ffdvb_video_spu_palette { int32_t length; uint8_t *palette; };
struct ffdvb_video_navi_pack { int32_t length; uint8_t data[1024]; };
struct ffdvb_video_command { uint32_t cmd; uint32_t flags; uint32_t raw[16]; };

#define FFDVB_VIDEO_STOP               _IO('o', 21)
#define FFDVB_VIDEO_PLAY               _IO('o', 22)
#define FFDVB_VIDEO_FREEZE             _IO('o', 23)
#define FFDVB_VIDEO_CONTINUE           _IO('o', 24)
#define FFDVB_VIDEO_SELECT_SOURCE      _IO('o', 25)
#define FFDVB_VIDEO_SET_BLANK          _IO('o', 26)
#define FFDVB_VIDEO_GET_STATUS         _IOR('o', 27, struct ffdvb_video_status)
#define FFDVB_VIDEO_GET_EVENT          _IOR('o', 28, struct ffdvb_video_event)
#define FFDVB_VIDEO_SET_DISPLAY_FORMAT _IO('o', 29)
#define FFDVB_VIDEO_STILLPICTURE       _IOW('o', 30, struct ffdvb_video_still_picture)
#define FFDVB_VIDEO_FAST_FORWARD       _IO('o', 31)
#define FFDVB_VIDEO_SLOWMOTION         _IO('o', 32)
#define FFDVB_VIDEO_GET_CAPABILITIES   _IOR('o', 33, unsigned int)
#define FFDVB_VIDEO_CLEAR_BUFFER       _IO('o', 34)
#define FFDVB_VIDEO_SET_ID             _IO('o', 35) /* removed: ENOTTY */
#define FFDVB_VIDEO_SET_STREAMTYPE     _IO('o', 36)
#define FFDVB_VIDEO_SET_FORMAT         _IO('o', 37)
#define FFDVB_VIDEO_SET_SYSTEM         _IO('o', 38) /* removed */
#define FFDVB_VIDEO_SET_HIGHLIGHT      _IOW('o', 39, struct ffdvb_video_highlight) /* removed */
#define FFDVB_VIDEO_SET_SPU            _IOW('o', 50, struct ffdvb_video_spu) /* removed */
#define FFDVB_VIDEO_SET_SPU_PALETTE    _IOW('o', 51, struct ffdvb_video_spu_palette) /* removed */
#define FFDVB_VIDEO_GET_NAVI           _IOR('o', 52, struct ffdvb_video_navi_pack) /* removed */
#define FFDVB_VIDEO_SET_ATTRIBUTES     _IO('o', 53) /* removed */
#define FFDVB_VIDEO_GET_SIZE           _IOR('o', 55, struct ffdvb_video_size)
#define FFDVB_VIDEO_GET_FRAME_RATE     _IOR('o', 56, unsigned int) /* removed */
#define FFDVB_VIDEO_GET_PTS            _IOR('o', 57, uint64_t) /* not on av7110 */
#define FFDVB_VIDEO_GET_FRAME_COUNT    _IOR('o', 58, uint64_t) /* not on av7110 */
#define FFDVB_VIDEO_COMMAND            _IOWR('o', 59, struct ffdvb_video_command)
#define FFDVB_VIDEO_TRY_COMMAND        _IOWR('o', 60, struct ffdvb_video_command)

/* 32-bit callers (i386 layouts) where the number differs */
#define FFDVB_VIDEO_GET_EVENT32        _IOR('o', 28, struct ffdvb_video_event32)
#define FFDVB_VIDEO_STILLPICTURE32     _IOW('o', 30, struct ffdvb_video_still_picture32)
#define FFDVB_VIDEO_SET_SPU_PALETTE32  _IOC(_IOC_WRITE, 'o', 51, 8)

/* ---- audio0 ------------------------------------------------------------------------------ */

enum { FFDVB_AUDIO_SOURCE_DEMUX = 0, FFDVB_AUDIO_SOURCE_MEMORY = 1 };
enum { FFDVB_AUDIO_STOPPED = 0, FFDVB_AUDIO_PLAYING = 1, FFDVB_AUDIO_PAUSED = 2 };
enum {
	FFDVB_AUDIO_STEREO = 0, FFDVB_AUDIO_MONO_LEFT = 1, FFDVB_AUDIO_MONO_RIGHT = 2,
	FFDVB_AUDIO_MONO = 3, FFDVB_AUDIO_STEREO_SWAPPED = 4
};

#define FFDVB_AUDIO_CAP_DTS 1
#define FFDVB_AUDIO_CAP_LPCM 2
#define FFDVB_AUDIO_CAP_MP1 4
#define FFDVB_AUDIO_CAP_MP2 8
#define FFDVB_AUDIO_CAP_AC3 256

struct ffdvb_audio_mixer {
	uint32_t volume_left;
	uint32_t volume_right;
};

struct ffdvb_audio_status {
	int32_t AV_sync_state;
	int32_t mute_state;
	int32_t play_state;
	int32_t stream_source;
	int32_t channel_select;
	int32_t bypass_mode;
	struct ffdvb_audio_mixer mixer_state;
};

struct ffdvb_audio_karaoke { int32_t vocal1, vocal2, melody; };

#define FFDVB_AUDIO_STOP               _IO('o', 1)
#define FFDVB_AUDIO_PLAY               _IO('o', 2)
#define FFDVB_AUDIO_PAUSE              _IO('o', 3)
#define FFDVB_AUDIO_CONTINUE           _IO('o', 4)
#define FFDVB_AUDIO_SELECT_SOURCE      _IO('o', 5)
#define FFDVB_AUDIO_SET_MUTE           _IO('o', 6)
#define FFDVB_AUDIO_SET_AV_SYNC        _IO('o', 7)
#define FFDVB_AUDIO_SET_BYPASS_MODE    _IO('o', 8)
#define FFDVB_AUDIO_CHANNEL_SELECT     _IO('o', 9)
#define FFDVB_AUDIO_GET_STATUS         _IOR('o', 10, struct ffdvb_audio_status)
#define FFDVB_AUDIO_GET_CAPABILITIES   _IOR('o', 11, unsigned int)
#define FFDVB_AUDIO_CLEAR_BUFFER       _IO('o', 12)
#define FFDVB_AUDIO_SET_ID             _IO('o', 13)
#define FFDVB_AUDIO_SET_MIXER          _IOW('o', 14, struct ffdvb_audio_mixer)
#define FFDVB_AUDIO_SET_STREAMTYPE     _IO('o', 15)
#define FFDVB_AUDIO_SET_EXT_ID         _IO('o', 16) /* removed */
#define FFDVB_AUDIO_SET_ATTRIBUTES     _IOW('o', 17, uint16_t) /* removed */
#define FFDVB_AUDIO_SET_KARAOKE        _IOW('o', 18, struct ffdvb_audio_karaoke) /* removed */
#define FFDVB_AUDIO_GET_PTS            _IOR('o', 19, uint64_t) /* not on av7110 */
#define FFDVB_AUDIO_BILINGUAL_CHANNEL_SELECT _IO('o', 20) /* not on av7110 */

/* ---- osd0 -------------------------------------------------------------------------------- */

enum {
	FFDVB_OSD_Close = 1, FFDVB_OSD_Open, FFDVB_OSD_Show, FFDVB_OSD_Hide, FFDVB_OSD_Clear,
	FFDVB_OSD_Fill, FFDVB_OSD_SetColor, FFDVB_OSD_SetPalette, FFDVB_OSD_SetTrans,
	FFDVB_OSD_SetPixel, FFDVB_OSD_GetPixel, FFDVB_OSD_SetRow, FFDVB_OSD_SetBlock,
	FFDVB_OSD_FillRow, FFDVB_OSD_FillBlock, FFDVB_OSD_Line, FFDVB_OSD_Query, FFDVB_OSD_Test,
	FFDVB_OSD_Text, FFDVB_OSD_SetWindow, FFDVB_OSD_MoveWindow, FFDVB_OSD_OpenRaw
};

#define FFDVB_OSD_CAP_MEMSIZE 1
#define FFDVB_OSD_TEXT_MAX 240 /* bytes the driver reads of an OSD_Text string */

struct ffdvb_osd_cmd {
	int32_t cmd;
	int32_t x0, y0, x1, y1;
	int32_t color;
	void *data;
};

struct ffdvb_osd_cmd32 {
	int32_t cmd;
	int32_t x0, y0, x1, y1;
	int32_t color;
	uint32_t data;
};

struct ffdvb_osd_cap {
	int32_t cmd;
	long val;
};

struct ffdvb_osd_cap32 {
	int32_t cmd;
	int32_t val;
};

#define FFDVB_OSD_SEND_CMD             _IOW('o', 160, struct ffdvb_osd_cmd)
#define FFDVB_OSD_GET_CAPABILITY       _IOR('o', 161, struct ffdvb_osd_cap)
#define FFDVB_OSD_SEND_CMD32           _IOW('o', 160, struct ffdvb_osd_cmd32)
#define FFDVB_OSD_GET_CAPABILITY32     _IOR('o', 161, struct ffdvb_osd_cap32)

/* ---- demux0 (what the decoder path needs) ------------------------------------------------- */

enum { FFDVB_DMX_IN_FRONTEND = 0, FFDVB_DMX_IN_DVR = 1 };
enum {
	FFDVB_DMX_OUT_DECODER = 0, FFDVB_DMX_OUT_TAP = 1, FFDVB_DMX_OUT_TS_TAP = 2,
	FFDVB_DMX_OUT_TSDEMUX_TAP = 3
};
enum {
	FFDVB_DMX_PES_AUDIO0 = 0, FFDVB_DMX_PES_VIDEO0 = 1, FFDVB_DMX_PES_TELETEXT0 = 2,
	FFDVB_DMX_PES_SUBTITLE0 = 3, FFDVB_DMX_PES_PCR0 = 4, FFDVB_DMX_PES_OTHER = 20
};

#define FFDVB_DMX_CHECK_CRC 1
#define FFDVB_DMX_ONESHOT 2
#define FFDVB_DMX_IMMEDIATE_START 4
#define FFDVB_DMX_FILTER_SIZE 16

struct ffdvb_dmx_filter {
	uint8_t filter[FFDVB_DMX_FILTER_SIZE];
	uint8_t mask[FFDVB_DMX_FILTER_SIZE];
	uint8_t mode[FFDVB_DMX_FILTER_SIZE];
};

struct ffdvb_dmx_sct_filter_params {
	uint16_t pid;
	struct ffdvb_dmx_filter filter;
	uint32_t timeout;
	uint32_t flags;
};

struct ffdvb_dmx_pes_filter_params {
	uint16_t pid;
	int32_t input;
	int32_t output;
	int32_t pes_type;
	uint32_t flags;
};

struct ffdvb_dmx_stc {
	uint32_t num;
	uint32_t base;
	uint64_t stc;
};

#define FFDVB_DMX_START                _IO('o', 41)
#define FFDVB_DMX_STOP                 _IO('o', 42)
#define FFDVB_DMX_SET_FILTER           _IOW('o', 43, struct ffdvb_dmx_sct_filter_params)
#define FFDVB_DMX_SET_PES_FILTER       _IOW('o', 44, struct ffdvb_dmx_pes_filter_params)
#define FFDVB_DMX_SET_BUFFER_SIZE      _IO('o', 45)
#define FFDVB_DMX_GET_PES_PIDS         _IOR('o', 47, uint16_t[5])
#define FFDVB_DMX_GET_STC              _IOWR('o', 50, struct ffdvb_dmx_stc)
#define FFDVB_DMX_ADD_PID              _IOW('o', 51, uint16_t)
#define FFDVB_DMX_REMOVE_PID           _IOW('o', 52, uint16_t)

/* ---- frontend0: 32-bit layouts of <linux/dvb/frontend.h> --------------------------------- */

struct ffdvb_dtv_properties32 {
	uint32_t num;
	uint32_t props; /* struct ffdvb_dtv_property32 * */
};

/* struct dtv_property is packed; its u.buffer.reserved2 pointer makes it 76 bytes on 64-bit
 * and 72 on i386 */
struct __attribute__((packed)) ffdvb_dtv_property32 {
	uint32_t cmd;
	uint32_t reserved[3];
	union {
		uint32_t data;
		uint8_t st[37]; /* struct dtv_fe_stats */
		struct __attribute__((packed)) {
			uint8_t data[32];
			uint32_t len;
			uint32_t reserved1[3];
			uint32_t reserved2;
		} buffer;
	} u;
	int32_t result;
};

#define FFDVB_FE_SET_PROPERTY32        _IOW('o', 82, struct ffdvb_dtv_properties32)
#define FFDVB_FE_GET_PROPERTY32        _IOR('o', 83, struct ffdvb_dtv_properties32)

#endif
