/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ioctl argument marshalling: request layouts, 32-bit conversions, embedded pointers. */
#include "abi/marshal.h"

#include <errno.h>
#include <string.h>
#include <sys/uio.h>

/* i386 struct dtv_property: its u.buffer.reserved2 pointer is 4 bytes (abi.h) */
#define PROP32_SIZE sizeof(struct ffdvb_dtv_property32)
#define PROP_HEAD 64 /* cmd, reserved[3], u.buffer.data/len/reserved1: same in both layouts */

void ffdvb_marshal_layout(unsigned int cmd, int compat, struct ffdvb_ioctl_layout *lo)
{
	memset(lo, 0, sizeof(*lo));
	lo->native_cmd = cmd;
	lo->compat = compat;
	if (compat) {
		switch (cmd) {
		case FFDVB_VIDEO_GET_EVENT32:
			lo->native_cmd = FFDVB_VIDEO_GET_EVENT;
			lo->conv = FFDVB_CONV_VIDEO_EVENT;
			break;
		case FFDVB_VIDEO_STILLPICTURE32:
			lo->native_cmd = FFDVB_VIDEO_STILLPICTURE;
			lo->conv = FFDVB_CONV_STILL_PICTURE;
			break;
		case FFDVB_OSD_SEND_CMD32:
			lo->native_cmd = FFDVB_OSD_SEND_CMD;
			lo->conv = FFDVB_CONV_OSD_CMD;
			break;
		case FFDVB_OSD_GET_CAPABILITY32:
			lo->native_cmd = FFDVB_OSD_GET_CAPABILITY;
			lo->conv = FFDVB_CONV_OSD_CAP;
			break;
		case FFDVB_FE_SET_PROPERTY32:
			lo->native_cmd = FE_SET_PROPERTY;
			lo->conv = FFDVB_CONV_DTV_PROPERTIES;
			break;
		case FFDVB_FE_GET_PROPERTY32:
			lo->native_cmd = FE_GET_PROPERTY;
			lo->conv = FFDVB_CONV_DTV_PROPERTIES;
			break;
		default:
			break;
		}
	}
	/* dvb-core copies every sized argument in, even for _IOR and unknown requests (§10.3) */
	if (_IOC_DIR(cmd) != _IOC_NONE) {
		lo->user_size = _IOC_SIZE(cmd);
		lo->native_size = _IOC_SIZE(lo->native_cmd);
		lo->copy_out = !!(_IOC_DIR(cmd) & _IOC_READ);
	}
}

void ffdvb_marshal_arg_in(const struct ffdvb_ioctl_layout *lo, const void *user, void *native)
{
	switch (lo->conv) {
	case FFDVB_CONV_VIDEO_EVENT: {
		const struct ffdvb_video_event32 *u = user;
		struct ffdvb_video_event *n = native;

		memset(n, 0, sizeof(*n));
		n->type = u->type;
		n->timestamp = u->timestamp;
		memcpy(&n->u, &u->u, sizeof(u->u));
		break;
	}
	case FFDVB_CONV_STILL_PICTURE: {
		const struct ffdvb_video_still_picture32 *u = user;
		struct ffdvb_video_still_picture *n = native;

		memset(n, 0, sizeof(*n));
		n->iFrame = (char *)(uintptr_t)u->iFrame;
		n->size = u->size;
		break;
	}
	case FFDVB_CONV_OSD_CMD: {
		const struct ffdvb_osd_cmd32 *u = user;
		struct ffdvb_osd_cmd *n = native;

		memset(n, 0, sizeof(*n));
		n->cmd = u->cmd;
		n->x0 = u->x0;
		n->y0 = u->y0;
		n->x1 = u->x1;
		n->y1 = u->y1;
		n->color = u->color;
		n->data = (void *)(uintptr_t)u->data;
		break;
	}
	case FFDVB_CONV_OSD_CAP: {
		const struct ffdvb_osd_cap32 *u = user;
		struct ffdvb_osd_cap *n = native;

		memset(n, 0, sizeof(*n));
		n->cmd = u->cmd;
		n->val = u->val;
		break;
	}
	case FFDVB_CONV_DTV_PROPERTIES: {
		const struct ffdvb_dtv_properties32 *u = user;
		struct dtv_properties *n = native;

		memset(n, 0, sizeof(*n));
		n->num = u->num;
		n->props = (struct dtv_property *)(uintptr_t)u->props;
		break;
	}
	case FFDVB_CONV_NONE:
		memcpy(native, user, lo->user_size);
		break;
	}
}

