/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Passthrough (es_set_passthrough): AC-3, DTS and E-AC-3 through the card's path come out as
 * IEC 61937 bursts in S16 stereo (48 kHz; E-AC-3 192 kHz, four stereo samples per 48 kHz
 * sample): every burst starts with Pa Pb (F872 4E1F as little-endian words), says its data
 * type (1 AC-3, 11 DTS type I, 21 E-AC-3) and length, and the payloads put together are byte
 * for byte the stream's own frames (ffmpeg -c copy of the same file); one burst per frame,
 * lasting as long as the frame's sound, the chunk pts continuous. E-AC-3 with only AC-3
 * passing, and AC-3 with passthrough off, are decoded as before. */
#include "test_es_util.h"

/* the stream's audio frames as ffmpeg copies them out (format "ac3" or "dts") */
static uint8_t *ref_frames(const char *file, const char *format, size_t *len)
{
	char cmd[1024];
	size_t cap = 1 << 20, r;
	uint8_t *buf = malloc(cap);
	FILE *p;

	snprintf(cmd, sizeof(cmd), "ffmpeg -nostdin -v error -i '%s' -map 0:a -c copy -f %s -", file,
		 format);
	p = popen(cmd, "r");
	*len = 0;
	while (p && buf && (r = fread(buf + *len, 1, cap - *len, p)) > 0) {
		*len += r;
		if (*len == cap)
			buf = realloc(buf, cap *= 2);
	}
	if (p)
		pclose(p);
	return buf;
}

struct bursts {
	size_t n, bad_type, payload_len, max_len, min_len;
	uint8_t *payload;
};

/* walks the bursts in the collected sound: each one's payload appended (words swapped back) */
static void read_bursts(const struct collect *c, int type, struct bursts *b)
{
	const uint8_t *s = (const uint8_t *)c->pcm;
	size_t len = c->pcm_bytes;

	memset(b, 0, sizeof(*b));
	b->payload = malloc(len);
	b->min_len = SIZE_MAX;
	for (size_t off = 0; off + 8 <= len;) {
		if (!(s[off] == 0x72 && s[off + 1] == 0xF8 && s[off + 2] == 0x1F && s[off + 3] == 0x4E)) {
			off += 4;
			continue;
		}
		size_t pd = (size_t)(s[off + 6] | s[off + 7] << 8);
		size_t bytes = type == 21 ? pd : pd / 8; /* E-AC-3's length is in bytes, not bits */

		b->n++;
		b->bad_type += (s[off + 4] & 0x1F) != type;
		if (off + 8 + bytes > len)
			break;
		for (size_t k = 0; k < bytes; k++)
			b->payload[b->payload_len++] = s[off + 8 + (k ^ 1)];
		off += 8 + ((bytes + 1) & ~(size_t)1);
	}
	for (size_t i = 0; i < c->nchunks; i++) {
		b->max_len = c->chunk[i].nb > b->max_len ? c->chunk[i].nb : b->max_len;
		b->min_len = c->chunk[i].nb < b->min_len ? c->chunk[i].nb : b->min_len;
	}
}

static void check_pass(const char *name, const char *format, unsigned int pass, int type,
		       size_t samples)
{
	struct feeder fd;
	struct es_stats st;
	struct bursts b;
	size_t nref;
	uint8_t *ref;

	test_gen_stream(name);
	feeder_init(&fd, 0, 1, ES_DEINTERLACE_OFF);
	es_set_passthrough(fd.a, pass);
	feeder_file(&fd, name);
	es_get_stats(fd.a, &st);
	ref = ref_frames(name, format, &nref);
	read_bursts(&fd.ca, type, &b);
	printf("%s passed through: %zu bursts (%llu units), %zu..%zu samples each, %zu payload "
	       "bytes (ffmpeg's %s: %zu), %s\n",
	       name, b.n, (unsigned long long)st.units, b.min_len, b.max_len, b.payload_len, format,
	       nref, b.payload_len == nref && !memcmp(b.payload, ref, nref) ? "equal" : "DIFFER");
	CHECK(nref > 0 && b.n > 0);
	EXPECT_EQ("bursts, one per unit", b.n, st.units);
	EXPECT_EQ("bursts counted", st.passthrough_bursts, b.n);
	EXPECT_EQ("chunks, one per burst", fd.ca.nchunks, b.n);
	EXPECT_EQ("bursts of another data type", b.bad_type, 0);
	EXPECT_EQ("payload bytes = the stream's frames", b.payload_len, nref);
	CHECK_LABELLED("payload equal to the stream's frames",
		       b.payload_len == nref && !memcmp(b.payload, ref, nref));
	EXPECT_EQ("longest burst, samples", b.max_len, samples);
	EXPECT_EQ("shortest burst, samples", b.min_len, samples);
	EXPECT_EQ("chunks not S16/stereo/48k", fd.ca.bad_format, 0);
	EXPECT_EQ("chunk pts breaks", audio_pts_breaks(&fd.ca), 0);
	CHECK(fd.ca.nchunks > 0 && fd.ca.chunk[0].pts != AV_NOPTS_VALUE);
	CHECK_EQ(st.decode_errors, 0);
	free(b.payload);
	free(ref);
	feeder_free(&fd);
}

/* passthrough set for other formats: decoded sound, no burst */
static void check_decoded(const char *name, unsigned int pass)
{
	struct feeder fd;
	struct es_stats st;
	struct bursts b;

	test_gen_stream(name);
	feeder_init(&fd, 0, 1, ES_DEINTERLACE_OFF);
	es_set_passthrough(fd.a, pass);
	feeder_file(&fd, name);
	es_get_stats(fd.a, &st);
	read_bursts(&fd.ca, 1, &b);
	printf("%s with passthrough %#x: %s, %zu samples, %zu bursts\n", name, pass, st.codec,
	       fd.ca.nsamples, b.n);
	CHECK(fd.ca.nsamples > 48000);
	EXPECT_EQ("bursts", b.n, 0);
	EXPECT_EQ("bursts counted", st.passthrough_bursts, 0);
	free(b.payload);
	feeder_free(&fd);
}

int main(void)
{
	av_log_set_level(AV_LOG_ERROR);
	check_pass("sd_mpeg2_ac3.ts", "ac3", ES_PASS_AC3, 1, 1536);
	check_pass("sd_mpeg2_ac3.mpg", "ac3", ES_PASS_AC3 | ES_PASS_DTS, 1, 1536);
	check_pass("dts.ts", "dts", ES_PASS_DTS, 11, 512);
	check_pass("eac3.ts", "eac3", ES_PASS_EAC3, 21, 1536);
	check_decoded("eac3.ts", ES_PASS_AC3 | ES_PASS_DTS);
	check_decoded("sd_mpeg2_ac3.ts", ES_PASS_EAC3);
	check_decoded("sd_mpeg2_ac3.ts", ES_PASS_DTS);
	check_decoded("dts.ts", ES_PASS_AC3);
	return finish("test_es_passthrough");
}
