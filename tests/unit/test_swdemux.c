/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The software demux (src/swdemux/swdemux*.c) against dvb-core's dmxdev/dvb_demux rules: read
 * before start, PES/TS/section outputs, section reassembly and matching, CRC, oneshot, timeout,
 * overflow, TEI, resync. */
#include <errno.h>
#include <poll.h>
#include <string.h>

#include <libdvbv5/crc32.h>

#include "check.h"
#include "swdemux.h"

static int notified;

static void notify(void *ctx)
{
	(void)ctx;
	notified++;
}

/* a TS packet: payload bytes n (<= 184), the rest filled by an adaptation field */
static void ts(uint8_t *pkt, uint16_t pid, int pusi, int cc, const uint8_t *payload, size_t n)
{
	size_t off = 4;

	memset(pkt, 0xff, 188);
	pkt[0] = 0x47;
	pkt[1] = (uint8_t)((pusi ? 0x40 : 0) | (pid >> 8));
	pkt[2] = pid & 0xff;
	pkt[3] = (uint8_t)(0x10 | (cc & 15));
	if (n < 184) {
		pkt[3] |= 0x20;
		pkt[4] = (uint8_t)(183 - n);
		if (pkt[4])
			pkt[5] = 0;
		off = 188 - n;
	}
	memcpy(pkt + off, payload, n);
}

/* a long-form section: table_id, 5 header bytes, body, CRC (len = total length) */
static size_t section(uint8_t *s, uint8_t table_id, uint16_t ext, size_t body, uint8_t fill)
{
	size_t len = 8 + body + 4;

	s[0] = table_id;
	s[1] = (uint8_t)(0xb0 | ((len - 3) >> 8));
	s[2] = (uint8_t)(len - 3);
	s[3] = (uint8_t)(ext >> 8);
	s[4] = (uint8_t)ext;
	s[5] = 0xc1;
	s[6] = 0;
	s[7] = 0;
	memset(s + 8, fill, body);
	uint32_t crc = ffdvb_crc32_mpeg(s, len - 4);
	s[len - 4] = (uint8_t)(crc >> 24);
	s[len - 3] = (uint8_t)(crc >> 16);
	s[len - 2] = (uint8_t)(crc >> 8);
	s[len - 1] = (uint8_t)crc;
	return len;
}

static struct ffdvb_dmx_pes_filter_params pes(uint16_t pid, int output)
{
	struct ffdvb_dmx_pes_filter_params p = { .pid = pid, .input = FFDVB_DMX_IN_FRONTEND,
						 .output = output, .pes_type = FFDVB_DMX_PES_OTHER,
						 .flags = FFDVB_DMX_IMMEDIATE_START };
	return p;
}

static struct ffdvb_dmx_sct_filter_params sct(uint16_t pid, uint8_t tid, uint8_t tmask,
					      uint32_t flags)
{
	struct ffdvb_dmx_sct_filter_params p;

	memset(&p, 0, sizeof(p));
	p.pid = pid;
	p.filter.filter[0] = tid;
	p.filter.mask[0] = tmask;
	p.flags = flags | FFDVB_DMX_IMMEDIATE_START;
	return p;
}

static void crc(void)
{
	uint8_t d[300];

	for (size_t i = 0; i < sizeof(d); i++)
		d[i] = (uint8_t)(i * 7 + 3);
	CHECK_EQ(ffdvb_crc32_mpeg(d, sizeof(d)), dvb_crc32(d, sizeof(d), 0xffffffffu));
	CHECK_EQ(ffdvb_crc32_mpeg((const uint8_t *)"123456789", 9), 0x0376e6e7); /* CRC-32/MPEG-2 */
}

