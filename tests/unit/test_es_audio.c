/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Audio through the card's path (repacker -> es) against the ffmpeg CLI's decode of the same
 * file converted to s16le 48 kHz stereo: sample count within one frame, samples equal (or a
 * small RMS difference where resampling is involved), every chunk S16/stereo/48 kHz, chunk
 * pts continuing by their durations. MP2 (TS, PS), MP3 44.1 kHz, AC-3 5.1 downmix (DVB raw),
 * AC-3 as DVD substream, E-AC-3, DVD LPCM from ffmpeg's vob muxer, MPlayer-style LPCM PES
 * split by the repacker, IEC 61937 AC-3 bursts inside LPCM (both word orders). */
#include "test_es_util.h"

struct aexpect {
	const char *name, *codec;
	double max_rms; /* 16-bit units */
};

static void compare_pcm(const char *what, const struct collect *c, const int16_t *ref, size_t nref,
			double max_rms)
{
	size_t n = c->nsamples < nref ? c->nsamples : nref, differ;
	double rms = pcm_rms_diff(c->pcm, ref, n, &differ);

	printf("%s: %zu samples (ffmpeg %zu), %zu of %zu values differ, RMS difference %.3f, "
	       "%zu chunks\n", what, c->nsamples, nref, differ, 2 * n, rms, c->nchunks);
	CHECK(nref > 0);
	CHECK_LABELLED("sample count within one frame of ffmpeg's",
		       (c->nsamples > nref ? c->nsamples - nref : nref - c->nsamples) <= 1536);
	CHECK_LABELLED("RMS difference to ffmpeg's decode", rms <= max_rms);
	EXPECT_EQ("chunks not S16/stereo/48k", c->bad_format, 0);
	EXPECT_EQ("chunk pts breaks", audio_pts_breaks(c), 0);
	CHECK(c->nchunks > 0 && c->chunk[0].pts != AV_NOPTS_VALUE);
}

static void check_audio(const struct aexpect *e)
{
	struct feeder fd;
	struct es_stats st;
	int16_t *ref;
	size_t nref;

	test_gen_stream(e->name);
	feeder_init(&fd, 0, 1, ES_DEINTERLACE_OFF);
	feeder_file(&fd, e->name);
	es_get_stats(fd.a, &st);
	nref = ref_pcm(e->name, &ref);
	compare_pcm(e->name, &fd.ca, ref, nref, e->max_rms);
	printf("  codec %s, %llu units, %llu frames\n", st.codec, (unsigned long long)st.units,
	       (unsigned long long)st.frames);
	CHECK_EQ(strcmp(st.codec, e->codec), 0);
	CHECK_EQ(st.decode_errors, 0);
	CHECK_EQ(st.bad_pes, 0);
	CHECK_EQ(st.codec_changes, 0);
	free(ref);
	feeder_free(&fd);
}

/* ---- MPlayer's LPCM: PES 0xBD, header 81 80 05 + PTS, then A0 07 00 04 0C 01|(f<<4) 80 and
 * 2032 bytes of big-endian stereo: 2053 bytes, so the repacker splits every packet ---------- */

static size_t mplayer_pes(uint8_t *b, int64_t pts, int freq_id, const int16_t *pcm, size_t frames)
{
	size_t n = 0, len;

	b[n++] = 0;
	b[n++] = 0;
	b[n++] = 1;
	b[n++] = 0xBD;
	n += 2; /* length below */
	b[n++] = 0x81;
	if (pts >= 0) {
		b[n++] = 0x80;
		b[n++] = 0x05;
		b[n++] = (uint8_t)(0x21 | ((pts >> 29) & 0x0E));
		b[n++] = (uint8_t)(pts >> 22);
		b[n++] = (uint8_t)(0x01 | ((pts >> 14) & 0xFE));
		b[n++] = (uint8_t)(pts >> 7);
		b[n++] = (uint8_t)(0x01 | ((pts << 1) & 0xFE));
	} else {
		b[n++] = 0x00;
		b[n++] = 0x00;
	}
	b[n++] = 0xA0;
	b[n++] = 0x07;
	b[n++] = 0x00;
	b[n++] = 0x04;
	b[n++] = 0x0C;
	b[n++] = (uint8_t)(0x01 | (freq_id << 4));
	b[n++] = 0x80;
	for (size_t i = 0; i < 2 * frames; i++) {
		b[n++] = (uint8_t)((uint16_t)pcm[i] >> 8);
		b[n++] = (uint8_t)pcm[i];
	}
	len = n - 6;
	b[4] = (uint8_t)(len >> 8);
	b[5] = (uint8_t)len;
	return n;
}

