/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer target for the elementary-stream layer (es_feed_pes and what is behind it: codec
 * detection, private stream 1 substreams, IEC 61937 extraction, parsers, decoders, resampler,
 * deinterlacer). Also driven by test_es_random without libFuzzer.
 * Input: byte 0 picks video/audio, deinterlacing and key-frames-only; then chunks of
 * [length lo, length hi, flags] + bytes: fed as they are (arbitrary "packets") or behind a
 * well-formed PES header (stream id and PTS from the flags), so that the fuzzer reaches the
 * decoders quickly; some flags drain or reset. Every frame out must keep the es.h contract. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libavutil/frame.h>
#include <libavutil/log.h>

#include "es.h"
#include "ffdvb/output.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* frames produced by all runs so far (test_es_random checks the inputs reach the decoders) */
size_t test_es_fuzz_frames;

static void fail(const char *what)
{
	fprintf(stderr, "test_es_fuzz: %s\n", what);
	abort();
}

static void on_frame(void *ctx, AVFrame *f, const struct es_frame_info *info)
{
	const struct es_config *cfg = ctx;

	if (cfg->kind == ES_AUDIO) {
		if (f->format != AV_SAMPLE_FMT_S16 || f->ch_layout.nb_channels != FFDVB_AUDIO_CHANNELS ||
		    f->sample_rate != FFDVB_AUDIO_RATE || f->nb_samples <= 0 || !f->data[0])
			fail("audio frame not S16 stereo 48 kHz");
	} else if (f->width <= 0 || f->height <= 0 || !f->data[0]) {
		fail("video frame without picture");
	}
	if (info->duration < 0)
		fail("negative duration");
	test_es_fuzz_frames++;
	av_frame_free(&f);
}

static size_t wrap(uint8_t *b, uint8_t flags, const uint8_t *p, size_t n, const struct es_config *cfg)
{
	static const uint8_t video[] = { 0xE0, 0xE1, 0xE0, 0xC0 };
	static const uint8_t audio[] = { 0xBD, 0xC0, 0xBD, 0xE0 };
	uint8_t id = (cfg->kind == ES_VIDEO ? video : audio)[(flags >> 1) & 3];
	size_t h = 9;

	b[0] = 0, b[1] = 0, b[2] = 1, b[3] = id;
	b[6] = 0x80;
	b[7] = 0;
	b[8] = 0;
	if (flags & 0x08) { /* a PTS made of the flags and length bytes */
		uint64_t pts = (uint64_t)flags * 3600 * 7 + n * 1800;

		b[7] = 0x80;
		b[8] = 5;
		b[9] = (uint8_t)(0x21 | ((pts >> 29) & 0x0E));
		b[10] = (uint8_t)(pts >> 22);
		b[11] = (uint8_t)(0x01 | ((pts >> 14) & 0xFE));
		b[12] = (uint8_t)(pts >> 7);
		b[13] = (uint8_t)(0x01 | ((pts << 1) & 0xFE));
		h = 14;
	}
	memcpy(b + h, p, n);
	b[4] = (uint8_t)((h + n - 6) >> 8);
	b[5] = (uint8_t)(h + n - 6);
	return h + n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t pkt[9 + 5 + 4096];
	struct es_config cfg;
	struct es_stats st;
	struct es *es;
	size_t frames_before = test_es_fuzz_frames;

	if (size < 1)
		return 0;
	av_log_set_level(AV_LOG_QUIET);
	cfg.kind = data[0] & 1 ? ES_AUDIO : ES_VIDEO;
	cfg.deinterlace = data[0] & 2 ? (data[0] & 4 ? ES_DEINTERLACE_FIELD : ES_DEINTERLACE_FRAME)
				       : ES_DEINTERLACE_OFF;
	cfg.threads = 1;
	es = es_new(&cfg);
	if (!es)
		fail("es_new");
	es_set_key_frames_only(es, (data[0] & 0x0C) == 0x0C);
	data++;
	size--;
	while (size >= 3) {
		size_t n = (size_t)(data[0] | data[1] << 8) % 4096;
		uint8_t flags = data[2];

		data += 3;
		size -= 3;
		if (n > size)
			n = size;
		if (flags & 1)
			es_feed_pes(es, pkt, wrap(pkt, flags, data, n, &cfg), on_frame, &cfg);
		else if (flags == 0x40 && cfg.kind == ES_VIDEO)
			es_feed_raw(es, data, n, 90000, on_frame, &cfg);
		else
			es_feed_pes(es, data, n, on_frame, &cfg);
		if (flags == 0x20)
			es_drain(es, on_frame, &cfg);
		if (flags == 0xFE)
			es_reset(es);
		data += n;
		size -= n;
	}
	es_drain(es, on_frame, &cfg);
	es_get_stats(es, &st);
	if (st.frames != test_es_fuzz_frames - frames_before)
		fail("stats.frames is not the number of frames handed out");
	if (st.bad_pes > st.pes_packets)
		fail("more bad packets than packets");
	es_free(es);
	return 0;
}