void ffdvb_marshal_arg_out(const struct ffdvb_ioctl_layout *lo, const void *native, void *user)
{
	switch (lo->conv) {
	case FFDVB_CONV_VIDEO_EVENT: {
		const struct ffdvb_video_event *n = native;
		struct ffdvb_video_event32 *u = user;

		memset(u, 0, sizeof(*u));
		u->type = n->type;
		u->timestamp = (int32_t)n->timestamp;
		memcpy(&u->u, &n->u, sizeof(u->u));
		break;
	}
	case FFDVB_CONV_STILL_PICTURE: {
		const struct ffdvb_video_still_picture *n = native;
		struct ffdvb_video_still_picture32 *u = user;

		u->iFrame = (uint32_t)(uintptr_t)n->iFrame;
		u->size = n->size;
		break;
	}
	case FFDVB_CONV_OSD_CMD: {
		const struct ffdvb_osd_cmd *n = native;
		struct ffdvb_osd_cmd32 *u = user;

		u->cmd = n->cmd;
		u->x0 = n->x0;
		u->y0 = n->y0;
		u->x1 = n->x1;
		u->y1 = n->y1;
		u->color = n->color;
		u->data = (uint32_t)(uintptr_t)n->data;
		break;
	}
	case FFDVB_CONV_OSD_CAP: {
		const struct ffdvb_osd_cap *n = native;
		struct ffdvb_osd_cap32 *u = user;

		u->cmd = n->cmd;
		u->val = (int32_t)n->val;
		break;
	}
	case FFDVB_CONV_DTV_PROPERTIES: {
		const struct dtv_properties *n = native;
		struct ffdvb_dtv_properties32 *u = user;

		u->num = n->num;
		u->props = (uint32_t)(uintptr_t)n->props;
		break;
	}
	case FFDVB_CONV_NONE:
		memcpy(user, native, lo->user_size);
		break;
	}
}

/* OSD_SEND_CMD: the data each command reads (§10.2, §7.2, §7.4) */
static void osd_payload(const struct ffdvb_osd_cmd *c, struct ffdvb_payload *p)
{
	uint64_t addr = (uint64_t)(uintptr_t)c->data;

	switch (c->cmd) {
	case FFDVB_OSD_SetPalette: {
		int first = c->color & 0xff, last = c->x0 & 0xff;

		if (last < first)
			return; /* nothing loaded, nothing read */
		p->kind = FFDVB_PAYLOAD_BLOCK;
		p->addr = addr;
		p->len = 4u * (size_t)(last - first + 1);
		return;
	}
	case FFDVB_OSD_SetRow:
	case FFDVB_OSD_SetBlock: {
		/* computed unsigned as the driver does: x1 < x0 gives a huge width -> EINVAL */
		unsigned int w = (unsigned int)c->x1 - (unsigned int)c->x0 + 1;
		unsigned int h = c->cmd == FFDVB_OSD_SetRow ? 1 :
				 (unsigned int)c->y1 - (unsigned int)c->y0 + 1;

		if (w == 0 || w > FFDVB_OSD_MAX_W || h == 0 || h > FFDVB_OSD_MAX_H)
			return; /* the node answers EINVAL without reading */
		p->kind = FFDVB_PAYLOAD_ROWS;
		p->addr = addr;
		p->width = w;
		p->rows = h;
		p->stride = c->color <= 0 ? w : (size_t)c->color;
		p->len = (size_t)w * h;
		return;
	}
	case FFDVB_OSD_Text:
		p->kind = FFDVB_PAYLOAD_STRING;
		p->addr = addr;
		p->len = FFDVB_OSD_TEXT_MAX;
		return;
	default:
		return; /* Open/OpenRaw: data is a flag, never dereferenced; others ignore it */
	}
}

int ffdvb_marshal_payload(const struct ffdvb_ioctl_layout *lo, const void *native,
			  struct ffdvb_payload *p)
{
	memset(p, 0, sizeof(*p));
	if (!native || lo->native_size != _IOC_SIZE(lo->native_cmd))
		return 0;
	switch (lo->native_cmd) {
	case FFDVB_VIDEO_STILLPICTURE: {
		const struct ffdvb_video_still_picture *sp = native;

		if (sp->size <= 0)
			return 0; /* size 0: nothing read; negative: the node decides */
		if ((uint32_t)sp->size > FFDVB_STILL_MAX)
			return -EFBIG;
		p->kind = FFDVB_PAYLOAD_BLOCK;
		p->addr = (uint64_t)(uintptr_t)sp->iFrame;
		p->len = (size_t)sp->size;
		return 0;
	}
	case FFDVB_OSD_SEND_CMD:
		osd_payload(native, p);
		return 0;
	case FE_SET_PROPERTY:
	case FE_GET_PROPERTY: {
		const struct dtv_properties *props = native;

		if (props->num > DTV_IOCTL_MAX_MSGS)
			return -EINVAL;
		if (props->num == 0)
			return 0;
		p->kind = FFDVB_PAYLOAD_PROPS;
		p->addr = (uint64_t)(uintptr_t)props->props;
		p->count = props->num;
		p->user_elem = lo->compat ? PROP32_SIZE : sizeof(struct dtv_property);
		p->len = p->count * sizeof(struct dtv_property);
		p->copy_out = lo->native_cmd == FE_GET_PROPERTY;
		return 0;
	}
	default:
		return 0;
	}
}