static void tone(int16_t *pcm, size_t frames, int rate)
{
	for (size_t i = 0; i < frames; i++) {
		pcm[2 * i] = (int16_t)lrint(12000 * sin(2 * M_PI * 440 * (double)i / rate));
		pcm[2 * i + 1] = (int16_t)lrint(-9000 * sin(2 * M_PI * 660 * (double)i / rate));
	}
}

static void check_mplayer_lpcm(int freq_id, int rate)
{
	enum { FRAMES = 508, PACKETS = 100 };
	static int16_t pcm[FRAMES * PACKETS * 2];
	struct feeder fd;
	struct es_stats st;
	uint8_t pes[2100];
	int64_t base = 900000;
	size_t total = (size_t)FRAMES * PACKETS, split = 0;

	tone(pcm, total, rate);
	feeder_init(&fd, 0, 1, ES_DEINTERLACE_OFF);
	for (int i = 0; i < PACKETS; i++) {
		/* every third packet without PTS, as MPlayer sends some */
		int64_t pts = i % 3 == 2 ? -1 : base + (int64_t)i * FRAMES * 90000 / rate;
		size_t n = mplayer_pes(pes, pts, freq_id, pcm + 2 * (size_t)i * FRAMES, FRAMES);

		split += n > FFDVB_PES_OUT_MAX;
		ffdvb_repacker_feed(&fd.rp, pes, n);
	}
	feeder_end(&fd);
	es_get_stats(fd.a, &st);
	printf("MPlayer LPCM %d Hz: %zu packets in (%zu split by the repacker), %zu samples out "
	       "(in %zu), codec %s\n", rate, (size_t)PACKETS, split, fd.ca.nsamples, total, st.codec);
	CHECK(split > 0);
	CHECK_EQ(strcmp(st.codec, "pcm_dvd"), 0);
	CHECK_EQ(st.bad_pes, 0);
	CHECK_EQ(st.decode_errors, 0);
	CHECK_EQ(fd.ca.bad_format, 0);
	CHECK(fd.ca.nchunks > 0 && fd.ca.chunk[0].pts == base);
	EXPECT_EQ("chunk pts breaks", audio_pts_breaks(&fd.ca), 0);
	if (rate == FFDVB_AUDIO_RATE) {
		EXPECT_EQ("samples out", fd.ca.nsamples, total);
		CHECK_LABELLED("samples equal to what was sent",
			       fd.ca.nsamples == total && !memcmp(fd.ca.pcm, pcm, total * 4));
	} else {
		size_t want = (size_t)((double)total * FFDVB_AUDIO_RATE / rate), peak = 0;

		CHECK_LABELLED("resampled sample count", fd.ca.nsamples + 64 >= want &&
							   fd.ca.nsamples <= want + 64);
		for (size_t i = 0; i < fd.ca.nsamples; i++)
			if ((size_t)abs(fd.ca.pcm[2 * i]) > peak)
				peak = (size_t)abs(fd.ca.pcm[2 * i]);
		printf("  resampled: %zu samples (expected about %zu), left peak %zu\n",
		       fd.ca.nsamples, want, peak);
		CHECK(peak > 11500 && peak < 12500);
	}
	feeder_free(&fd);
}

/* mono LPCM (channels-1 = 0): both output channels carry the mono samples at full level */
static void check_mono_lpcm(void)
{
	enum { FRAMES = 1000, PACKETS = 20 };
	static int16_t mono[FRAMES * PACKETS], pairs[FRAMES * PACKETS / 2][2];
	struct feeder fd;
	uint8_t pes[2100];
	size_t total = (size_t)FRAMES * PACKETS, same = 0;

	for (size_t i = 0; i < total; i++)
		mono[i] = (int16_t)lrint(15000 * sin(2 * M_PI * 1000 * (double)i / 48000));
	feeder_init(&fd, 0, 1, ES_DEINTERLACE_OFF);
	for (int i = 0; i < PACKETS; i++) {
		/* FRAMES mono samples = FRAMES / 2 "stereo frames" of mplayer_pes */
		memcpy(pairs, mono + (size_t)i * FRAMES, FRAMES * 2);
		size_t n = mplayer_pes(pes, 90000 + (int64_t)i * FRAMES * 90000 / 48000, 0,
				       &pairs[0][0], FRAMES / 2);

		pes[14 + 5] = 0x00; /* quantization 16 bit, 48 kHz, channels-1 = 0 */
		ffdvb_repacker_feed(&fd.rp, pes, n);
	}
	feeder_end(&fd);
	for (size_t i = 0; i < fd.ca.nsamples && i < total; i++)
		same += fd.ca.pcm[2 * i] == mono[i] && fd.ca.pcm[2 * i + 1] == mono[i];
	printf("mono LPCM: %zu samples out (in %zu), %zu on both channels unchanged\n",
	       fd.ca.nsamples, total, same);
	EXPECT_EQ("mono samples out", fd.ca.nsamples, total);
	EXPECT_EQ("mono samples on both channels at full level", same, total);
	EXPECT_EQ("chunk pts breaks", audio_pts_breaks(&fd.ca), 0);
	feeder_free(&fd);
}

