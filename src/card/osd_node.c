/* SPDX-License-Identifier: GPL-2.0-or-later */
/* osd0 (§2.4, §7): OSD_SEND_CMD through the OSD model (src/osd: argument checks, windows,
 * pixels), a record of the last payload, OSD_GET_CAPABILITY, and no read/write/poll of its own. */
#include <errno.h>
#include <poll.h>

#include "ffdvb/checksum.h"

#include "card_internal.h"

/* the conformance suite compares what arrived (status: last_osd_data) with what it sent */
static void record_payload(struct ffdvb_card *card, const struct ffdvb_osd_cmd *c,
			   const struct ffdvb_ioctl *io)
{
	const void *data = io->data;
	size_t len = io->data_len;

	switch (c->cmd) {
	case FFDVB_OSD_SetPalette: { /* entries color&0xFF .. x0&0xFF as 32-bit words */
		int n = (c->x0 & 0xff) - (c->color & 0xff) + 1;

		len = n > 0 ? 4 * (size_t)n : 0;
		if (!len)
			data = "";
		break;
	}
	case FFDVB_OSD_SetBlock:
	case FFDVB_OSD_SetRow:
	case FFDVB_OSD_Text:
		break;
	default:
		return;
	}
	card->last_osd_data.cmd = c->cmd;
	card->last_osd_data.size = (uint32_t)len;
	card->last_osd_data.fnv1a = ffdvb_fnv1a(FFDVB_FNV1A_INIT, data, len);
}

/* The model (src/osd) checks the arguments as av7110 does; the transport already fetched
 * c->data for the commands that read it (io->data / data_len / data_fault). */
static int send_cmd(struct ffdvb_card *card, struct ffdvb_ioctl *io)
{
	const struct ffdvb_osd_cmd *c = io->buf;
	int r = ffdvb_osd_command(card->osd, c, io->data, io->data_len, io->data_fault);

	if (r == 0) {
		record_payload(card, c, io);
		card_osd_changed(card);
	}
	return r;
}

static int osd_ioctl(struct card_file *f, struct ffdvb_ioctl *io)
{
	struct ffdvb_card *card = f->node->card;

	switch (io->cmd) {
	case FFDVB_OSD_SEND_CMD:
		return send_cmd(card, io);
	case FFDVB_OSD_GET_CAPABILITY: {
		struct ffdvb_osd_cap *cap = io->buf; /* its input cmd is read although _IOR */

		if (cap->cmd != FFDVB_OSD_CAP_MEMSIZE)
			return -EINVAL;
		cap->val = (long)card->cfg.osd_memsize;
		return 0;
	}
	default:
		return -EINVAL; /* av7110's osd ioctl says EINVAL, not ENOTTY */
	}
}

static ssize_t osd_read(struct card_file *f, void *buf, size_t len, int nonblock)
{
	(void)f, (void)buf, (void)len, (void)nonblock;
	return -EINVAL;
}

static ssize_t osd_write(struct card_file *f, const void *buf, size_t len, int nonblock)
{
	(void)f, (void)buf, (void)len, (void)nonblock;
	return -EINVAL; /* no write op */
}

/* no poll op on av7110: the VFS default mask */
static unsigned int osd_poll(struct card_file *f)
{
	(void)f;
	return POLLIN | POLLOUT | POLLRDNORM | POLLWRNORM;
}

const struct card_node_impl card_osd_impl = {
	.read = osd_read,
	.write = osd_write,
	.ioctl = osd_ioctl,
	.poll = osd_poll,
};
