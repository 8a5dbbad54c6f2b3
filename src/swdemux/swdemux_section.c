/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Section filters of the software demux: reassembly across TS packets (pointer_field, several
 * sections per packet, stuffing), dvb_demux's filter/mask/mode match, DMX_CHECK_CRC and
 * DMX_ONESHOT. */
#include <string.h>

#include "swdemux_internal.h"

uint32_t ffdvb_crc32_mpeg(const uint8_t *data, size_t len)
{
	uint32_t crc = 0xffffffffu;

	for (size_t i = 0; i < len; i++) {
		crc ^= (uint32_t)data[i] << 24;
		for (int b = 0; b < 8; b++)
			crc = (crc & 0x80000000u) ? (crc << 1) ^ 0x04c11db7u : crc << 1;
	}
	return crc;
}

/* dmxdev puts filter byte 0 on table_id and bytes 1..15 on section bytes 3..17 (the two
 * length bytes are never compared); its mode bit 1 means "must differ" (dmxdev inverts the
 * mode, dvb_demux then needs all "equal" bits to match and, if there are any "differ" bits,
 * at least one of them to differ). */
void ffdvb_section_match_prepare(struct ffdvb_section_match *m, const uint8_t *filter,
				 const uint8_t *mask, const uint8_t *mode)
{
	memset(m, 0, sizeof(*m));
	for (int i = 0; i < FFDVB_DMX_FILTER_SIZE; i++) {
		int at = i ? i + 2 : 0;

		m->value[at] = filter[i];
		m->mask_eq[at] = mask[i] & (uint8_t)~mode[i];
		m->mask_neq[at] = mask[i] & mode[i];
		m->check_neq |= m->mask_neq[at] != 0;
	}
}

int ffdvb_section_matches(const struct ffdvb_section_match *m, const uint8_t *sec, size_t len)
{
	uint8_t neq = 0;

	for (size_t i = 0; i < sizeof(m->value); i++) {
		uint8_t x = m->value[i] ^ (i < len ? sec[i] : 0);

		if (m->mask_eq[i] & x)
			return 0;
		neq |= m->mask_neq[i] & x;
	}
	return !m->check_neq || neq;
}

void swsec_prepare(struct ffdvb_swdemux_out *o)
{
	const struct ffdvb_dmx_filter *f = &o->sct.filter;

	ffdvb_section_match_prepare(&o->match, f->filter, f->mask, f->mode);
	memset(&o->asm_, 0, sizeof(o->asm_));
	o->asm_.cc = -1;
}

static void section_done(struct ffdvb_swdemux_out *o, const uint8_t *sec, size_t len)
{
	struct ffdvb_swdemux_stats *st = &o->dmx->stats;

	if (o->state != SWOUT_GO || !ffdvb_section_matches(&o->match, sec, len))
		return;
	/* dvb_demux checks the CRC only of sections with section_syntax_indicator */
	if ((o->sct.flags & FFDVB_DMX_CHECK_CRC) && (sec[1] & 0x80) &&
	    ffdvb_crc32_mpeg(sec, len) != 0) {
		st->crc_errors++;
		return;
	}
	st->sections++;
	o->got_section = 1;
	swout_write(o, sec, len, NULL, 0);
	if (o->sct.flags & FFDVB_DMX_ONESHOT)
		o->state = SWOUT_DONE;
}

/* Payload bytes of the current section stream; stops at stuffing (0xff where a table_id is
 * due: the rest of the packet is stuffing). */
static void section_bytes(struct ffdvb_swdemux_out *o, const uint8_t *p, size_t n)
{
	struct swsec *a = &o->asm_;

	while (n && a->synced && o->state == SWOUT_GO) {
		size_t need, take;

		if (a->len == 0 && p[0] == 0xff) {
			a->synced = 0; /* stuffing until the next payload_unit_start */
			return;
		}
		if (a->len < 3) {
			take = 3 - a->len < n ? 3 - a->len : n;
			memcpy(a->sec + a->len, p, take);
			a->len += take;
			p += take;
			n -= take;
			if (a->len < 3)
				return;
		}
		need = 3 + (size_t)(((a->sec[1] & 0x0f) << 8) | a->sec[2]);
		if (need > FFDVB_SWDEMUX_SECTION_MAX) {
			a->synced = 0;
			a->len = 0;
			return;
		}
		take = need - a->len < n ? need - a->len : n;
		memcpy(a->sec + a->len, p, take);
		a->len += take;
		p += take;
		n -= take;
		if (a->len == need) {
			a->len = 0;
			section_done(o, a->sec, need);
		}
	}
}

void swsec_packet(struct ffdvb_swdemux_out *o, const uint8_t *pkt)
{
	struct swsec *a = &o->asm_;
	size_t off = 4, n;
	int cc = pkt[3] & 0x0f;

	if (!(pkt[3] & 0x10))
		return; /* no payload: the counter does not advance */
	if (pkt[3] & 0x20) {
		if (pkt[4] > 182)
			return;
		off += 1 + pkt[4];
	}
	if (a->cc >= 0 && cc == a->cc)
		return; /* a duplicate packet (13818-1: discard; dvb_demux would resync) */
	if ((a->cc >= 0 && cc != ((a->cc + 1) & 0x0f)) ||
	    ((pkt[3] & 0x20) && pkt[4] && (pkt[5] & 0x80))) {
		a->synced = 0; /* lost packets or discontinuity_indicator: the open section is */
		a->len = 0;    /* incomplete, wait for the next payload_unit_start */
	}
	a->cc = cc;
	n = FFDVB_TS_PACKET_SIZE - off;
	if (pkt[1] & 0x40) {
		size_t ptr = pkt[off];

		off++;
		n--;
		if (ptr > n) {
			a->synced = 0;
			a->len = 0;
			return;
		}
		if (a->synced && a->len) /* the pointer_field bytes end the open section */
			section_bytes(o, pkt + off, ptr);
		a->len = 0;
		a->synced = 1;
		section_bytes(o, pkt + off + ptr, n - ptr);
	} else if (a->synced) {
		section_bytes(o, pkt + off, n);
	}
}
