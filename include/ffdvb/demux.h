/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ffdvb demux: the av7110 host PES repacker (docs/av7110.md §6.1) that turns what a client
 * writes to video0/audio0 (PES/PS byte stream, or TS packets) into PES packets of at most 2048
 * bytes, plus a PES header parser. It does not route to rings, decode, filter PIDs or parse PSI:
 * the card chooses the ring from the stream id it is handed. */
#ifndef FFDVB_DEMUX_H
#define FFDVB_DEMUX_H

#include <stddef.h>
#include <stdint.h>

#define FFDVB_PES_OUT_MAX 2048          /* §6.1: largest repacked packet, header included */
#define FFDVB_PES_HEADER_MAX (9 + 255)  /* 13818-1 §2.4.3.6: 9 bytes + PES_header_data_length */
#define FFDVB_PES_UNBOUNDED_MAX (16u << 20) /* §6.1: PES_packet_length 0 means "up to 16 MiB" */
#define FFDVB_TS_PACKET_SIZE 188

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

/* Receives one repacked packet: 00 00 01 <stream_id>, PES_packet_length = len - 6 (always the
 * real length, also for unbounded input), 7 <= len <= FFDVB_PES_OUT_MAX. The first packet of a
 * PES carries its header as written (PTS/DTS), later ones a minimal header (§6.1). pkt is valid
 * only during the call. The sink must not call back into the repacker; it should take the packet
 * whole or drop it whole (the firmware path hands out whole packets). */
typedef void (*ffdvb_pes_sink_fn)(void *ctx, uint8_t stream_id, const uint8_t *pkt, size_t len);

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
	/* private: only src/demux touches these */
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

/* ---- software demux (swdemux*.c, file and none tuners) ------------------------------------
 * What dvb-core's dvb_demux + dmxdev deliver, in software: TS packets in, per output a bounded
 * buffer with dmxdev's read/poll rules. An output is one demux0 file (a section or a PES filter)
 * or one dvr0 reader (the target of DMX_OUT_TS_TAP). The arguments are trusted: the card's own
 * dmxdev emulation checked them before (ffdvb_tuner_validates_demux() == 0). No I/O, no clock:
 * section timeouts are timed by the owner (ffdvb_swdemux_timeout_ms / ffdvb_swdemux_expire). */

#include <sys/types.h>

#include "ffdvb/abi.h"

#define FFDVB_SWDEMUX_FILTER_BUFFER 8192              /* dmxdev: buffer of a demux0 filter */
#define FFDVB_SWDEMUX_DVR_BUFFER (10 * 188 * 1024)    /* dmxdev: DVR_BUFFER_SIZE */
#define FFDVB_SWDEMUX_SECTION_MAX 4096                /* 3 + section_length, at most */
#define FFDVB_SWDEMUX_MAX_PIDS 32                     /* PIDs of one PES filter (DMX_ADD_PID) */
#define FFDVB_SWDEMUX_ALL_PIDS 0x2000                 /* dvb_demux: a feed on every packet */
/* DMX_SET_BUFFER_SIZE's largest buffer: one client must not take the daemon's memory (256
 * filters of a card x 32 MiB at most). dmxdev has no limit of its own; a size its vmalloc
 * cannot give is ENOMEM, and so is one above this. VDR asks for 1-2 MiB. */
#define FFDVB_DMX_BUFFER_MAX (32u << 20)
/* ... and all demux and dvr buffers of the daemon together (every adapter, every client): a
 * buffer that would go above it is ENOMEM too. Eight cards' worth of VDR's largest use. */
#define FFDVB_DMX_BUFFERS_MAX (256u << 20)

struct ffdvb_swdemux;
/* dmxdev's ring (the buffer behind a demux or dvr file): whole writes or -EOVERFLOW;
 * data == NULL means "never allocated". Used by the software demux and by the remote tuner. */
struct ffdvb_dmxbuf {
	uint8_t *data;
	size_t size, head, len;
	int error; /* -EOVERFLOW / -ETIMEDOUT, reported once by read */
};

/* a new empty buffer of size bytes: 0, or -ENOMEM (also above FFDVB_DMX_BUFFER_MAX, or when
 * FFDVB_DMX_BUFFERS_MAX would be passed), the old one kept */
int ffdvb_dmxbuf_alloc(struct ffdvb_dmxbuf *b, size_t size);
void ffdvb_dmxbuf_release(struct ffdvb_dmxbuf *b);
/* bytes of every buffer allocated now (tests, status) */
size_t ffdvb_dmxbuf_total(void);
void ffdvb_dmxbuf_flush(struct ffdvb_dmxbuf *b);
/* Appends a and b whole, or sets -EOVERFLOW (the buffer keeps what it had). Returns 1 when
 * the buffer went from empty to non-empty or got its error now (the reader must be woken). */
int ffdvb_dmxbuf_write2(struct ffdvb_dmxbuf *buf, const uint8_t *a, size_t alen,
			const uint8_t *b, size_t blen);
size_t ffdvb_dmxbuf_read(struct ffdvb_dmxbuf *b, uint8_t *out, size_t len);

struct ffdvb_swdemux_out;

