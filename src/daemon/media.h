/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Control-socket commands about what is on screen (control.c hands them over; screenshot and
 * record on a worker thread, one at a time, "error: busy: ..." for a second one meanwhile):
 *   screenshot       -> the composited picture as PNG bytes (ffdvbctl writes the file with the
 *                       caller's own rights; the daemon writes nothing where a client says)
 *   record           -> writes the headless record to the --record folder, answers "ok DIR"
 *   decoder          -> one line of decoder statistics
 *   osd-plane        -> the rendered OSD, 720 x 576 ARGB words in host order (conformance)
 *   osd-window N     -> "W H X Y VISIBLE BPP" and the window's W x H ARGB words (osd-dump) */
#ifndef FFDVBD_MEDIA_H
#define FFDVBD_MEDIA_H

#include <stdio.h>

#include "control_cmd.h"

struct ffdvb_card;

struct ffdvb_decoder;

/* Answers cmd on out if it is one of the quick commands above (decoder, osd-plane,
 * osd-window; on the loop thread): returns 1; 0 if it is not. dec: the adapter's decoder, NULL
 * with --no-decode. */
int ffdvbd_media_command(struct ffdvb_card *card, struct ffdvb_decoder *dec,
			 const struct ffdvbd_command *cmd, FILE *out);

/* The slow ones, screenshot (PNG encoding) and record (file writing; ffdvbd_cmd_is_slow) run
 * on a worker thread (control.c), away from the loop that serves every node. Answers one for
 * dec (NULL: ffdvbd runs with --no-decode). Any thread. */
void ffdvbd_media_slow(struct ffdvb_decoder *dec, const char *record_dir, enum ffdvbd_cmd cmd,
		       FILE *out);

/* Writes DIR/pictures.log and DIR/sound.s16 (the headless record). 0 or -errno. */
int ffdvbd_write_record(struct ffdvb_decoder *dec, const char *dir);

#endif
