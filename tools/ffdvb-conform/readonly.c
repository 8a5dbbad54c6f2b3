/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Spec §1 (RO rule) and §10.3: on a video0 fd opened O_RDONLY every ioctl except
 * VIDEO_GET_STATUS, VIDEO_GET_EVENT and VIDEO_GET_SIZE fails with EPERM, unknown ones
 * included; only dvb-core's copy of a sized argument (EFAULT) comes first. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "conform.h"

/* implemented video ioctls and other nodes' numbers; video_unimplemented is denied too */
static const struct named_request ro_denied[] = {
	{ "VIDEO_STOP", FFDVB_VIDEO_STOP },
	{ "VIDEO_PLAY", FFDVB_VIDEO_PLAY },
	{ "VIDEO_FREEZE", FFDVB_VIDEO_FREEZE },
	{ "VIDEO_CONTINUE", FFDVB_VIDEO_CONTINUE },
	{ "VIDEO_SELECT_SOURCE", FFDVB_VIDEO_SELECT_SOURCE },
	{ "VIDEO_SET_BLANK", FFDVB_VIDEO_SET_BLANK },
	{ "VIDEO_SET_DISPLAY_FORMAT", FFDVB_VIDEO_SET_DISPLAY_FORMAT },
	{ "VIDEO_STILLPICTURE", FFDVB_VIDEO_STILLPICTURE },
	{ "VIDEO_FAST_FORWARD", FFDVB_VIDEO_FAST_FORWARD },
	{ "VIDEO_SLOWMOTION", FFDVB_VIDEO_SLOWMOTION },
	{ "VIDEO_GET_CAPABILITIES", FFDVB_VIDEO_GET_CAPABILITIES },
	{ "VIDEO_CLEAR_BUFFER", FFDVB_VIDEO_CLEAR_BUFFER },
	{ "VIDEO_SET_STREAMTYPE", FFDVB_VIDEO_SET_STREAMTYPE },
	{ "VIDEO_SET_FORMAT", FFDVB_VIDEO_SET_FORMAT },
	{ "AUDIO_PLAY_number", FFDVB_AUDIO_PLAY },
	{ "AUDIO_GET_STATUS_number", FFDVB_AUDIO_GET_STATUS },
	{ "OSD_SEND_CMD_number", FFDVB_OSD_SEND_CMD },
};

void group_readonly(void)
{
	struct ffdvb_video_status before, after;
	struct ffdvb_video_still_picture still = { .iFrame = NULL, .size = 0 };
	uint8_t *buf = calloc(1, 2048);
	int ro = dev_open("video0", O_RDONLY | O_NONBLOCK);

	check_rc("readonly.open", 0, ro < 0 ? ro : 0);
	if (ro < 0) {
		free(buf);
		return;
	}
	video_status(ro, &before);
	for (size_t i = 0; i < ARRAY_SIZE(ro_denied) + video_unimplemented_count; i++) {
		const struct named_request *t = i < ARRAY_SIZE(ro_denied)
			? &ro_denied[i] : &video_unimplemented[i - ARRAY_SIZE(ro_denied)];
		unsigned long req = t->req;
		long r;

		memset(buf, 0, 2048);
		if (req == FFDVB_VIDEO_STILLPICTURE)
			r = dev_ioctl(ro, req, &still); /* size 0: harmless if wrongly executed */
		else if (_IOC_SIZE(req))
			r = dev_ioctl(ro, req, buf);
		else
			r = dev_ioctl_val(ro, req, 1);
		check_rc(cname("readonly.%s_eperm", t->name), -EPERM, r);
	}
	video_status(ro, &after);
	check("readonly.denied_ioctls_changed_nothing", !memcmp(&before, &after, sizeof before),
	      "same video status", "%s",
	      memcmp(&before, &after, sizeof before) ? "a different status" : "same status");

	struct ffdvb_video_status vs;
	struct ffdvb_video_size sz;
	struct ffdvb_video_event ev;

	check_rc("readonly.VIDEO_GET_STATUS_allowed", 0, video_status(ro, &vs));
	check_rc("readonly.VIDEO_GET_SIZE_allowed", 0, dev_ioctl(ro, FFDVB_VIDEO_GET_SIZE, &sz));
	/* the queue is empty (a writer open empties it): allowed, so EWOULDBLOCK not EPERM */
	int w = dev_open("video0", O_RDWR | O_NONBLOCK);

	dev_close(&w);
	check_rc("readonly.VIDEO_GET_EVENT_allowed_empty_ewouldblock", -EWOULDBLOCK,
		 dev_ioctl(ro, FFDVB_VIDEO_GET_EVENT, &ev));

	/* dvb-core copies a sized argument in before anything else */
	void *bad = bad_page();
	static const struct {
		const char *name;
		unsigned long req;
	} sized[] = {
		{ "VIDEO_GET_STATUS", FFDVB_VIDEO_GET_STATUS },
		{ "VIDEO_GET_SIZE", FFDVB_VIDEO_GET_SIZE },
		{ "VIDEO_GET_EVENT", FFDVB_VIDEO_GET_EVENT },
		{ "VIDEO_GET_CAPABILITIES", FFDVB_VIDEO_GET_CAPABILITIES },
		{ "VIDEO_STILLPICTURE", FFDVB_VIDEO_STILLPICTURE },
		{ "VIDEO_GET_PTS", FFDVB_VIDEO_GET_PTS },
		{ "VIDEO_COMMAND", FFDVB_VIDEO_COMMAND },
		{ "unknown_IOR_o_99_int", _IOR('o', 99, int) },
	};
	for (size_t i = 0; i < ARRAY_SIZE(sized); i++)
		check_rc(cname("readonly.%s_unreadable_arg_efault", sized[i].name),
			 -EFAULT, dev_ioctl(ro, sized[i].req, bad));
	dev_close(&ro);
	free(buf);
}
