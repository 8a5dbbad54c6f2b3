/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The file tuner's pacing with made-up streams: a PCR that wraps at 2^33 and then jumps ahead
 * by 10 s (a discontinuity) neither stalls nor bursts the player, and a stream without any PCR
 * goes at the default rate. The bounds leave room for a loaded machine: the player must never
 * be faster than the stream's clock (plus a little), and must make clear progress. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "check.h"
#include "ffdvb/abi.h"
#include "test_tuner_file_util.h"

#define DIR "tuner_file_pace.d"
#define INTERVALS 40    /* PCR intervals of 50 ms: 2 s */
#define PER_INTERVAL 10 /* packets per interval, the first with the PCR */
#define NOPCR_PACKETS 500

static void packet(uint8_t *p, int cc, int with_pcr, uint64_t pcr_base)
{
	memset(p, 0xa5, 188);
	p[0] = 0x47;
	p[1] = 0x01;
	p[2] = 0x00;
	p[3] = (uint8_t)(0x10 | (cc & 15));
	if (with_pcr) {
		p[3] |= 0x20;
		p[4] = 7;
		p[5] = 0x10;
		p[6] = (uint8_t)(pcr_base >> 25);
		p[7] = (uint8_t)(pcr_base >> 17);
		p[8] = (uint8_t)(pcr_base >> 9);
		p[9] = (uint8_t)(pcr_base >> 1);
		p[10] = (uint8_t)(((pcr_base & 1) << 7) | 0x7e);
		p[11] = 0;
	}
}

static void write_streams(void)
{
	FILE *a = fopen(DIR "/wrap.ts", "wb"), *b = fopen(DIR "/nopcr.ts", "wb");
	uint64_t pcr = (1ull << 33) - 45000; /* wraps after 0.5 s */
	uint8_t p[188];
	int cc = 0;

	for (int i = 0; i < INTERVALS; i++) {
		if (i == 25)
			pcr += 900000; /* +10 s: a discontinuity */
		for (int j = 0; j < PER_INTERVAL; j++) {
			packet(p, cc++, j == 0, pcr & ((1ull << 33) - 1));
			fwrite(p, 1, 188, a);
		}
		pcr += 4500; /* 50 ms */
	}
	for (int i = 0; i < NOPCR_PACKETS; i++) {
		packet(p, i, 0, 0);
		fwrite(p, 1, 188, b);
	}
	fclose(a);
	fclose(b);
	a = fopen(DIR "/channels.conf", "w");
	fprintf(a, "[Wrap]\n\tSERVICE_ID = 1\n\tFREQUENCY = 474000000\n\tDELIVERY_SYSTEM = DVBT\n"
		   "\tFILE = wrap.ts\n\n"
		   "[No PCR]\n\tSERVICE_ID = 2\n\tFREQUENCY = 482000000\n\tDELIVERY_SYSTEM = DVBT\n"
		   "\tFILE = nopcr.ts\n");
	fclose(a);
}

static long long served(struct ffdvb_tuner *t)
{
	char json[1024];
	const char *p;

	ffdvb_tuner_status_json(t, json, sizeof(json));
	p = strstr(json, "\"packets_served\":");
	return p ? atoll(p + 17) : -1;
}

static long long loops(struct ffdvb_tuner *t)
{
	char json[1024];
	const char *p;

	ffdvb_tuner_status_json(t, json, sizeof(json));
	p = strstr(json, "\"loops\":");
	return p ? atoll(p + 8) : -1;
}

static fe_status_t status(struct ffdvb_tuner_file *fe)
{
	fe_status_t st = 0;

	tio_buf(fe, FE_READ_STATUS, &st);
	return st;
}

int main(void)
{
	struct event_base *base = event_base_new();
	struct ffdvb_tuner_file *fe;
	struct ffdvb_tuner *t;
	char err[256];
	long long s0, s1, l0;

	mkdir(DIR, 0755);
	write_streams();
	t = ffdvb_tuner_new(base, "file:" DIR "/channels.conf", err, sizeof(err));
	CHECK(t != NULL);
	if (!t) {
		printf("%s\n", err);
		return finish("test_tuner_file_pace");
	}
	CHECK_EQ(ffdvb_tuner_open(t, FFDVB_TUNER_FRONTEND, O_RDWR, &fe), 0);

	/* PCR wrap at 0.5 s, +10 s jump at 1.25 s: a 1.9 s run gets past both (packet 250 at
	 * 1.25 s of stream) but no further than the stream clock allows (+0.25 s) */
	CHECK_EQ(tune(fe, SYS_DVBT, 474000000), 0);
	run_ms(base, 40);
	CHECK(status(fe) & FE_HAS_LOCK);
	s0 = served(t);
	l0 = loops(t);
	run_ms(base, 1900);
	s1 = served(t) - s0;
	printf("wrap/jump stream: %lld packets in 1.9 s (stream clock: %d)\n", s1,
	       (int)(1.9 / 0.05 * PER_INTERVAL));
	CHECK(s1 >= 270);
	CHECK(s1 <= (long long)((1.9 + 0.25) / 0.05 * PER_INTERVAL));
	CHECK_EQ(loops(t), l0); /* 2 s file: not yet looped */
	run_ms(base, 600);
	CHECK(loops(t) > l0);

	/* no PCR: 2 Mbit/s, 752 us per packet */
	CHECK_EQ(tune(fe, SYS_DVBT, 482000000), 0);
	run_ms(base, 40);
	CHECK(status(fe) & FE_HAS_LOCK);
	s0 = served(t);
	run_ms(base, 500);
	s1 = served(t) - s0;
	printf("stream without PCR: %lld packets in 0.5 s (default rate: %d)\n", s1,
	       (int)(0.5 * 2000000 / 8 / 188));
	CHECK(s1 >= 150);
	CHECK(s1 <= (long long)((0.5 + 0.1) * 2000000 / 8 / 188));

	ffdvb_tuner_close(fe);
	ffdvb_tuner_free(t);
	event_base_free(base);
	return finish("test_tuner_file_pace");
}