/* ---- IEC 61937 AC-3 bursts in LPCM (MPlayer -ac hwac3) ----------------------------------- */

static size_t ac3_frame_bytes(const uint8_t *p)
{
	static const int kbps[] = { 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320,
				    384, 448, 512, 576, 640 };
	int code = p[4] & 0x3F;

	if (p[0] != 0x0B || p[1] != 0x77 || (p[4] >> 6) != 0 || code / 2 >= 19)
		return 0;
	return (size_t)kbps[code / 2] * 4; /* 48 kHz: 1536 samples = 32 ms */
}

static void check_iec(int little_endian)
{
	enum { BURST = 6144, CHUNK = 2000 };
	struct feeder fd;
	struct es_stats st;
	int16_t *ref;
	size_t len, nref, nb = 0, frames = 0;
	uint8_t *ac3 = test_read_file("tone.ac3", &len), *iec, pes[2100];
	char what[64];

	iec = calloc(len / 256 + 1, BURST);
	for (size_t off = 0, fb; off + 6 < len && (fb = ac3_frame_bytes(ac3 + off)); off += fb) {
		uint8_t *b = iec + nb;

		b[0] = 0xF8, b[1] = 0x72, b[2] = 0x4E, b[3] = 0x1F;
		b[4] = 0x00, b[5] = 0x01; /* Pc: AC-3 */
		b[6] = (uint8_t)((fb * 8) >> 8), b[7] = (uint8_t)(fb * 8);
		memcpy(b + 8, ac3 + off, fb);
		if (little_endian)
			for (size_t i = 0; i < BURST; i += 2) {
				uint8_t t = b[i];

				b[i] = b[i + 1];
				b[i + 1] = t;
			}
		nb += BURST;
		frames++;
	}
	feeder_init(&fd, 0, 1, ES_DEINTERLACE_OFF);
	for (size_t off = 0; off < nb; off += CHUNK) {
		size_t n = nb - off < CHUNK ? nb - off : CHUNK, k = 0;
		int64_t pts = 180000 + (int64_t)(off / 4) * 90000 / 48000;
		int16_t words[CHUNK / 2];

		/* mplayer_pes wants host-order samples: the bytes go out big-endian */
		for (size_t i = 0; i < n / 2; i++)
			words[i] = (int16_t)(iec[off + 2 * i] << 8 | iec[off + 2 * i + 1]);
		k = mplayer_pes(pes, pts, 0, words, n / 4);
		ffdvb_repacker_feed(&fd.rp, pes, k);
	}
	feeder_end(&fd);
	es_get_stats(fd.a, &st);
	nref = ref_pcm("tone.ac3", &ref);
	snprintf(what, sizeof(what), "IEC 61937 %s (%zu AC-3 frames)",
		 little_endian ? "little-endian" : "big-endian", frames);
	compare_pcm(what, &fd.ca, ref, nref, 1.0);
	CHECK_EQ(strcmp(st.codec, "ac3"), 0);
	CHECK(fd.ca.nchunks > 0 && fd.ca.chunk[0].pts == 180000);
	CHECK_EQ(st.decode_errors, 0);
	free(ref);
	free(iec);
	free(ac3);
	feeder_free(&fd);
}

/* DVD private stream 1: AC-3 substream 0x80 (4-byte substream header) between subpicture
 * PES (0x20) larger than 2048 bytes, so that the repacker splits them: the subpictures and
 * their continuation fragments are skipped, the AC-3 decodes as ffmpeg decodes tone.ac3 */
