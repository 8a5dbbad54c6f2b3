/* osd0 (§2.4, §7): argument checks and errno of OSD_SEND_CMD, window bookkeeping and a record
 * of the last payload. Pixels and rendering belong to the OSD issue. */
#include <errno.h>
#include <poll.h>

#include "ffdvb/checksum.h"

#include "card_internal.h"

#define OSD_RAW_TYPES 20  /* osd_raw_window_t OSD_BITMAP1 .. OSD_CURSOR */
#define OSD_MAX_W 720
#define OSD_MAX_H 576

static void record_payload(struct ffdvb_card *card, int cmd, const void *data, size_t len)
{
	card->last_osd_data.cmd = cmd;
	card->last_osd_data.size = (uint32_t)len;
	card->last_osd_data.fnv1a = ffdvb_fnv1a(FFDVB_FNV1A_INIT, data, len);
}

static void open_window(struct ffdvb_card *card, const struct ffdvb_osd_cmd *c, int depth_index,
			int bpp, int raw_type)
{
	struct card_osd_window *w = &card->osd[card->osd_win];

	w->open = 1;
	w->depth_index = depth_index;
	w->bpp = bpp;
	w->raw_type = raw_type;
	w->w = (int)((uint32_t)c->x1 - (uint32_t)c->x0 + 1); /* never validated by av7110 */
	w->h = (int)((uint32_t)c->y1 - (uint32_t)c->y0 + 1);
	/* data is a flag only: NULL = position and show, non-NULL = hidden and unpositioned */
	w->visible = c->data == NULL;
	w->positioned = c->data == NULL;
	if (w->positioned) {
		w->x = c->x0;
		w->y = c->y0;
	}
}

/* OSD_SetBlock / OSD_SetRow (§7.4): the transport delivers the h rows of w bytes without the
 * stride gaps, so data_len == w * h. A bad pointer is EINVAL here, not EFAULT. */
static int set_block(struct ffdvb_card *card, const struct ffdvb_osd_cmd *c, int32_t y1,
		     const struct ffdvb_ioctl *io)
{
	uint32_t w = (uint32_t)c->x1 - (uint32_t)c->x0 + 1;
	uint32_t h = (uint32_t)y1 - (uint32_t)c->y0 + 1;

	if (w == 0 || w > OSD_MAX_W || h == 0 || h > OSD_MAX_H)
		return -EINVAL;
	if (io->data_fault || !io->data || io->data_len != (size_t)w * h)
		return -EINVAL;
	record_payload(card, c->cmd, io->data, io->data_len);
	return 0;
}

/* OSD_SetPalette: entries color&0xFF .. x0&0xFF as 32-bit 0xAABBGGRR words */
static int set_palette(struct ffdvb_card *card, const struct ffdvb_osd_cmd *c,
		       const struct ffdvb_ioctl *io)
{
	int n = (c->x0 & 0xff) - (c->color & 0xff) + 1;
	size_t len = n > 0 ? 4 * (size_t)n : 0;

	if (len && (io->data_fault || !io->data || io->data_len < len))
		return -EFAULT;
	record_payload(card, c->cmd, len ? io->data : "", len);
	return 0;
}

static int osd_text(struct ffdvb_card *card, const struct ffdvb_osd_cmd *c,
		    const struct ffdvb_ioctl *io)
{
	if (io->data_fault || !io->data)
		return -EFAULT;
	record_payload(card, c->cmd, io->data, io->data_len);
	return 0;
}

static int send_cmd(struct ffdvb_card *card, struct ffdvb_ioctl *io)
{
	const struct ffdvb_osd_cmd *c = io->buf;
	struct card_osd_window *win = &card->osd[card->osd_win];

	switch (c->cmd) {
	case FFDVB_OSD_Close:
		win->open = win->visible = win->positioned = 0;
		return 0;
	case FFDVB_OSD_Open: {
		/* color 1/2/4/8 -> 1/2/4/8 bit, 0 -> 8 bit; 3,5,6,7 give a 1-bit window */
		static const int bpp_of_index[8] = { 1, 2, 1, 4, 1, 1, 1, 8 };
		int idx = (int)(((uint32_t)c->color - 1) & 7);

		open_window(card, c, idx, bpp_of_index[idx], -1);
		return 0;
	}
	case FFDVB_OSD_OpenRaw:
		if (c->color < 0 || c->color >= OSD_RAW_TYPES)
			return -EINVAL;
		/* BITMAP1/2/4/8 and their HR variants (0..7) have a depth; other types index 0 */
		if (c->color < 8)
			open_window(card, c, (1 << (c->color & 3)) - 1, 1 << (c->color & 3), c->color);
		else
			open_window(card, c, 0, 1, c->color);
		return 0;
	case FFDVB_OSD_Show:
		if (win->open)
			win->visible = 1;
		return 0;
	case FFDVB_OSD_Hide:
		win->visible = 0;
		return 0;
	case FFDVB_OSD_MoveWindow:
		win->x = c->x0;
		win->y = c->y0;
		win->positioned = 1;
		if (win->open)
			win->visible = 1;
		return 0;
	case FFDVB_OSD_SetWindow:
		if (c->x0 < 1 || c->x0 > CARD_OSD_WINDOWS)
			return -EINVAL;
		card->osd_win = c->x0;
		return 0;
	case FFDVB_OSD_SetPalette:
		return set_palette(card, c, io);
	case FFDVB_OSD_SetBlock:
		return set_block(card, c, c->y1, io);
	case FFDVB_OSD_SetRow:
		return set_block(card, c, c->y0, io);
	case FFDVB_OSD_Text:
		return osd_text(card, c, io);
	case FFDVB_OSD_Clear:
	case FFDVB_OSD_Fill:
	case FFDVB_OSD_SetColor:
	case FFDVB_OSD_SetPixel:
	case FFDVB_OSD_FillRow:
	case FFDVB_OSD_FillBlock:
	case FFDVB_OSD_Line:
		return 0; /* drawing: the OSD issue; a window that is not open is fine too */
	case FFDVB_OSD_SetTrans:
	case FFDVB_OSD_GetPixel:
	case FFDVB_OSD_Query:
	case FFDVB_OSD_Test:
	default:
		return -EINVAL;
	}
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
