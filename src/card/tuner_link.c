/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The card's side of its tuner (include/ffdvb/tuner.h): each client file of frontend0, demux0
 * and dvr0 has a tuner file of its own, opened with the client's flags, so that open rules,
 * errno and data are the tuner's. The tuner's wake-ups become the node's. */
#include <errno.h>

#include <stdio.h>

#include "ffdvb/tuner.h"

#include "card_internal.h"

static void tuner_file_woke(void *ctx)
{
	struct card_file *f = ctx;

	card_wake(f->node->card, f->node->type);
}

int card_tuner_attach(struct card_file *f, int dev)
{
	int r = ffdvb_tuner_open(f->node->card->tuner, (enum ffdvb_tuner_dev)dev, f->flags, &f->tf);

	if (r < 0 && r != -FFDVB_EBLOCK) {
		f->tf = NULL;
		return r;
	}
	ffdvb_tuner_set_wake(f->tf, tuner_file_woke, f);
	return r; /* -FFDVB_EBLOCK: a remote device answers later (card_tuner_open_wait) */
}

int card_tuner_open_wait(struct card_file *f, int interrupted)
{
	return f->tf ? ffdvb_tuner_open_wait(f->tf, interrupted) : 0;
}

void card_tuner_detach(struct card_file *f)
{
	ffdvb_tuner_close(f->tf);
	f->tf = NULL;
}

long card_tuner_result(long r, int nonblock, int interrupted)
{
	if (r != -EAGAIN)
		return r; /* -FFDVB_EBLOCK included: a remote call under way, whatever O_NONBLOCK says */
	if (nonblock)
		return -EWOULDBLOCK;
	return interrupted ? -EINTR : -FFDVB_EBLOCK;
}

void card_tuner_status(struct ffdvb_card *card, FILE *out, int json)
{
	char buf[1024];

	if (ffdvb_tuner_status_json(card->tuner, buf, sizeof(buf)) >= (int)sizeof(buf))
		snprintf(buf, sizeof(buf), "{\"spec\":\"?\"}"); /* never a cut JSON object */
	if (json)
		fprintf(out, "\"tuner\":%s,", buf);
	else
		fprintf(out, "tuner: %s\n", buf);
}
