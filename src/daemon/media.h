/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Control-socket commands about what is on screen (control.c hands them over):
 *   screenshot       -> the composited picture as PNG bytes (ffdvbctl writes the file with the
 *                       caller's own rights; the daemon writes nothing where a client says)
 *   record           -> writes the headless record to the --record folder, answers "ok DIR"
 *   decoder          -> one line of decoder statistics
 *   osd-plane        -> the rendered OSD, 720 x 576 ARGB words in host order (conformance)
 *   osd-window N     -> "W H X Y VISIBLE BPP" and the window's W x H ARGB words (osd-dump) */
#ifndef FFDVBD_MEDIA_H
#define FFDVBD_MEDIA_H

#include <stdio.h>

struct ffdvb_card;

/* Answers `line` on out if it is one of the commands above: returns 1; 0 if it is not. */
int ffdvbd_media_command(struct ffdvb_card *card, const char *record_dir, const char *line,
			 FILE *out);

/* Writes DIR/pictures.log and DIR/sound.s16 (the headless record). 0 or -errno. */
int ffdvbd_write_record(struct ffdvb_card *card, const char *dir);

#endif
