/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ffdvb TS helpers for clients that write transport streams the way VDR does (one 188-byte
 * packet per write, video PIDs to video0, audio PIDs to audio0): which decoder a packet's PID
 * feeds, learnt from the stream id of the PES that a payload_unit_start packet begins; and the
 * packet size (the repacker and the software demux use it too). Header only, libc only (tools,
 * tests and benchmarks use it). */
#ifndef FFDVB_TS_H
#define FFDVB_TS_H

#include <stdint.h>

#define FFDVB_TS_PACKET_SIZE 188 /* bytes of one transport stream packet */

enum ffdvb_ts_kind { FFDVB_TS_UNKNOWN = 0, FFDVB_TS_VIDEO = 1, FFDVB_TS_AUDIO = 2 };

static inline int ffdvb_ts_pid(const uint8_t *pkt)
{
	return (pkt[1] & 0x1f) << 8 | pkt[2];
}

/* For a packet that starts a PES (payload_unit_start and 00 00 01 <id> at the payload's start):
 * FFDVB_TS_VIDEO for stream ids 0xE0-0xEF, FFDVB_TS_AUDIO for the others. Anything else (PSI,
 * a continuation): FFDVB_TS_UNKNOWN. */
static inline enum ffdvb_ts_kind ffdvb_ts_pes_kind(const uint8_t *pkt)
{
	unsigned int pay = 4 + ((pkt[3] & 0x20) ? 1u + pkt[4] : 0u);

	if (!(pkt[1] & 0x40) || pay + 4 > 188 || pkt[pay] || pkt[pay + 1] || pkt[pay + 2] != 1)
		return FFDVB_TS_UNKNOWN;
	return (pkt[pay + 3] & 0xf0) == 0xe0 ? FFDVB_TS_VIDEO : FFDVB_TS_AUDIO;
}

/* Remembers the kind of each PID as its first PES starts (kinds[8192], zeroed by the caller)
 * and returns the kind of pkt's PID. */
static inline enum ffdvb_ts_kind ffdvb_ts_route(signed char *kinds, const uint8_t *pkt)
{
	int pid = ffdvb_ts_pid(pkt);

	if (!kinds[pid])
		kinds[pid] = (signed char)ffdvb_ts_pes_kind(pkt);
	return (enum ffdvb_ts_kind)kinds[pid];
}

/* A packet on pid that starts a padding PES (stream 0xBE): written after the last packet of a
 * stream it ends the unbounded video PES in progress (§4.1: only payload_unit_start does). */
static inline void ffdvb_ts_pes_end(uint8_t *pkt, int pid)
{
	for (int i = 0; i < 188; i++)
		pkt[i] = 0xff;
	pkt[0] = 0x47, pkt[1] = (uint8_t)(0x40 | pid >> 8), pkt[2] = (uint8_t)pid, pkt[3] = 0x10;
	pkt[4] = 0, pkt[5] = 0, pkt[6] = 1, pkt[7] = 0xbe, pkt[8] = 0, pkt[9] = 178;
}

/* A packet on pid with a bounded video PES (stream 0xE0) whose payload is zero stuffing and then
 * `code` (n <= 16 bytes: an end-of-sequence code, es_video_ends): written after the last packet
 * of a stream it ends the unbounded PES in progress and tells the decoder the sequence ended. */
static inline void ffdvb_ts_video_end(uint8_t *pkt, int pid, const uint8_t *code, int n)
{
	for (int i = 0; i < 188; i++)
		pkt[i] = 0;
	pkt[0] = 0x47, pkt[1] = (uint8_t)(0x40 | pid >> 8), pkt[2] = (uint8_t)pid, pkt[3] = 0x10;
	pkt[6] = 1, pkt[7] = 0xe0, pkt[8] = 0, pkt[9] = 178, pkt[10] = 0x80;
	for (int i = 0; i < n; i++)
		pkt[188 - n + i] = code[i];
}

#endif
