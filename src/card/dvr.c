/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dvr0: the tuner's dvr device (TS of the DMX_OUT_TS_TAP filters; TS written goes into the
 * demux), one tuner file per client file. dmxdev's only ioctl here is DMX_SET_BUFFER_SIZE. */
#include <errno.h>

#include "ffdvb/tuner.h"

#include "card_internal.h"

static int dvr_opened(struct card_file *f)
{
	return card_tuner_attach(f, FFDVB_TUNER_DVR);
}

static void dvr_released(struct card_file *f)
{
	card_tuner_detach(f);
}

static ssize_t dvr_read(struct card_file *f, void *buf, size_t len, int nonblock)
{
	return card_tuner_result(ffdvb_tuner_read(f->tf, buf, len), nonblock, 0);
}

/* the transport turns -EAGAIN of a blocking writer into a wait for the wake-up */
static ssize_t dvr_write(struct card_file *f, const void *buf, size_t len, int nonblock)
{
	(void)nonblock;
	return ffdvb_tuner_write(f->tf, buf, len);
}

static int dvr_ioctl(struct card_file *f, struct ffdvb_ioctl *io)
{
	if (io->cmd != FFDVB_DMX_SET_BUFFER_SIZE)
		return -ENOTTY;
	return (int)card_tuner_result(ffdvb_tuner_ioctl(f->tf, io), io->nonblock, io->interrupted);
}

static unsigned int dvr_poll(struct card_file *f)
{
	return ffdvb_tuner_poll(f->tf);
}

const struct card_node_impl card_dvr_impl = {
	.opened = dvr_opened,
	.released = dvr_released,
	.read = dvr_read,
	.write = dvr_write,
	.ioctl = dvr_ioctl,
	.poll = dvr_poll,
};
