/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ffdvb PES: the av7110 host PES repacker (docs/av7110.md §6.1) that turns what a client
 * writes to video0/audio0 (PES/PS byte stream, or TS packets) into PES packets of at most 2048
 * bytes, plus a PES header parser. It does not route to rings, decode, filter PIDs or parse PSI
 * (the software demux does that, src/swdemux): the card chooses the ring from the stream id it
 * is handed. */
#ifndef FFDVB_PES_H
#define FFDVB_PES_H

#include <stddef.h>
#include <stdint.h>

#include "ffdvb/ts.h"

#define FFDVB_PES_OUT_MAX 2048          /* §6.1: largest repacked packet, header included */
#define FFDVB_PES_HEADER_MAX (9 + 255)  /* 13818-1 §2.4.3.6: 9 bytes + PES_header_data_length */
#define FFDVB_PES_UNBOUNDED_MAX (16u << 20) /* §6.1: PES_packet_length 0 means "up to 16 MiB" */

/* ---- PES header parser ------------------------------------------------------------------ */

struct ffdvb_pes_header {
	uint8_t stream_id;
	uint8_t mpeg1;          /* 1: ISO/IEC 11172-1 syntax, 0: 13818-1 (or no optional header) */
	uint16_t packet_length; /* PES_packet_length as coded; 0 = unbounded */
	size_t header_len;      /* bytes from 00 00 01 to the first payload byte */
	uint8_t has_pts, has_dts;
	uint64_t pts, dts;      /* 33-bit, 90 kHz; valid when has_pts / has_dts */
};

/* Parses the PES header at buf[0] (buf[0..2] must be 00 00 01). Stream ids without the optional
 * header (0xBC, 0xBE, 0xBF, 0xF0, 0xF1, 0xF2, 0xF8, 0xFF) give header_len 6. Reads nothing beyond
 * buf[len - 1] nor beyond the packet's own PES_packet_length.
 * Returns header_len (> 0) and fills *out; -EAGAIN if len is too short to decide (out
 * untouched); -EINVAL if this is not a well-formed PES header (bad start code, stream id
 * < 0xBC such as pack/system headers and ES start codes, more than 16 MPEG-1 stuffing bytes,
 * a forbidden PTS_DTS_flags value, timestamps that do not fit the header, a header longer than
 * the packet). */
int ffdvb_pes_header_parse(const uint8_t *buf, size_t len, struct ffdvb_pes_header *out);

/* What the av7110 repacker does with a start code 00 00 01 <id> (§6.1). */
enum ffdvb_pes_kind {
	FFDVB_PES_FORWARD, /* 0xBD, 0xC0-0xEF: repacked and handed to the sink */
	FFDVB_PES_SKIP,    /* 0xBC, 0xBE, 0xBF, 0xF0-0xF3, 0xFF: skipped by PES_packet_length */
	FFDVB_PES_NOT_PES, /* anything else: pack/system header, raw ES start code, ... */
};
enum ffdvb_pes_kind ffdvb_pes_kind(uint8_t stream_id);

/* ---- repacker --------------------------------------------------------------------------- */

/* Receives one repacked packet in two parts, head[0..head_len) followed by body[0..body_len):
 * 00 00 01 <stream_id>, PES_packet_length = head_len + body_len - 6 (always the real length, also
 * for unbounded input), 7 <= head_len + body_len <= FFDVB_PES_OUT_MAX. head holds at least the
 * 6 bytes up to PES_packet_length; body (NULL when body_len is 0) is the payload that completed
 * the packet, handed over from the caller's input without a copy. The first packet of a PES
 * carries its header as written (PTS/DTS), later ones a minimal header (§6.1). Both parts are
 * valid only during the call. The sink must not call back into the repacker; it should take the
 * packet whole or drop it whole (the firmware path hands out whole packets). */
typedef void (*ffdvb_pes_sink_fn)(void *ctx, uint8_t stream_id, const uint8_t *head,
				  size_t head_len, const uint8_t *body, size_t body_len);

/* Counters; cumulative since init (reset does not clear them). For input that ends on a packet
 * boundary, garbage_bytes + skipped_bytes + forwarded_bytes = bytes fed (PES path) or TS
 * payload bytes fed (TS path). */
struct ffdvb_repacker_stats {
	uint64_t packets_in;      /* forwarded PES packets whose header was accepted */
	uint64_t forwarded_bytes; /* input bytes of forwarded packets (header + payload) */
	uint64_t packets_out;     /* packets handed to the sink (fragments included) */
	uint64_t bytes_out;
	uint64_t skipped_packets; /* skip-kind packets, pack headers and system headers */
	uint64_t skipped_bytes;
	uint64_t other_start_codes; /* raw ES and other non-PES start codes scanned over */
	uint64_t garbage_bytes;   /* bytes outside any packet (raw ES included) */
	uint64_t bad_headers;     /* forwarded PES, pack or system headers that are malformed */
	uint64_t unbounded_closed; /* unbounded packets closed by payload_unit_start (TS) */
	uint64_t unbounded_capped; /* unbounded packets that reached FFDVB_PES_UNBOUNDED_MAX */
	uint64_t ts_tei;          /* TS packets dropped for transport_error_indicator */
	uint64_t ts_no_payload;   /* TS packets dropped: adaptation field only / reserved afc */
	uint64_t ts_bad_af;       /* TS packets dropped: adaptation field longer than the packet */
	uint64_t resets;          /* ffdvb_repacker_reset calls, TEI resets included */
};