static size_t bd_pes(uint8_t *b, int64_t pts, const uint8_t *sub, size_t nsub, const uint8_t *p,
		     size_t n)
{
	size_t k = 0;

	b[k++] = 0, b[k++] = 0, b[k++] = 1, b[k++] = 0xBD, k += 2;
	b[k++] = 0x81;
	b[k++] = pts >= 0 ? 0x80 : 0x00;
	b[k++] = pts >= 0 ? 5 : 0;
	if (pts >= 0) {
		b[k++] = (uint8_t)(0x21 | ((pts >> 29) & 0x0E));
		b[k++] = (uint8_t)(pts >> 22);
		b[k++] = (uint8_t)(0x01 | ((pts >> 14) & 0xFE));
		b[k++] = (uint8_t)(pts >> 7);
		b[k++] = (uint8_t)(0x01 | ((pts << 1) & 0xFE));
	}
	memcpy(b + k, sub, nsub);
	memcpy(b + k + nsub, p, n);
	k += nsub + n;
	b[4] = (uint8_t)((k - 6) >> 8);
	b[5] = (uint8_t)(k - 6);
	return k;
}

static void check_dvd_ac3_with_spu(void)
{
	static const uint8_t ac3_sub[] = { 0x80, 0x01, 0x00, 0x01 }, spu_sub[] = { 0x20 };
	struct feeder fd;
	struct es_stats st;
	int16_t *ref;
	size_t len, nref, spu_bytes = 0;
	uint8_t *ac3 = test_read_file("tone.ac3", &len), pes[4200], junk[3000];

	for (size_t i = 0; i < sizeof(junk); i++) /* AC-3 sync words inside, to tempt a parser */
		junk[i] = i % 97 == 0 ? 0x0B : i % 97 == 1 ? 0x77 : (uint8_t)(i * 7);
	feeder_init(&fd, 0, 1, ES_DEINTERLACE_OFF);
	for (size_t off = 0, i = 0; off < len; off += 1800, i++) {
		size_t n = len - off < 1800 ? len - off : 1800;

		ffdvb_repacker_feed(&fd.rp, pes, bd_pes(pes, i == 0 ? 90000 : -1, ac3_sub, 4,
							ac3 + off, n));
		if (i % 3 == 1) {
			ffdvb_repacker_feed(&fd.rp, pes, bd_pes(pes, 90000, spu_sub, 1, junk, 3000));
			spu_bytes += 3001;
		}
	}
	feeder_end(&fd);
	es_get_stats(fd.a, &st);
	nref = ref_pcm("tone.ac3", &ref);
	compare_pcm("DVD AC-3 substream between split subpicture PES", &fd.ca, ref, nref, 0.0);
	printf("  %llu bytes skipped (%zu subpicture bytes sent)\n",
	       (unsigned long long)st.skipped_bytes, spu_bytes);
	CHECK_EQ(st.skipped_bytes, spu_bytes);
	CHECK_EQ(st.decode_errors, 0);
	CHECK_EQ(strcmp(st.codec, "ac3"), 0);
	free(ref);
	free(ac3);
	feeder_free(&fd);
}

int main(void)
{
	static const struct aexpect streams[] = {
		{ "sd_mpeg2_mp2.ts", "mp2", 1.0 },
		{ "sd_mpeg2_mp2.mpg", "mp2", 1.0 },
		{ "sd_mpeg1_mp3.mpg", "mp3float", 2.0 },
		{ "sd_mpeg2_ac3.ts", "ac3", 1.0 },
		{ "sd_mpeg2_ac3.mpg", "ac3", 1.0 },
		{ "eac3.ts", "eac3", 1.0 },
		{ "sd_hevc_aac.ts", "aac", 1.0 },
		{ "sd_h264_latm.ts", "aac_latm", 1.0 },
		{ "dts.ts", "dca", 1.0 },
		{ "dts.mpg", "dca", 1.0 },
		{ "sd_mpeg2_lpcm.mpg", "pcm_dvd", 0.0 },
		{ "s302m.ts", "s302m", 0.0 },
	};

	av_log_set_level(AV_LOG_ERROR);
	for (size_t i = 0; i < sizeof(streams) / sizeof(streams[0]); i++)
		check_audio(&streams[i]);
	check_mplayer_lpcm(0, 48000);
	check_mplayer_lpcm(2, 44100);
	check_mono_lpcm();
	test_gen_stream("tone.ac3");
	check_iec(0);
	check_iec(1);
	check_dvd_ac3_with_spu();
	return finish("test_es_audio");
}