static void start_rules(void)
{
	struct ffdvb_swdemux *d = ffdvb_swdemux_new();
	struct ffdvb_swdemux_out *o = ffdvb_swdemux_filter_new(d, notify, NULL);
	struct ffdvb_dmx_pes_filter_params p = pes(0x100, FFDVB_DMX_OUT_TAP);
	uint8_t b[188], pkt[188];

	CHECK_EQ(ffdvb_swdemux_read(o, b, sizeof(b)), 0); /* dmxdev: EOF before any start */
	CHECK_EQ(ffdvb_swdemux_poll(o), 0);
	CHECK_EQ(ffdvb_swdemux_start(o), -EINVAL);        /* no filter set */
	p.flags = 0;
	CHECK_EQ(ffdvb_swdemux_set_pes(o, &p), 0);
	CHECK_EQ(ffdvb_swdemux_read(o, b, sizeof(b)), 0); /* set, still no buffer */
	CHECK_EQ(ffdvb_swdemux_set_buffer_size(o, 0), -EINVAL);
	CHECK_EQ(ffdvb_swdemux_start(o), 0);
	CHECK_EQ(ffdvb_swdemux_set_buffer_size(o, 4096), -EBUSY);
	CHECK_EQ(ffdvb_swdemux_read(o, b, sizeof(b)), -EAGAIN);
	CHECK_EQ(ffdvb_swdemux_poll(o), 0);
	ts(pkt, 0x100, 1, 0, (const uint8_t *)"abc", 3);
	notified = 0;
	ffdvb_swdemux_packet(d, pkt);
	CHECK_EQ(notified, 1);
	CHECK_EQ(ffdvb_swdemux_poll(o), POLLIN | POLLRDNORM | POLLPRI);
	ffdvb_swdemux_stop(o); /* dmxdev flushes on stop */
	CHECK_EQ(ffdvb_swdemux_poll(o), 0);
	CHECK_EQ(ffdvb_swdemux_read(o, b, sizeof(b)), -EAGAIN);
	ffdvb_swdemux_free(d); /* frees the remaining outputs */

	/* dmxdev's DMX_SET_BUFFER_SIZE allocates at once: no more EOF after it */
	d = ffdvb_swdemux_new();
	o = ffdvb_swdemux_filter_new(d, NULL, NULL);
	CHECK_EQ(ffdvb_swdemux_set_buffer_size(o, FFDVB_SWDEMUX_FILTER_BUFFER), 0); /* no change */
	CHECK_EQ(ffdvb_swdemux_read(o, b, sizeof(b)), 0);
	CHECK_EQ(ffdvb_swdemux_set_buffer_size(o, 32768), 0);
	/* a client's huge size is refused before anything is allocated (16 GiB was accepted) */
	CHECK_EQ(ffdvb_swdemux_set_buffer_size(o, (size_t)16 << 30), -ENOMEM);
	CHECK_EQ(ffdvb_swdemux_set_buffer_size(o, FFDVB_DMX_BUFFER_MAX + 1), -ENOMEM);
	CHECK_EQ(ffdvb_swdemux_read(o, b, sizeof(b)), -EAGAIN);
	CHECK_EQ(ffdvb_swdemux_set_pes(o, &p), 0);
	CHECK_EQ(ffdvb_swdemux_start(o), 0);
	CHECK_EQ(ffdvb_swdemux_set_buffer_size(o, 32768), 0); /* same size: fine while running */
	ffdvb_swdemux_packet(d, pkt);
	CHECK_EQ(ffdvb_swdemux_read(o, b, sizeof(b)), 3);
	ffdvb_swdemux_free(d);

	/* many filters at the largest size: all buffers together are bounded (256 opens of
	 * demux0 x 32 MiB were 8 GiB); releasing gives the room back */
	enum { N = FFDVB_DMX_BUFFERS_MAX / FFDVB_DMX_BUFFER_MAX + 1 };
	struct ffdvb_swdemux_out *many[N];
	size_t before = ffdvb_dmxbuf_total();
	int refused = 0;

	d = ffdvb_swdemux_new();
	for (int i = 0; i < N; i++) {
		many[i] = ffdvb_swdemux_filter_new(d, NULL, NULL);
		refused += ffdvb_swdemux_set_buffer_size(many[i], FFDVB_DMX_BUFFER_MAX) == -ENOMEM;
	}
	CHECK_EQ(before, 0);
	CHECK_EQ(refused, 1);
	CHECK(ffdvb_dmxbuf_total() <= FFDVB_DMX_BUFFERS_MAX);
	ffdvb_swdemux_out_free(many[0]);
	CHECK_EQ(ffdvb_swdemux_set_buffer_size(many[N - 1], FFDVB_DMX_BUFFER_MAX), 0);
	ffdvb_swdemux_free(d);
	CHECK_EQ(ffdvb_dmxbuf_total(), 0);
}

