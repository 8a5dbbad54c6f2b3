/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The repacker hands a packet to its sink in two parts (include/ffdvb/pes.h); the tests' sinks
 * check the parts and join them, then look at the packet whole. */
#ifndef TEST_PES_JOIN_H
#define TEST_PES_JOIN_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ffdvb/pes.h"

/* joins head and body into pkt (FFDVB_PES_OUT_MAX bytes); aborts, naming who, on parts that
 * no packet of the repacker can be */
static inline size_t test_pes_join(uint8_t *pkt, const uint8_t *head, size_t head_len,
				   const uint8_t *body, size_t body_len, const char *who)
{
	size_t len = head_len + body_len;

	if (head_len < 6 || len > FFDVB_PES_OUT_MAX || (body_len && !body)) {
		printf("FAIL: %s: head %zu + body %zu bytes\n", who, head_len, body_len);
		abort();
	}
	memcpy(pkt, head, head_len);
	if (body_len)
		memcpy(pkt + head_len, body, body_len);
	return len;
}

/* a two-part sink NAME that hands the joined packet to WHOLE(ctx, id, pkt, len) */
#define TEST_PES_JOINING_SINK(name, whole)                                                         \
	static inline void name(void *ctx, uint8_t id, const uint8_t *head, size_t head_len,       \
				const uint8_t *body, size_t body_len)                              \
	{                                                                                          \
		uint8_t pkt[FFDVB_PES_OUT_MAX];                                                    \
		whole(ctx, id, pkt, test_pes_join(pkt, head, head_len, body, body_len, #name));   \
	}

#endif
