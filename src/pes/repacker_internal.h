/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Shared between the repacker's files (src/pes only). */
#ifndef FFDVB_REPACKER_INTERNAL_H
#define FFDVB_REPACKER_INTERNAL_H

#include "ffdvb/pes.h"

/* repacker_out.c: the output packet of the open forwarded PES (§6.1 fragmenting) */

/* Opens a forwarded packet whose accepted header is r->hdr[0..hdr->header_len). */
void rp_out_begin(struct ffdvb_repacker *r, const struct ffdvb_pes_header *hdr);
/* Copies payload bytes into output packets, emitting each one that reaches 2048 bytes;
 * returns the count taken (min(n, r->remaining)) and closes the packet when remaining hits 0. */
size_t rp_out_payload(struct ffdvb_repacker *r, const uint8_t *p, size_t n);
/* Emits what the open packet holds and leaves DATA (end of packet, PUSI, 16 MiB cap). */
void rp_out_close(struct ffdvb_repacker *r);

/* A whole bounded packet of at most FFDVB_PES_OUT_MAX bytes at p, met in SCAN with no zero
 * byte pending, straight to the sink; returns its size, 0 when p starts no such packet. */
size_t rp_out_whole(struct ffdvb_repacker *r, const uint8_t *p, size_t n);

/* repacker.c */
void rp_feed(struct ffdvb_repacker *r, const uint8_t *p, size_t n);

#endif