static void pes_outputs(void)
{
	struct ffdvb_swdemux *d = ffdvb_swdemux_new();
	struct ffdvb_swdemux_out *tap = ffdvb_swdemux_filter_new(d, NULL, NULL);
	struct ffdvb_swdemux_out *tsd = ffdvb_swdemux_filter_new(d, NULL, NULL);
	struct ffdvb_swdemux_out *dec = ffdvb_swdemux_filter_new(d, NULL, NULL);
	struct ffdvb_swdemux_out *tst = ffdvb_swdemux_filter_new(d, NULL, NULL);
	struct ffdvb_swdemux_out *dvr = ffdvb_swdemux_dvr_new(d, NULL, NULL);
	struct ffdvb_swdemux_out *all = ffdvb_swdemux_filter_new(d, NULL, NULL);
	struct ffdvb_dmx_pes_filter_params p;
	uint8_t pk[4][188], b[1024], pay[184];

	for (int i = 0; i < 184; i++)
		pay[i] = (uint8_t)i;
	ts(pk[0], 0x100, 1, 0, pay, 184);
	ts(pk[1], 0x101, 1, 0, pay, 10);
	ts(pk[2], 0x100, 0, 1, pay + 50, 20);
	ts(pk[3], 0x200, 0, 0, pay, 5);
	p = pes(0x100, FFDVB_DMX_OUT_TAP);
	CHECK_EQ(ffdvb_swdemux_set_pes(tap, &p), 0);
	p = pes(0x100, FFDVB_DMX_OUT_TSDEMUX_TAP);
	CHECK_EQ(ffdvb_swdemux_set_pes(tsd, &p), 0);
	CHECK_EQ(ffdvb_swdemux_add_pid(tsd, 0x200), 0);
	p = pes(0x100, FFDVB_DMX_OUT_DECODER);
	CHECK_EQ(ffdvb_swdemux_set_pes(dec, &p), 0);
	p = pes(0x101, FFDVB_DMX_OUT_TS_TAP);
	CHECK_EQ(ffdvb_swdemux_set_pes(tst, &p), 0);
	p = pes(FFDVB_SWDEMUX_ALL_PIDS, FFDVB_DMX_OUT_TSDEMUX_TAP);
	CHECK_EQ(ffdvb_swdemux_set_pes(all, &p), 0);
	for (int i = 0; i < 4; i++)
		ffdvb_swdemux_packet(d, pk[i]);

	/* DMX_OUT_TAP: the payload bytes of the PID, adaptation fields skipped */
	CHECK_EQ(ffdvb_swdemux_read(tap, b, sizeof(b)), 204);
	CHECK(memcmp(b, pay, 184) == 0 && memcmp(b + 184, pay + 50, 20) == 0);
	/* DMX_OUT_TSDEMUX_TAP with an added PID: whole packets in order */
	CHECK_EQ(ffdvb_swdemux_read(tsd, b, sizeof(b)), 3 * 188);
	CHECK(memcmp(b, pk[0], 188) == 0 && memcmp(b + 188, pk[2], 188) == 0 &&
	      memcmp(b + 376, pk[3], 188) == 0);
	/* short reads take what was asked */
	CHECK_EQ(ffdvb_swdemux_read(all, b, 100), 100);
	CHECK_EQ(ffdvb_swdemux_buffered(all), 4 * 188 - 100);
	CHECK_EQ(ffdvb_swdemux_read(all, b + 100, sizeof(b)), 4 * 188 - 100);
	CHECK(memcmp(b + 188, pk[1], 188) == 0);
	/* DMX_OUT_DECODER: nothing for the client (the card taps the decoder data itself) */
	CHECK_EQ(ffdvb_swdemux_read(dec, b, sizeof(b)), -EAGAIN);
	/* DMX_OUT_TS_TAP: to dvr0, not to the demux file */
	CHECK_EQ(ffdvb_swdemux_read(tst, b, sizeof(b)), -EAGAIN);
	CHECK_EQ(ffdvb_swdemux_read(dvr, b, sizeof(b)), 188);
	CHECK(memcmp(b, pk[1], 188) == 0);
	CHECK_EQ(ffdvb_swdemux_read(dvr, b, sizeof(b)), -EAGAIN);

	/* dvb_demux copies a packet to dvr0 once, whatever number of TS_TAP feeds want it;
	 * the 0x2000 feed hands out whole packets even with DMX_OUT_TAP */
	{
		struct ffdvb_swdemux_out *tst2 = ffdvb_swdemux_filter_new(d, NULL, NULL);
		struct ffdvb_swdemux_out *alltap = ffdvb_swdemux_filter_new(d, NULL, NULL);

		p = pes(0x101, FFDVB_DMX_OUT_TS_TAP);
		CHECK_EQ(ffdvb_swdemux_set_pes(tst2, &p), 0);
		p = pes(FFDVB_SWDEMUX_ALL_PIDS, FFDVB_DMX_OUT_TAP);
		CHECK_EQ(ffdvb_swdemux_set_pes(alltap, &p), 0);
		ffdvb_swdemux_packet(d, pk[1]);
		CHECK_EQ(ffdvb_swdemux_read(dvr, b, sizeof(b)), 188);
		CHECK_EQ(ffdvb_swdemux_read(alltap, b, sizeof(b)), 188);
		CHECK(memcmp(b, pk[1], 188) == 0);
		ffdvb_swdemux_out_free(tst2);
		ffdvb_swdemux_out_free(alltap);
		CHECK_EQ(ffdvb_swdemux_read(all, b, sizeof(b)), 188);
	}

	/* DMX_REMOVE_PID */
	CHECK_EQ(ffdvb_swdemux_remove_pid(tsd, 0x100), 0);
	ffdvb_swdemux_packet(d, pk[0]);
	ffdvb_swdemux_packet(d, pk[3]);
	CHECK_EQ(ffdvb_swdemux_read(tsd, b, sizeof(b)), 188);
	CHECK(memcmp(b, pk[3], 188) == 0);
	CHECK_EQ(ffdvb_swdemux_stats(d)->packets, 7);
	ffdvb_swdemux_out_free(tap);
	ffdvb_swdemux_out_free(dvr);
	ffdvb_swdemux_free(d);
}