struct ffdvb_swdemux_stats {
	uint64_t packets;       /* 188-byte packets taken in, TEI ones included */
	uint64_t tei;           /* dropped for transport_error_indicator */
	uint64_t sync_losses;   /* times the input lost the 0x47 sync */
	uint64_t skipped_bytes; /* bytes thrown away while resynchronising */
	uint64_t sections;      /* sections delivered to some output */
	uint64_t crc_errors;    /* sections dropped by DMX_CHECK_CRC */
	uint64_t overflows;     /* buffers that overflowed (each reported once by read) */
};

/* Called when an output became readable or got an error (its poll mask may have changed).
 * Runs inside ffdvb_swdemux_feed/packet/expire; must not free the output. */
typedef void (*ffdvb_swdemux_notify_fn)(void *ctx);

struct ffdvb_swdemux *ffdvb_swdemux_new(void);
void ffdvb_swdemux_free(struct ffdvb_swdemux *d); /* frees its remaining outputs; accepts NULL */

/* A byte stream of TS packets split anywhere (dvr0 write): resynchronises on the 0x47 sync byte
 * (a sync is accepted where the next packet also starts with 0x47), keeps a partial packet for
 * the next call. */
void ffdvb_swdemux_feed(struct ffdvb_swdemux *d, const uint8_t *data, size_t len);
/* Forgets a partial packet kept by feed (its writer went away). */
void ffdvb_swdemux_feed_reset(struct ffdvb_swdemux *d);
/* One aligned 188-byte packet (pkt[0] is not checked). TEI packets are dropped and counted. */
void ffdvb_swdemux_packet(struct ffdvb_swdemux *d, const uint8_t *pkt);
const struct ffdvb_swdemux_stats *ffdvb_swdemux_stats(const struct ffdvb_swdemux *d);

/* A demux0 file: no filter, no buffer (read gives 0 until a filter is first started). */
struct ffdvb_swdemux_out *ffdvb_swdemux_filter_new(struct ffdvb_swdemux *d,
						    ffdvb_swdemux_notify_fn fn, void *ctx);
/* A dvr0 reader: a buffer of FFDVB_SWDEMUX_DVR_BUFFER that receives every DMX_OUT_TS_TAP packet
 * (once, however many filters want it). PID 0x2000 filters get whole packets, also with
 * DMX_OUT_TAP (dvb_demux). */
struct ffdvb_swdemux_out *ffdvb_swdemux_dvr_new(struct ffdvb_swdemux *d,
						 ffdvb_swdemux_notify_fn fn, void *ctx);
void ffdvb_swdemux_out_free(struct ffdvb_swdemux_out *o); /* accepts NULL */

/* Filter calls, dmxdev semantics (setting a filter stops the old one; IMMEDIATE_START starts). */
int ffdvb_swdemux_set_section(struct ffdvb_swdemux_out *o,
			      const struct ffdvb_dmx_sct_filter_params *p);
int ffdvb_swdemux_set_pes(struct ffdvb_swdemux_out *o, const struct ffdvb_dmx_pes_filter_params *p);
int ffdvb_swdemux_start(struct ffdvb_swdemux_out *o); /* -EINVAL with no filter set */
void ffdvb_swdemux_stop(struct ffdvb_swdemux_out *o);  /* flushes the buffer */
int ffdvb_swdemux_add_pid(struct ffdvb_swdemux_out *o, uint16_t pid);
int ffdvb_swdemux_remove_pid(struct ffdvb_swdemux_out *o, uint16_t pid);
/* dmxdev: the current size changes nothing; otherwise a new empty buffer of size bytes at once
 * (filters and dvr readers; a filter that never started then reads -EAGAIN, not 0); -EINVAL
 * for 0, -EBUSY while a filter runs, -ENOMEM. */
int ffdvb_swdemux_set_buffer_size(struct ffdvb_swdemux_out *o, size_t size);

/* Non-blocking read: bytes; 0 when no buffer exists yet (never started); -EAGAIN when empty;
 * an error once (-EOVERFLOW: the buffer is flushed; -ETIMEDOUT), then data again. A section
 * filter returns at most one section per read (a short len reads it in pieces). */
ssize_t ffdvb_swdemux_read(struct ffdvb_swdemux_out *o, void *buf, size_t len);
/* POLLIN|POLLRDNORM|POLLPRI with data, the same plus POLLERR with a pending error; 0 for a
 * filter that is not started. */
unsigned int ffdvb_swdemux_poll(const struct ffdvb_swdemux_out *o);
size_t ffdvb_swdemux_buffered(const struct ffdvb_swdemux_out *o); /* bytes waiting */

/* Section timeout: the timeout (ms) the owner should arm now, 0 for none; call after start and
 * set. expire() when it elapsed: -ETIMEDOUT is reported unless a section came first. */
uint32_t ffdvb_swdemux_timeout_ms(const struct ffdvb_swdemux_out *o);
void ffdvb_swdemux_expire(struct ffdvb_swdemux_out *o);

/* CRC-32/MPEG-2 (poly 0x04C11DB7, init 0xFFFFFFFF, no reflection): 0 over a whole section
 * with its CRC_32 field means intact. Own copy so that the fuzz builds need no libdvbv5. */
uint32_t ffdvb_crc32_mpeg(const uint8_t *data, size_t len);

#endif
