/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ffdvb software demux: what dvb-core's dvb_demux + dmxdev deliver, in software, for the file
 * and none tuners (src/frontend). TS packets in, per output a bounded buffer with dmxdev's
 * read/poll rules. An output is one demux0 file (a section or a PES filter) or one dvr0 reader
 * (the target of DMX_OUT_TS_TAP). The arguments are trusted: the card's own dmxdev emulation
 * checked them before (ffdvb_tuner_validates_demux() == 0). No I/O, no clock: section timeouts
 * are timed by the owner (ffdvb_swdemux_timeout_ms / ffdvb_swdemux_expire). It does not repack
 * PES for the decoder (include/ffdvb/pes.h does). */
#ifndef FFDVB_SWDEMUX_H
#define FFDVB_SWDEMUX_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "ffdvb/abi.h"
#include "ffdvb/ts.h"

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

/* dvb_demux's section filter match, for sections that come from elsewhere too (a remote
 * daemon's demux may hand over a section of the filter it just replaced). filter, mask and
 * mode are DMX_SET_FILTER's 16-byte arrays. */
struct ffdvb_section_match {
	uint8_t value[18], mask_eq[18], mask_neq[18]; /* over the first 18 section bytes */
	int check_neq;
};
void ffdvb_section_match_prepare(struct ffdvb_section_match *m, const uint8_t *filter,
				 const uint8_t *mask, const uint8_t *mode);
int ffdvb_section_matches(const struct ffdvb_section_match *m, const uint8_t *sec, size_t len);

/* CRC-32/MPEG-2 (poly 0x04C11DB7, init 0xFFFFFFFF, no reflection): 0 over a whole section
 * with its CRC_32 field means intact. Own copy so that the fuzz builds need no libdvbv5. */
uint32_t ffdvb_crc32_mpeg(const uint8_t *data, size_t len);

#endif