static void overflow(void)
{
	struct ffdvb_swdemux *d = ffdvb_swdemux_new();
	struct ffdvb_swdemux_out *o = ffdvb_swdemux_filter_new(d, notify, NULL);
	struct ffdvb_swdemux_out *dvr = ffdvb_swdemux_dvr_new(d, notify, NULL);
	struct ffdvb_swdemux_out *t = ffdvb_swdemux_filter_new(d, NULL, NULL);
	struct ffdvb_dmx_pes_filter_params p = pes(0x100, FFDVB_DMX_OUT_TSDEMUX_TAP);
	uint8_t pkt[188], b[2048];

	p.flags = 0;
	CHECK_EQ(ffdvb_swdemux_set_pes(o, &p), 0);
	CHECK_EQ(ffdvb_swdemux_set_buffer_size(o, 2 * 188 + 10), 0);
	CHECK_EQ(ffdvb_swdemux_start(o), 0);
	p = pes(0x100, FFDVB_DMX_OUT_TS_TAP);
	CHECK_EQ(ffdvb_swdemux_set_pes(t, &p), 0);
	CHECK_EQ(ffdvb_swdemux_set_buffer_size(dvr, 188), 0);
	ts(pkt, 0x100, 0, 0, (const uint8_t *)"x", 1);
	for (int i = 0; i < 4; i++)
		ffdvb_swdemux_packet(d, pkt);
	CHECK_EQ(ffdvb_swdemux_poll(o), POLLIN | POLLRDNORM | POLLPRI | POLLERR);
	CHECK_EQ(ffdvb_swdemux_stats(d)->overflows, 2);
	/* reported once, the buffer flushed, then data flows again */
	CHECK_EQ(ffdvb_swdemux_read(o, b, sizeof(b)), -EOVERFLOW);
	CHECK_EQ(ffdvb_swdemux_read(o, b, sizeof(b)), -EAGAIN);
	CHECK_EQ(ffdvb_swdemux_read(dvr, b, sizeof(b)), -EOVERFLOW);
	CHECK_EQ(ffdvb_swdemux_read(dvr, b, sizeof(b)), -EAGAIN);
	ffdvb_swdemux_packet(d, pkt);
	CHECK_EQ(ffdvb_swdemux_read(o, b, sizeof(b)), 188);
	CHECK_EQ(ffdvb_swdemux_read(dvr, b, sizeof(b)), 188);
	ffdvb_swdemux_free(d);
}

