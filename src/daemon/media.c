/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Screenshot, record and decoder statistics over the control socket (media.h). */
#include "media.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ffdvb/card.h"
#include "ffdvb/decoder.h"
#include "ffdvb/osd.h"

static int write_record(struct ffdvb_decoder *dec, const char *dir)
{
	char log[512], pcm[512];

	if (!dec)
		return -ENODEV;
	snprintf(log, sizeof(log), "%s/pictures.log", dir);
	snprintf(pcm, sizeof(pcm), "%s/sound.s16", dir);
	return ffdvb_output_write_record(ffdvb_decoder_output(dec), log, pcm);
}

int ffdvbd_write_record(struct ffdvb_decoder *dec, const char *dir)
{
	return write_record(dec, dir);
}

/* the PNG is encoded in memory and goes straight into the answer: no file anywhere */
static int screenshot(struct ffdvb_decoder *dec, FILE *out)
{
	uint8_t *png;
	size_t len;
	int r = ffdvb_decoder_screenshot_png(dec, &png, &len);

	if (r == 0) {
		fwrite(png, 1, len, out);
		free(png);
	}
	return r;
}

/* "osd-window N": a header line "W H X Y VISIBLE BPP", then W * H ARGB words in host order */
static int osd_window(struct ffdvb_card *card, int win, FILE *out)
{
	struct ffdvb_osd_window_info info;
	uint32_t *argb = NULL;
	int r = ffdvb_card_osd_window(card, win, &info, &argb);

	if (r < 0) {
		fprintf(out, "error: OSD window %d: %s\n", win,
			r == -EINVAL ? "not open (or not 1..7)" : strerror(-r));
		return 1;
	}
	fprintf(out, "%d %d %d %d %d %d\n", info.w, info.h, info.x, info.y, info.visible, info.bpp);
	fwrite(argb, 4, (size_t)info.w * (size_t)info.h, out);
	free(argb);
	return 1;
}

int ffdvbd_media_command(struct ffdvb_card *card, struct ffdvb_decoder *dec,
			 const struct ffdvbd_command *cmd, FILE *out)
{
	if (cmd->cmd == FFDVBD_CMD_OSD_PLANE) { /* the OSD as the compositor gets it: ARGB words */
		uint32_t *plane = malloc((size_t)FFDVB_OSD_WIDTH * FFDVB_OSD_HEIGHT * 4);

		if (!plane) {
			fprintf(out, "error: out of memory\n");
			return 1;
		}
		ffdvb_card_osd_plane(card, plane);
		fwrite(plane, 4, (size_t)FFDVB_OSD_WIDTH * FFDVB_OSD_HEIGHT, out);
		free(plane);
		return 1;
	}
	if (cmd->cmd == FFDVBD_CMD_OSD_WINDOW)
		return osd_window(card, cmd->window, out);
	if (cmd->cmd != FFDVBD_CMD_DECODER)
		return 0;
	if (!dec) {
		fprintf(out, "error: no decoder (ffdvbd runs with --no-decode)\n");
	} else {
		struct ffdvb_decoder_stats s;

		ffdvb_decoder_get_stats(dec, &s);
		fprintf(out, "video %s %dx%d decoded %llu shown %llu dropped %llu; audio %s decoded "
			"%llu samples %llu; bad_pes %llu errors %llu idle %d\n",
			s.video_codec, s.width, s.height, (unsigned long long)s.video_frames_decoded,
			(unsigned long long)s.video_frames_shown,
			(unsigned long long)s.video_frames_dropped, s.audio_codec,
			(unsigned long long)s.audio_frames_decoded,
			(unsigned long long)s.audio_samples_played, (unsigned long long)s.bad_pes,
			(unsigned long long)s.decode_errors, s.idle);
	}
	return 1;
}

void ffdvbd_media_slow(struct ffdvb_decoder *dec, const char *record_dir, enum ffdvbd_cmd cmd,
		       FILE *out)
{
	int r;

	if (!dec) {
		fprintf(out, "error: no decoder (ffdvbd runs with --no-decode)\n");
	} else if (cmd == FFDVBD_CMD_SCREENSHOT) {
		r = screenshot(dec, out);
		if (r < 0)
			fprintf(out, "error: screenshot failed: %s\n", strerror(-r));
	} else if (!record_dir || !*record_dir) {
		fprintf(out, "error: ffdvbd runs without --record DIR\n");
	} else if ((r = write_record(dec, record_dir)) < 0) {
		fprintf(out, "error: writing the record failed: %s\n", strerror(-r));
	} else {
		fprintf(out, "ok %s\n", record_dir);
	}
}
