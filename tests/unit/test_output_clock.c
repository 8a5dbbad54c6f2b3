/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The headless output's clocks and virtual sound device: the virtual clock jumps, the device
 * consumes 48000 samples per second of output time while not paused (underrun, pause, clear),
 * the sound records say when each chunk is heard, and the real-time clock really waits. */
#include "check.h"
#include "test_output_util.h"

static int16_t *chunk(size_t nb, int seed)
{
	int16_t *s = malloc(nb * FFDVB_AUDIO_FRAME_BYTES);
	for (size_t i = 0; i < nb * FFDVB_AUDIO_CHANNELS; i++)
		s[i] = (int16_t)(seed * 1000 + (int)i);
	return s;
}

static struct ffdvb_output_sound_record last_sound(struct ffdvb_output *o, long *count)
{
	struct ffdvb_output_sound_record *r = NULL, last = { 0 };
	*count = ffdvb_output_sounds(o, &r);
	if (*count > 0)
		last = r[*count - 1];
	free(r);
	return last;
}

static void test_virtual_clock(void)
{
	struct ffdvb_output *o = headless(1, 1, 0, 0);
	CHECK(!strcmp(ffdvb_output_name(o), "none"));
	uint64_t t0 = ffdvb_output_now(o);
	CHECK(t0 > 0);
	ffdvb_output_wait_until(o, t0 - 5 * MS); /* the past: nothing moves */
	EXPECT_EQ("now after waiting for the past", ffdvb_output_now(o), t0);
	ffdvb_output_wait_until(o, t0 + 1000 * MS);
	EXPECT_EQ("virtual clock jumps", ffdvb_output_now(o), t0 + 1000 * MS);
	EXPECT_EQ("still there", ffdvb_output_now(o), t0 + 1000 * MS);
	ffdvb_output_free(o);
}