static void sections(void)
{
	struct ffdvb_swdemux *d = ffdvb_swdemux_new();
	struct ffdvb_swdemux_out *pat = ffdvb_swdemux_filter_new(d, NULL, NULL);
	struct ffdvb_swdemux_out *any = ffdvb_swdemux_filter_new(d, NULL, NULL);
	struct ffdvb_swdemux_out *neq = ffdvb_swdemux_filter_new(d, NULL, NULL);
	struct ffdvb_swdemux_out *one = ffdvb_swdemux_filter_new(d, NULL, NULL);
	struct ffdvb_dmx_sct_filter_params p;
	uint8_t s1[400], s2[64], s3[64], stream[800], pk[188], b[1024];
	size_t l1 = section(s1, 0x42, 0x1234, 300, 0xaa); /* spans 2 packets */
	size_t l2 = section(s2, 0x46, 0x0001, 20, 0x55);
	size_t l3 = section(s3, 0x42, 0x0002, 10, 0x11);
	size_t n = 0;
	int cc = 0;

	p = sct(0x11, 0x42, 0xff, FFDVB_DMX_CHECK_CRC);
	CHECK_EQ(ffdvb_swdemux_set_section(pat, &p), 0);
	p = sct(0x11, 0, 0, 0);
	CHECK_EQ(ffdvb_swdemux_set_section(any, &p), 0);
	/* filter byte 1 = section byte 3 (the two length bytes are skipped); mode 1 = "differ" */
	p = sct(0x11, 0, 0, 0);
	p.filter.filter[1] = 0x12;
	p.filter.mask[1] = 0xff;
	p.filter.mode[1] = 0xff;
	CHECK_EQ(ffdvb_swdemux_set_section(neq, &p), 0);
	p = sct(0x11, 0x42, 0xff, FFDVB_DMX_ONESHOT);
	CHECK_EQ(ffdvb_swdemux_set_section(one, &p), 0);

	/* s1 from a PUSI packet (pointer 0) into the next one, which also carries s2 and s3
	 * after its pointer_field, then stuffing */
	stream[n++] = 0;
	memcpy(stream + n, s1, l1);
	n += l1;
	memcpy(stream + n, s2, l2);
	n += l2;
	memcpy(stream + n, s3, l3);
	n += l3;
	ts(pk, 0x11, 1, cc++, stream, 184);
	ffdvb_swdemux_packet(d, pk);
	{
		uint8_t second[184];
		size_t rest = n - 184;

		second[0] = (uint8_t)(l1 - 183); /* bytes of s1 before the next section */
		memcpy(second + 1, stream + 184, rest);
		memset(second + 1 + rest, 0xff, 184 - 1 - rest);
		ts(pk, 0x11, 1, cc++, second, 184);
		ffdvb_swdemux_packet(d, pk);
	}
	/* the table_id filter with CRC check: s1 and s3, one section per read */
	CHECK_EQ(ffdvb_swdemux_read(pat, b, sizeof(b)), (long long)l1);
	CHECK(memcmp(b, s1, l1) == 0);
	CHECK_EQ(ffdvb_swdemux_read(pat, b, 2), 2); /* a short read: the section in pieces */
	CHECK_EQ(ffdvb_swdemux_read(pat, b + 2, 5), 5);
	CHECK_EQ(ffdvb_swdemux_read(pat, b + 7, sizeof(b)), (long long)l3 - 7);
	CHECK(memcmp(b, s3, l3) == 0);
	CHECK_EQ(ffdvb_swdemux_read(pat, b, sizeof(b)), -EAGAIN);
	/* no mask: all three */
	CHECK_EQ(ffdvb_swdemux_read(any, b, sizeof(b)), (long long)l1);
	CHECK_EQ(ffdvb_swdemux_read(any, b, sizeof(b)), (long long)l2);
	CHECK_EQ(ffdvb_swdemux_read(any, b, sizeof(b)), (long long)l3);
	/* "differ" on byte 3: s1 (0x12 there) is not delivered */
	CHECK_EQ(ffdvb_swdemux_read(neq, b, sizeof(b)), (long long)l2);
	CHECK(memcmp(b, s2, l2) == 0);
	CHECK_EQ(ffdvb_swdemux_read(neq, b, sizeof(b)), (long long)l3);
	CHECK_EQ(ffdvb_swdemux_read(neq, b, sizeof(b)), -EAGAIN);
	/* oneshot: the first match only */
	CHECK_EQ(ffdvb_swdemux_read(one, b, sizeof(b)), (long long)l1);
	CHECK_EQ(ffdvb_swdemux_read(one, b, sizeof(b)), -EAGAIN);
	CHECK_EQ(ffdvb_swdemux_stats(d)->sections, 2 + 3 + 2 + 1);

	/* a bad CRC is dropped with DMX_CHECK_CRC only */
	s3[l3 - 1] ^= 1;
	memset(stream, 0xff, sizeof(stream));
	stream[0] = 0;
	memcpy(stream + 1, s3, l3);
	ts(pk, 0x11, 1, cc++, stream, 184);
	ffdvb_swdemux_packet(d, pk);
	CHECK_EQ(ffdvb_swdemux_read(pat, b, sizeof(b)), -EAGAIN);
	CHECK_EQ(ffdvb_swdemux_stats(d)->crc_errors, 1);
	CHECK_EQ(ffdvb_swdemux_read(any, b, sizeof(b)), (long long)l3);

	/* a lost packet in the middle of s1: s1 is dropped, not delivered corrupt */
	memset(stream, 0xff, sizeof(stream));
	stream[0] = 0;
	memcpy(stream + 1, s1, l1);
	ts(pk, 0x11, 1, cc++, stream, 184);
	ffdvb_swdemux_packet(d, pk);
	cc++; /* the packet with the rest of s1 is lost */
	memset(stream, 0xff, sizeof(stream));
	stream[0] = 0; /* new section starts right away */
	memcpy(stream + 1, s2, l2);
	ts(pk, 0x11, 1, cc++, stream, 184);
	ffdvb_swdemux_packet(d, pk);
	CHECK_EQ(ffdvb_swdemux_read(any, b, sizeof(b)), (long long)l2);
	CHECK_EQ(ffdvb_swdemux_read(any, b, sizeof(b)), -EAGAIN);
	/* a duplicate packet (same counter) is ignored */
	ffdvb_swdemux_packet(d, pk);
	CHECK_EQ(ffdvb_swdemux_read(any, b, sizeof(b)), -EAGAIN);
	/* a discontinuity_indicator drops the open section too */
	memset(stream, 0xff, sizeof(stream));
	stream[0] = 0;
	memcpy(stream + 1, s1, l1);
	ts(pk, 0x11, 1, cc++, stream, 184);
	ffdvb_swdemux_packet(d, pk);
	ts(pk, 0x11, 0, cc++, stream + 184, 183 - 8); /* the rest of s1, with an AF ... */
	pk[5] |= 0x80;                                  /* ... saying "discontinuity" */
	ffdvb_swdemux_packet(d, pk);
	CHECK_EQ(ffdvb_swdemux_read(any, b, sizeof(b)), -EAGAIN);
	ffdvb_swdemux_free(d);
}