enum ffdvb_repacker_state { FFDVB_RP_SCAN, FFDVB_RP_HEADER, FFDVB_RP_DATA, FFDVB_RP_SKIP };

struct ffdvb_repacker {
	/* private: only src/pes touches these */
	ffdvb_pes_sink_fn sink;
	void *sink_ctx;
	enum ffdvb_repacker_state state;
	unsigned int zeros;       /* SCAN: consecutive 0x00 bytes seen (capped at 2) */
	uint8_t hdr[FFDVB_PES_HEADER_MAX]; /* HEADER: start code and header bytes so far */
	size_t hdr_len;
	uint8_t back[FFDVB_PES_HEADER_MAX]; /* bytes of a rejected header, to be scanned again */
	size_t back_len;
	uint8_t out[FFDVB_PES_OUT_MAX]; /* DATA: the output packet being filled */
	size_t out_len;
	uint8_t id;               /* DATA: stream id of the open packet */
	uint8_t mpeg1;            /* DATA: continuation headers in MPEG-1 syntax */
	uint8_t unbounded;        /* DATA: PES_packet_length was 0 */
	size_t remaining;         /* DATA/SKIP: input bytes of the packet still to come */
	/* public, read-only for users */
	struct ffdvb_repacker_stats stats;
};

/* Most bytes the sink can receive during one feed of len input bytes (one TS packet counts
 * as its 184 payload bytes at most): one pending packet from earlier calls, the input, and a
 * 9-byte continuation header per started fragment. Callers check ring space against it before
 * feeding (4096-byte PES chunk -> 6189; one TS packet -> 2259). */
static inline size_t ffdvb_repacker_out_bound(size_t len)
{
	return len + FFDVB_PES_OUT_MAX + 9 * (len / (FFDVB_PES_OUT_MAX - 9) + 3);
}

/* Sets up an empty repacker (state SCAN, stats zero). sink is called synchronously from feed,
 * ts_packet and never from reset. Cannot fail. */
void ffdvb_repacker_init(struct ffdvb_repacker *r, ffdvb_pes_sink_fn sink, void *sink_ctx);

/* The size of the whole packet at p when the repacker, between packets, would hand it out
 * unchanged (a forwarded stream id, bounded, at most FFDVB_PES_OUT_MAX bytes, all n bytes
 * there, a header it accepts; *h then holds that header), else 0. */
size_t ffdvb_repacker_whole_len(const uint8_t *p, size_t n, struct ffdvb_pes_header *h);

/* Counts packets the caller put where the sink would have (fed between packets, each of
 * them one ffdvb_repacker_whole_len accepts; *last the last one's header): the repacker's
 * state and counters are then those of feeding them. */
void ffdvb_repacker_passed(struct ffdvb_repacker *r, const struct ffdvb_pes_header *last,
			   size_t packets, size_t bytes);

/* Nonzero between packets: no header, payload, skip or zero byte pending (the state in which
 * a whole packet fed next goes out unchanged). */
static inline int ffdvb_repacker_between_packets(const struct ffdvb_repacker *r)
{
	return r->state == FFDVB_RP_SCAN && r->zeros == 0 && r->back_len == 0;
}

/* Feeds a PES/program-stream byte stream, split anywhere (MPlayer writes header and payload
 * in separate write() calls): the output does not depend on the split points. Forwarded
 * packets go to the sink; skip-kind packets, pack and system headers, raw ES and garbage are
 * dropped and counted. An unbounded packet is closed only by its 16 MiB cap here (§6.1: "in the
 * PES path nothing closes it"). Everything is consumed: returns len. */
size_t ffdvb_repacker_feed(struct ffdvb_repacker *r, const uint8_t *data, size_t len);

/* Feeds one 188-byte TS packet by the av7110 TS-path rules (§4.1): the PID and the sync byte
 * are ignored; transport_error_indicator -> reset and drop; no payload -> drop; the adaptation
 * field is skipped; payload_unit_start closes an open unbounded PES (emitting what it holds)
 * before the payload is fed. Returns the payload bytes fed (0 when dropped). */
size_t ffdvb_repacker_ts_packet(struct ffdvb_repacker *r, const uint8_t *pkt);

/* Ends an open unbounded packet: what it holds goes to the sink and scanning starts afresh
 * (av7110 does this after queueing a still picture, §4.4). A bounded packet or a partial
 * header is left as it is. */
void ffdvb_repacker_flush(struct ffdvb_repacker *r);

/* Forgets all partial state (partial header, open packet, pending output are discarded, not
 * emitted), as av7110 does on AUDIO/VIDEO_CLEAR_BUFFER and TEI. Stats are kept (resets++). */
void ffdvb_repacker_reset(struct ffdvb_repacker *r);

#endif