void ffdvb_marshal_props_in(int compat, const void *user, struct dtv_property *native,
			    size_t count)
{
	if (!compat) {
		memcpy(native, user, count * sizeof(*native));
		return;
	}
	for (size_t i = 0; i < count; i++) {
		const unsigned char *u = (const unsigned char *)user + i * PROP32_SIZE;
		unsigned char *n = (unsigned char *)&native[i];
		uint32_t reserved2;

		memset(n, 0, sizeof(*native));
		memcpy(n, u, PROP_HEAD);
		memcpy(&reserved2, u + PROP_HEAD, 4);
		uint64_t wide = reserved2;
		memcpy(n + PROP_HEAD, &wide, 8);
		memcpy(n + offsetof(struct dtv_property, result), u + PROP_HEAD + 4, 4);
	}
}

void ffdvb_marshal_props_out(int compat, const struct dtv_property *native, void *user,
			     size_t count)
{
	if (!compat) {
		memcpy(user, native, count * sizeof(*native));
		return;
	}
	for (size_t i = 0; i < count; i++) {
		unsigned char *u = (unsigned char *)user + i * PROP32_SIZE;
		const unsigned char *n = (const unsigned char *)&native[i];
		uint64_t wide;

		memcpy(u, n, PROP_HEAD);
		memcpy(&wide, n + PROP_HEAD, 8);
		uint32_t reserved2 = (uint32_t)wide;
		memcpy(u + PROP_HEAD, &reserved2, 4);
		memcpy(u + PROP_HEAD + 4, n + offsetof(struct dtv_property, result), 4);
	}
}

size_t ffdvb_marshal_chunk(const struct ffdvb_payload *p, size_t have, size_t room,
			   struct iovec *iov, size_t max_iov, size_t *len)
{
	*len = 0;
	if (have >= p->len || max_iov == 0)
		return 0;
	if (p->kind == FFDVB_PAYLOAD_BLOCK || (p->kind == FFDVB_PAYLOAD_ROWS && p->stride == p->width)) {
		/* contiguous: one iovec (rows only whole, so that the next chunk starts a row) */
		size_t n = p->len - have < room ? p->len - have : room;

		if (p->kind == FFDVB_PAYLOAD_ROWS)
			n -= n % p->width;
		if (n == 0)
			return 0;
		iov[0].iov_base = (void *)(uintptr_t)(p->addr + have);
		iov[0].iov_len = n;
		*len = n;
		return 1;
	}
	if (p->kind != FFDVB_PAYLOAD_ROWS)
		return 0;
	size_t row = have / p->width, rows = room / p->width;

	if (rows > p->rows - row)
		rows = p->rows - row;
	if (rows > max_iov)
		rows = max_iov;
	for (size_t r = 0; r < rows; r++) {
		iov[r].iov_base = (void *)(uintptr_t)(p->addr + (uint64_t)(row + r) * p->stride);
		iov[r].iov_len = p->width;
	}
	*len = rows * p->width;
	return rows;
}

size_t ffdvb_marshal_string_piece(uint64_t addr, size_t have, size_t max, size_t page_size)
{
	if (have >= max)
		return 0;
	uint64_t at = addr + have;
	size_t to_page_end = page_size - (size_t)(at % page_size);
	size_t left = max - have;

	return to_page_end < left ? to_page_end : left;
}

size_t ffdvb_marshal_string_len(const void *buf, size_t have)
{
	const char *nul = memchr(buf, '\0', have);

	return nul ? (size_t)(nul - (const char *)buf) + 1 : 0;
}

#define KERNEL_ENOTSUPP 524 /* include/linux/errno.h: internal, not in the uapi headers */

int ffdvb_marshal_reply_errno(int err)
{
	if (err < 512)
		return err;
	return err == KERNEL_ENOTSUPP ? EOPNOTSUPP : EIO;
}