static void timeout(void)
{
	struct ffdvb_swdemux *d = ffdvb_swdemux_new();
	struct ffdvb_swdemux_out *o = ffdvb_swdemux_filter_new(d, notify, NULL);
	struct ffdvb_dmx_sct_filter_params p = sct(0x10, 0x40, 0xff, 0);
	uint8_t s[64], pk[188], b[256];
	size_t l = section(s, 0x40, 1, 5, 0);

	p.timeout = 500;
	CHECK_EQ(ffdvb_swdemux_set_section(o, &p), 0);
	CHECK_EQ(ffdvb_swdemux_timeout_ms(o), 500);
	notified = 0;
	ffdvb_swdemux_expire(o);
	CHECK_EQ(notified, 1);
	CHECK_EQ(ffdvb_swdemux_poll(o), POLLIN | POLLRDNORM | POLLPRI | POLLERR);
	CHECK_EQ(ffdvb_swdemux_read(o, b, sizeof(b)), -ETIMEDOUT);
	CHECK_EQ(ffdvb_swdemux_read(o, b, sizeof(b)), -EAGAIN);
	CHECK_EQ(ffdvb_swdemux_timeout_ms(o), 0);
	/* restarted: a section before the timeout disarms it */
	CHECK_EQ(ffdvb_swdemux_start(o), 0);
	CHECK_EQ(ffdvb_swdemux_timeout_ms(o), 500);
	b[0] = 0;
	memcpy(b + 1, s, l);
	ts(pk, 0x10, 1, 0, b, 1 + l);
	ffdvb_swdemux_packet(d, pk);
	CHECK_EQ(ffdvb_swdemux_timeout_ms(o), 0);
	ffdvb_swdemux_expire(o);
	CHECK_EQ(ffdvb_swdemux_read(o, b, sizeof(b)), (long long)l);
	ffdvb_swdemux_free(d);
}