static void test_consumption(void)
{
	struct ffdvb_output *o = headless(1, 1, 0, 0);
	uint64_t t0 = ffdvb_output_now(o);
	long n;
	EXPECT_EQ("nothing queued", ffdvb_output_audio_queued(o), 0);

	int16_t *a = chunk(4800, 1);
	EXPECT_EQ("queue 4800", ffdvb_output_audio_queue(o, a, 4800, 9000), 0);
	EXPECT_EQ("queued at t0", ffdvb_output_audio_queued(o), 4800);
	struct ffdvb_output_sound_record r = last_sound(o, &n);
	EXPECT_EQ("one sound record", n, 1);
	EXPECT_EQ("first chunk heard at once", r.t, t0);
	EXPECT_EQ("pts", r.pts, 9000);
	EXPECT_EQ("first", r.first, 0);
	EXPECT_EQ("nb", r.nb, 4800);

	ffdvb_output_wait_until(o, t0 + 50 * MS);
	EXPECT_EQ("queued at t0+50ms", ffdvb_output_audio_queued(o), 2400);
	ffdvb_output_wait_until(o, t0 + 70 * MS + 10000); /* 3360.48 samples heard: floor */
	EXPECT_EQ("queued at t0+70.01ms", ffdvb_output_audio_queued(o), 1440);
	ffdvb_output_wait_until(o, t0 + 100 * MS);
	EXPECT_EQ("drained at t0+100ms", ffdvb_output_audio_queued(o), 0);
	ffdvb_output_wait_until(o, t0 + 150 * MS);
	EXPECT_EQ("underrun stays empty", ffdvb_output_audio_queued(o), 0);

	/* after an underrun the next chunk plays from when it is queued */
	int16_t *b = chunk(960, 2);
	EXPECT_EQ("queue after underrun", ffdvb_output_audio_queue(o, b, 960, 18000), 0);
	r = last_sound(o, &n);
	EXPECT_EQ("heard when queued", r.t, t0 + 150 * MS);
	EXPECT_EQ("its first sample index", r.first, 4800);
	EXPECT_EQ("queue behind it", ffdvb_output_audio_queue(o, b, 960, 19800), 0);
	r = last_sound(o, &n);
	EXPECT_EQ("heard 20 ms later", r.t, t0 + 170 * MS);
	ffdvb_output_wait_until(o, t0 + 160 * MS);
	EXPECT_EQ("queued at +160ms", ffdvb_output_audio_queued(o), 1440);

	/* pause keeps the queue and stops it draining */
	ffdvb_output_audio_pause(o, 1);
	ffdvb_output_wait_until(o, t0 + 260 * MS);
	EXPECT_EQ("paused: no consumption", ffdvb_output_audio_queued(o), 1440);
	EXPECT_EQ("queue while paused", ffdvb_output_audio_queue(o, b, 480, 21600), 0);
	EXPECT_EQ("queued while paused", ffdvb_output_audio_queued(o), 1920);
	r = last_sound(o, &n);
	EXPECT_EQ("time unknown while paused", r.t, UINT64_MAX);
	ffdvb_output_audio_pause(o, 1); /* again: no effect */
	ffdvb_output_wait_until(o, t0 + 300 * MS);
	ffdvb_output_audio_pause(o, 0);
	r = last_sound(o, &n);
	EXPECT_EQ("time fixed at resume: behind 1440 samples", r.t, t0 + 330 * MS);
	ffdvb_output_wait_until(o, t0 + 320 * MS);
	EXPECT_EQ("draining again after resume", ffdvb_output_audio_queued(o), 960);

	/* clear drops the queue; the next chunk is heard at once */
	ffdvb_output_audio_clear(o);
	EXPECT_EQ("cleared", ffdvb_output_audio_queued(o), 0);
	ffdvb_output_wait_until(o, t0 + 400 * MS);
	EXPECT_EQ("cleared stays empty", ffdvb_output_audio_queued(o), 0);
	EXPECT_EQ("queue after clear", ffdvb_output_audio_queue(o, a, 4800, 36000), 0);
	r = last_sound(o, &n);
	EXPECT_EQ("heard at once after clear", r.t, t0 + 400 * MS);

	/* a chunk queued while paused and cleared before the resume is never heard */
	ffdvb_output_audio_pause(o, 1);
	EXPECT_EQ("queue while paused 2", ffdvb_output_audio_queue(o, b, 960, 45000), 0);
	ffdvb_output_audio_clear(o);
	ffdvb_output_audio_pause(o, 0);
	r = last_sound(o, &n);
	EXPECT_EQ("cleared during pause: never heard", r.t, UINT64_MAX);
	EXPECT_EQ("paused clear empties", ffdvb_output_audio_queued(o), 0);

	/* bad input and nothing to do */
	EXPECT_EQ("NULL samples", ffdvb_output_audio_queue(o, NULL, 10, -1), -EINVAL);
	EXPECT_EQ("zero samples", ffdvb_output_audio_queue(o, NULL, 0, -1), 0);
	EXPECT_EQ("no record for them", (last_sound(o, &n), n), 6);

	/* the recorded sound is every sample, in order */
	int16_t *all = NULL;
	long ns = ffdvb_output_sound_samples(o, &all);
	EXPECT_EQ("recorded samples", ns, 4800 + 960 + 960 + 480 + 4800 + 960);
	CHECK(all && !memcmp(all, a, 4800 * 4));
	CHECK(all && !memcmp(all + 4800 * 2, b, 960 * 4));
	CHECK(all && !memcmp(all + (4800 + 960 + 960 + 480) * 2, a, 4800 * 4));
	free(all);

	/* the text record and the raw sound */
	EXPECT_EQ("write record", ffdvb_output_write_record(o, "test_output_clock.log",
							    "test_output_clock.pcm"), 0);
	FILE *f = fopen("test_output_clock.log", "r");
	CHECK(f != NULL);
	char line[256];
	int sounds = 0;
	while (f && fgets(line, sizeof(line), f)) {
		unsigned long long t;
		long long pts;
		size_t first, nb;
		if (sscanf(line, "sound %llu %lld %zu %zu", &t, &pts, &first, &nb) == 4) {
			if (sounds == 1) {
				EXPECT_EQ("log: t", t, t0 + 150 * MS);
				EXPECT_EQ("log: pts", pts, 18000);
				EXPECT_EQ("log: first", first, 4800);
				EXPECT_EQ("log: nb", nb, 960);
			}
			sounds++;
		}
	}
	if (f)
		fclose(f);
	EXPECT_EQ("log: sound lines", sounds, 6);
	f = fopen("test_output_clock.pcm", "rb");
	CHECK(f != NULL);
	if (f) {
		fseek(f, 0, SEEK_END);
		EXPECT_EQ("pcm size", ftell(f), ns * 4);
		fclose(f);
	}
	unlink("test_output_clock.log");
	unlink("test_output_clock.pcm");
	free(a);
	free(b);
	ffdvb_output_free(o);
}

