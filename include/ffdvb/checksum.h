/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ffdvb checksum: FNV-1a over a byte range. The card records it for payloads that crossed the
 * transport (still pictures, OSD data) and the conformance tool computes it on its side, so a
 * test can prove that a large ioctl payload arrived whole. Not for security. */
#ifndef FFDVB_CHECKSUM_H
#define FFDVB_CHECKSUM_H

#include <stddef.h>
#include <stdint.h>

#define FFDVB_FNV1A_INIT 0x811c9dc5u

static inline uint32_t ffdvb_fnv1a(uint32_t h, const void *data, size_t len)
{
	const unsigned char *p = data;

	for (size_t i = 0; i < len; i++)
		h = (h ^ p[i]) * 0x01000193u;
	return h;
}

#endif
