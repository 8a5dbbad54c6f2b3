/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The TS path of video0/audio0 writes (docs/av7110.md §4.1): one 188-byte packet at a time
 * into the same repacker. Header fields per ISO/IEC 13818-1 §2.4.3.2 (transport packet) and
 * §2.4.3.4 (adaptation field). */
#include "repacker_internal.h"

#define TS_HEADER_SIZE 4

size_t ffdvb_repacker_ts_packet(struct ffdvb_repacker *r, const uint8_t *pkt)
{
	unsigned int afc = (pkt[3] >> 4) & 3; /* adaptation_field_control */
	size_t off = TS_HEADER_SIZE;

	/* the sync byte and the PID are not looked at: everything written belongs to this node */
	if (pkt[1] & 0x80) { /* transport_error_indicator */
		r->stats.ts_tei++;
		ffdvb_repacker_reset(r);
		return 0;
	}
	if (!(afc & 1)) { /* '10' adaptation field only, '00' reserved */
		r->stats.ts_no_payload++;
		return 0;
	}
	if (afc & 2)
		off += 1 + (size_t)pkt[4]; /* adaptation_field_length */
	if (off > FFDVB_TS_PACKET_SIZE) {
		r->stats.ts_bad_af++;
		return 0;
	}
	if (off == FFDVB_TS_PACKET_SIZE) { /* adaptation field fills the packet */
		r->stats.ts_no_payload++;
		return 0;
	}
	/* payload_unit_start_indicator: a new PES starts here, ending an open unbounded one */
	if ((pkt[1] & 0x40) && r->state == FFDVB_RP_DATA && r->unbounded) {
		r->stats.unbounded_closed++;
		rp_out_close(r);
	}
	rp_feed(r, pkt + off, FFDVB_TS_PACKET_SIZE - off);
	return FFDVB_TS_PACKET_SIZE - off;
}

void ffdvb_repacker_flush(struct ffdvb_repacker *r)
{
	if (r->state == FFDVB_RP_DATA && r->unbounded)
		rp_out_close(r);
}