static void input(void)
{
	struct ffdvb_swdemux *d = ffdvb_swdemux_new();
	struct ffdvb_swdemux_out *o = ffdvb_swdemux_filter_new(d, NULL, NULL);
	struct ffdvb_dmx_pes_filter_params p = pes(0x100, FFDVB_DMX_OUT_TSDEMUX_TAP);
	uint8_t stream[188 * 8], b[188 * 8];
	size_t n = 0;

	CHECK_EQ(ffdvb_swdemux_set_pes(o, &p), 0);
	memcpy(stream, "garbage", 7); /* leading garbage, then 3 packets, TEI on the second */
	n = 7;
	for (int i = 0; i < 3; i++, n += 188)
		ts(stream + n, 0x100, 0, i, (const uint8_t *)"pay", 3);
	stream[7 + 188 + 1] |= 0x80;
	stream[n++] = 0x47; /* a stray sync byte then garbage in the middle */
	stream[n++] = 0x12;
	ts(stream + n, 0x100, 0, 3, (const uint8_t *)"end", 3);
	n += 188;
	ffdvb_swdemux_feed(d, stream, n); /* lookahead sees the next sync byte */
	CHECK_EQ(ffdvb_swdemux_read(o, b, sizeof(b)), 3 * 188);
	CHECK(memcmp(b, stream + 7, 188) == 0 && memcmp(b + 188, stream + 7 + 376, 188) == 0);
	CHECK(memcmp(b + 376 + 185, "end", 3) == 0);
	CHECK_EQ(ffdvb_swdemux_stats(d)->tei, 1);
	CHECK_EQ(ffdvb_swdemux_stats(d)->packets, 4);
	CHECK_EQ(ffdvb_swdemux_stats(d)->skipped_bytes, 7 + 2);
	CHECK_EQ(ffdvb_swdemux_stats(d)->sync_losses, 1);
	/* clean packets fed in odd pieces come out whole */
	for (size_t i = 7; i < 7 + 3 * 188; i += 61)
		ffdvb_swdemux_feed(d, stream + i, 7 + 3 * 188 - i < 61 ? 7 + 3 * 188 - i : 61);
	CHECK_EQ(ffdvb_swdemux_read(o, b, sizeof(b)), 2 * 188);
	CHECK(memcmp(b, stream + 7, 188) == 0 && memcmp(b + 188, stream + 7 + 376, 188) == 0);
	CHECK_EQ(ffdvb_swdemux_stats(d)->tei, 2);
	ffdvb_swdemux_free(d);
}

/* random and mutated input through every kind of output with small buffers: no crash, reads
 * keep their rules (whole packets, whole sections, at most the buffer) */