static void test_long_run_exact(void)
{
	/* an hour of 1152-sample chunks (MPEG audio) paced by the presenter: no drift */
	struct ffdvb_output *o = headless(1, 0, 0, 0);
	uint64_t t0 = ffdvb_output_now(o);
	int16_t *s = chunk(1152, 3);
	uint64_t total = 0;
	int bad = 0;
	for (int i = 0; i < 3600 * 48000 / 1152; i++) {
		if (ffdvb_output_audio_queue(o, s, 1152, -1))
			bad++;
		total += 1152;
		/* keep 0.5 s queued: wait until the queue is down to 24000 samples */
		if (total <= 24000)
			continue;
		ffdvb_output_wait_until(o, t0 + (total - 24000) * 1000000000ull / 48000);
		if (ffdvb_output_audio_queued(o) != 24000)
			bad++;
	}
	EXPECT_EQ("an hour of chunks: exact queue", bad, 0);
	free(s);
	ffdvb_output_free(o);
}

static void test_real_time(void)
{
	struct ffdvb_output *o = headless(0, 1, 0, 0);
	uint64_t t0 = ffdvb_output_now(o);
	ffdvb_output_wait_until(o, t0 + 30 * MS);
	uint64_t t1 = ffdvb_output_now(o);
	CHECK(t1 >= t0 + 30 * MS);
	CHECK(t1 < t0 + 1000 * MS);
	int16_t *s = chunk(48000, 4);
	uint64_t q0 = ffdvb_output_now(o);
	ffdvb_output_audio_queue(o, s, 48000, -1);
	uint64_t q1 = ffdvb_output_now(o);
	ffdvb_output_wait_until(o, q1 + 100 * MS);
	uint64_t r0 = ffdvb_output_now(o);
	size_t q = ffdvb_output_audio_queued(o);
	uint64_t r1 = ffdvb_output_now(o);
	/* 48 samples heard per ms between queuing and asking, however loaded the machine is */
	long most = 48000 - (long)((r0 - q1) * 48 / MS) + 1;
	long least = 48000 - (long)((r1 - q0) * 48 / MS) - 1;
	printf("real time: 48000 queued, %zu left after >= 100 ms (expected %ld..%ld)\n", q,
	       least, most);
	CHECK(q <= 48000 - 4800);
	CHECK((long)q <= most && (long)q >= least);
	free(s);
	ffdvb_output_free(o);
}

static void test_config(void)
{
	errno = 0;
	CHECK(ffdvb_output_new(NULL) == NULL && errno == EINVAL);
	struct ffdvb_output_config cfg = { .kind = (enum ffdvb_output_kind)99 };
	errno = 0;
	CHECK(ffdvb_output_new(&cfg) == NULL && errno == EINVAL);
	cfg = (struct ffdvb_output_config){ .kind = FFDVB_OUTPUT_NONE, .width = -1, .height = 5 };
	errno = 0;
	CHECK(ffdvb_output_new(&cfg) == NULL && errno == EINVAL);
	cfg = (struct ffdvb_output_config){ .kind = FFDVB_OUTPUT_NONE, .width = 100 };
	errno = 0;
	CHECK(ffdvb_output_new(&cfg) == NULL && errno == EINVAL);

	/* without cfg.record the record accessors say there is none */
	struct ffdvb_output *o = headless(1, 0, 0, 0);
	struct ffdvb_output_picture_record *p = NULL;
	EXPECT_EQ("no record", ffdvb_output_pictures(o, &p), -ENODATA);
	EXPECT_EQ("no record file", ffdvb_output_write_record(o, "x.log", NULL), -ENODATA);
	ffdvb_output_free(o);
	ffdvb_output_free(NULL);
}

int main(void)
{
	test_virtual_clock();
	test_consumption();
	test_long_run_exact();
	test_real_time();
	test_config();
	return finish("test_output_clock");
}
