/* SPDX-License-Identifier: GPL-2.0-or-later */
/* frontend0: the tuner's frontend (include/ffdvb/tuner.h), one tuner file per client file. The
 * card only keeps dvb_frontend's open counting (card.c); everything else, the one-writer rule
 * for set calls included, is the tuner's, so that a real budget frontend answers with its own
 * errno. A call that would sleep (FE_GET_EVENT without an event) waits for the tuner's wake. */
#include <linux/dvb/frontend.h>

#include "ffdvb/tuner.h"

#include "card_internal.h"

static int frontend_opened(struct card_file *f)
{
	return card_tuner_attach(f, FFDVB_TUNER_FRONTEND);
}

static void frontend_released(struct card_file *f)
{
	card_tuner_detach(f);
}

/* FE_SET_FRONTEND, or FE_SET_PROPERTY with DTV_TUNE among its properties */
static int is_tune(const struct ffdvb_ioctl *io)
{
	const struct dtv_property *p = io->data;

	if (io->cmd == FE_SET_FRONTEND)
		return 1;
	if (io->cmd != FE_SET_PROPERTY || !p)
		return 0;
	for (size_t i = 0; i < io->data_len / sizeof(*p); i++)
		if (p[i].cmd == DTV_TUNE)
			return 1;
	return 0;
}

static int frontend_ioctl(struct card_file *f, struct ffdvb_ioctl *io)
{
	long r = ffdvb_tuner_ioctl(f->tf, io);

	if ((r >= 0 || r == -FFDVB_EBLOCK) && is_tune(io))
		card_live_retuned(f->node->card);
	return (int)card_tuner_result(r, io->nonblock, io->interrupted);
}

static unsigned int frontend_poll(struct card_file *f)
{
	return ffdvb_tuner_poll(f->tf);
}

const struct card_node_impl card_frontend_impl = {
	.opened = frontend_opened,
	.released = frontend_released,
	.ioctl = frontend_ioctl,
	.poll = frontend_poll,
};