static void random_input(void)
{
	struct ffdvb_swdemux *d = ffdvb_swdemux_new();
	struct ffdvb_swdemux_out *o[6];
	struct ffdvb_dmx_sct_filter_params sp = sct(0x10, 0, 0, 0);
	struct ffdvb_dmx_pes_filter_params pp;
	static uint8_t in[188 * 64], b[8192];
	uint32_t x = 12345;
	int bad = 0;

	for (int i = 0; i < 6; i++)
		o[i] = i < 5 ? ffdvb_swdemux_filter_new(d, NULL, NULL)
			     : ffdvb_swdemux_dvr_new(d, NULL, NULL);
	CHECK_EQ(ffdvb_swdemux_set_section(o[0], &sp), 0);
	sp = sct(0x10, 0x42, 0xf0, FFDVB_DMX_CHECK_CRC);
	CHECK_EQ(ffdvb_swdemux_set_section(o[1], &sp), 0);
	pp = pes(0x10, FFDVB_DMX_OUT_TAP);
	CHECK_EQ(ffdvb_swdemux_set_pes(o[2], &pp), 0);
	pp = pes(0x2000, FFDVB_DMX_OUT_TSDEMUX_TAP);
	CHECK_EQ(ffdvb_swdemux_set_pes(o[3], &pp), 0);
	pp = pes(0x10, FFDVB_DMX_OUT_TS_TAP);
	CHECK_EQ(ffdvb_swdemux_set_pes(o[4], &pp), 0);
	CHECK_EQ(ffdvb_swdemux_set_buffer_size(o[5], 4096), 0);
	for (int round = 0; round < 3000; round++) {
		size_t n = 0;

		/* mostly plausible packets on PIDs 0x10/0x11 with random bytes, some garbage */
		while (n + 188 <= sizeof(in) && n < (size_t)(188 * (1 + round % 40))) {
			x = x * 1103515245u + 12345u;
			for (int i = 0; i < 188; i++) {
				x ^= x << 13, x ^= x >> 17, x ^= x << 5;
				in[n + i] = (uint8_t)x;
			}
			if (x % 7) {
				in[n] = 0x47;
				in[n + 1] = (uint8_t)((x >> 8) & 0x40);
				in[n + 2] = 0x10 + (x >> 12) % 2;
				if (x % 3 == 0)
					in[n + 5] = (uint8_t)((x >> 3) % 20); /* short pointer fields */
			}
			n += 188 - (x % 97 == 0 ? x % 50 : 0);
		}
		ffdvb_swdemux_feed(d, in, n);
		for (int i = 0; i < 6; i++) {
			size_t len = (size_t)(1 + (x >> (i * 3)) % sizeof(b));
			ssize_t r;

			if (i == 3 || i == 5) /* whole packets stay aligned */
				len = 188 * (1 + len % 40);
			r = ffdvb_swdemux_read(o[i], b, len);

			if (r > (ssize_t)sizeof(b) || (r < 0 && r != -EAGAIN && r != -EOVERFLOW))
				bad++;
			if ((i == 3 || i == 5) && r > 0 && (b[0] != 0x47 || r % 188))
				bad++;
		}
	}
	CHECK_EQ(bad, 0);
	CHECK(ffdvb_swdemux_stats(d)->packets > 10000);
	CHECK(ffdvb_swdemux_stats(d)->sections > 0);
	printf("random: %llu packets, %llu sections, %llu CRC drops, %llu overflows, %llu bytes "
	       "skipped\n",
	       (unsigned long long)ffdvb_swdemux_stats(d)->packets,
	       (unsigned long long)ffdvb_swdemux_stats(d)->sections,
	       (unsigned long long)ffdvb_swdemux_stats(d)->crc_errors,
	       (unsigned long long)ffdvb_swdemux_stats(d)->overflows,
	       (unsigned long long)ffdvb_swdemux_stats(d)->skipped_bytes);
	ffdvb_swdemux_free(d);
}

int main(void)
{
	crc();
	start_rules();
	pes_outputs();
	overflow();
	sections();
	timeout();
	input();
	random_input();
	return finish("test_swdemux");
}
