/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Trick modes as VDR drives them (docs/av7110.md, clients §2.6), on the headless sink's
 * virtual clock:
 * slow motion 1/2, 1/4, 1/8 (every picture held n frame periods), VDR's fast modes (only
 * I-frames written, VIDEO_SLOWMOTION 1/3/6), VIDEO_FAST_FORWARD (key frames only), freeze and
 * continue, and a still picture. Each checks which pictures were shown, in what order, for how
 * long, and that the STC is the PTS of the picture on screen. */
#include "play_util.h"

#define PERIOD_NS 40000000ull

struct shown {
	long n;
	struct ffdvb_output_picture_record *r;
};

/* the picture records after the black of VIDEO_SET_BLANK */
static struct shown pictures(struct player *p)
{
	struct shown s = { 0, NULL };

	s.n = ffdvb_output_pictures(p->out, &s.r);
	if (s.n > 0 && s.r[0].blank) {
		memmove(s.r, s.r + 1, (size_t)(s.n - 1) * sizeof(*s.r));
		s.n--;
	}
	return s;
}

static long same_as(const struct shown *s, char (*ref)[33], long nref)
{
	long same = 0;
	char hex[33];

	for (long i = 0; i < s->n && i < nref; i++) {
		md5_hex(s->r[i].md5, hex);
		same += !strcmp(hex, ref[i]);
		if (strcmp(hex, ref[i]) && getenv("TRICK_DEBUG"))
			printf("   #%ld differs (pts %lld)\n", i, (long long)s->r[i].pts);
	}
	if (getenv("TRICK_DEBUG"))
		printf("   %ld shown, %ld expected\n", s->n, nref);
	return same;
}

/* every picture held `n` periods: returns how many intervals were not n periods */
static long wrong_holds(const struct shown *s, unsigned int n)
{
	long bad = 0;

	for (long i = 1; i < s->n; i++) {
		uint64_t d = s->r[i].t - s->r[i - 1].t;

		if (d != n * PERIOD_NS) {
			if (bad < 3)
				printf("   picture %ld held %.1f ms, expected %u periods\n", i - 1,
				       (double)d / 1e6, n);
			bad++;
		}
	}
	return bad;
}

static void check_stc_is_shown(struct player *p, const struct shown *s, const char *what)
{
	uint64_t stc = 0;

	CHECK_EQ(ffdvb_decoder_stc(p->dec, &stc), 0);
	if (s->n > 0)
		EXPECT_EQ(what, (long long)stc, s->r[s->n - 1].pts);
}

static void slow_motion(const char *path, unsigned int n, char (*ref)[33], long nref)
{
	struct player p;
	struct shown s;
	char what[96];

	printf("-- slow motion 1/%u (AV_SYNC 0, MUTE 1, VIDEO_SLOWMOTION %u)\n", n, n);
	player_open(&p, 1, 0);
	player_ioctl(&p, p.af, FFDVB_AUDIO_SET_AV_SYNC, 0, NULL);
	player_ioctl(&p, p.af, FFDVB_AUDIO_SET_MUTE, 1, NULL);
	player_ioctl(&p, p.vf, FFDVB_VIDEO_SLOWMOTION, n, NULL);
	CHECK_EQ(player_write_file(&p, path), 0);
	CHECK_EQ(player_end_ts(&p), 0);
	CHECK_EQ(player_wait_idle(&p, 60000), 0);
	s = pictures(&p);
	snprintf(what, sizeof(what), "slow 1/%u: every picture once, in order", n);
	EXPECT_EQ(what, same_as(&s, ref, nref), nref);
	snprintf(what, sizeof(what), "slow 1/%u: each picture held %u frame periods", n, n);
	EXPECT_EQ(what, wrong_holds(&s, n), 0);
	check_stc_is_shown(&p, &s, "slow motion: STC = PTS of the picture on screen");
	free(s.r);
	player_close(&p);
}

/* VDR's fast forward: Clear, mute, VIDEO_SLOWMOTION n, then only I-frames written */
static void vdr_fast(const char *ipath, unsigned int n, char (*iref)[33], long niref)
{
	struct player p;
	struct shown s;
	char what[96];

	printf("-- VDR fast forward: I-frames only, VIDEO_SLOWMOTION %u\n", n);
	player_open(&p, 1, 0);
	player_ioctl(&p, p.vf, FFDVB_VIDEO_CLEAR_BUFFER, 0, NULL);
	player_ioctl(&p, p.af, FFDVB_AUDIO_CLEAR_BUFFER, 0, NULL);
	player_ioctl(&p, p.af, FFDVB_AUDIO_SET_AV_SYNC, 0, NULL);
	player_ioctl(&p, p.af, FFDVB_AUDIO_SET_MUTE, 1, NULL);
	player_ioctl(&p, p.vf, FFDVB_VIDEO_SLOWMOTION, n, NULL);
	CHECK_EQ(player_write_file(&p, ipath), 0);
	CHECK_EQ(player_end_ts(&p), 0);
	CHECK_EQ(player_wait_idle(&p, 60000), 0);
	s = pictures(&p);
	snprintf(what, sizeof(what), "fast %u: every I-frame once, in order", n);
	EXPECT_EQ(what, same_as(&s, iref, niref), niref);
	EXPECT_EQ(what, s.n, niref);
	snprintf(what, sizeof(what), "fast %u: each I-frame held %u frame periods", n, n);
	EXPECT_EQ(what, wrong_holds(&s, n), 0);
	check_stc_is_shown(&p, &s, "fast: STC = PTS of the picture on screen");
	free(s.r);
	player_close(&p);
}

static void fast_forward(const char *path, char (*kref)[33], long nkref)
{
	struct player p;
	struct shown s;

	printf("-- VIDEO_FAST_FORWARD: key frames only\n");
	player_open(&p, 1, 0);
	player_ioctl(&p, p.af, FFDVB_AUDIO_SET_AV_SYNC, 0, NULL);
	player_ioctl(&p, p.vf, FFDVB_VIDEO_FAST_FORWARD, 2, NULL);
	CHECK_EQ(player_write_file(&p, path), 0);
	CHECK_EQ(player_end_ts(&p), 0);
	CHECK_EQ(player_wait_idle(&p, 60000), 0);
	s = pictures(&p);
	EXPECT_EQ("fast forward: the key frames, in order", same_as(&s, kref, nkref), nkref);
	EXPECT_EQ("fast forward: nothing else", s.n, nkref);
	EXPECT_EQ("fast forward: one frame period each", wrong_holds(&s, 1), 0);
	free(s.r);
	player_close(&p);
}

static void freeze(const char *path, char (*ref)[33], long nref)
{
	struct player p;
	struct shown s1, s2;
	uint64_t stc1 = 0, stc2 = 0;
	size_t len;
	uint8_t *ts = read_file(path, &len);
	size_t half = len / 2 / 188 * 188;

	printf("-- freeze and continue\n");
	player_open(&p, 1, 0);
	CHECK_EQ(player_write_ts(&p, ts, half), 0);
	/* VDR pauses while data flows: no underrun before the freeze */
	player_ioctl(&p, p.af, FFDVB_AUDIO_SET_AV_SYNC, 0, NULL);
	player_ioctl(&p, p.af, FFDVB_AUDIO_PAUSE, 0, NULL);
	player_ioctl(&p, p.vf, FFDVB_VIDEO_FREEZE, 0, NULL);
	player_pump(&p, 100);
	s1 = pictures(&p);
	ffdvb_decoder_stc(p.dec, &stc1);
	player_pump(&p, 400);
	s2 = pictures(&p);
	ffdvb_decoder_stc(p.dec, &stc2);
	EXPECT_EQ("frozen: no new picture", s2.n, s1.n);
	EXPECT_EQ("frozen: the STC stands still", (long long)stc2, (long long)stc1);
	check_stc_is_shown(&p, &s2, "frozen: STC = PTS of the picture on screen");
	free(s1.r);
	free(s2.r);
	player_ioctl(&p, p.af, FFDVB_AUDIO_SET_AV_SYNC, 1, NULL);
	player_ioctl(&p, p.af, FFDVB_AUDIO_CONTINUE, 0, NULL);
	player_pump(&p, 50); /* VDR's two calls are not one: time passes between them */
	player_ioctl(&p, p.vf, FFDVB_VIDEO_CONTINUE, 0, NULL);
	CHECK_EQ(player_write_ts(&p, ts + half, len - half), 0);
	CHECK_EQ(player_end_ts(&p), 0);
	CHECK_EQ(player_wait_idle(&p, 60000), 0);
	s1 = pictures(&p);
	EXPECT_EQ("after continue: every picture once, in order", same_as(&s1, ref, nref), nref);
	EXPECT_EQ("after continue: nothing dropped or repeated", s1.n, nref);
	check_stc_is_shown(&p, &s1, "after continue: STC = PTS of the picture on screen");
	free(s1.r);
	free(ts);
	player_close(&p);
}

/* dry_ms: the still comes that long after the clears, when the sound has run dry (the
 * presenter then no longer waits for it: the still alone must not start the clock, which
 * would give the STC of a picture without PTS; seen under ASan, whose slow decode of the
 * I-frame let the sound run dry first) */
static void still_picture(const char *es_path, char (*sref)[33], int dry_ms)
{
	struct player p;
	struct shown s;
	size_t len;
	uint8_t *es = read_file(es_path, &len);
	struct ffdvb_video_still_picture sp = { .iFrame = (char *)es, .size = (int32_t)len };
	struct ffdvb_ioctl io = { .cmd = FFDVB_VIDEO_STILLPICTURE, .buf = &sp, .data = es,
				  .data_len = len };
	uint64_t stc;
	int r, rounds = 0;

	printf("-- still picture (raw MPEG-2 I-frame, %zu bytes, %d ms after the clears)\n", len,
	       dry_ms);
	player_open(&p, 1, 0);
	player_ioctl(&p, p.vf, FFDVB_VIDEO_CLEAR_BUFFER, 0, NULL);
	player_ioctl(&p, p.af, FFDVB_AUDIO_CLEAR_BUFFER, 0, NULL);
	if (dry_ms)
		player_pump(&p, dry_ms);
	while ((r = p.ops->ioctl(p.vf, &io)) == -FFDVB_EBLOCK && rounds++ < 5000)
		player_pump(&p, 2); /* the transport retries after each wake-up */
	CHECK_EQ(r, 0);
	player_pump(&p, 300);
	s = pictures(&p);
	EXPECT_EQ("still: one picture shown", s.n, 1);
	if (s.n >= 1) {
		char hex[33];

		md5_hex(s.r[0].md5, hex);
		CHECK_LABELLED("still: the picture is ffmpeg's decode of the I-frame",
			       !strcmp(hex, sref[0]));
	}
	player_pump(&p, 300);
	free(s.r);
	s = pictures(&p);
	EXPECT_EQ("still: held, nothing else shown", s.n, 1);
	CHECK_LABELLED("still: no STC from a picture without PTS",
		       ffdvb_decoder_stc(p.dec, &stc) == -ENODATA);
	free(s.r);
	free(es);
	player_close(&p);
}

static const char *derived(const char *name, const char *ffargs)
{
	static char out[4][512];
	static int k;
	char *path = out[k++ % 4], cmd[2048];

	snprintf(path, 512, "streams/%s", name);
	if (access(path, R_OK) == 0)
		return path;
	snprintf(cmd, sizeof(cmd), "ffmpeg -nostdin -v error -y %s '%s.tmp' && mv '%s.tmp' '%s'",
		 ffargs, path, path, path);
	if (system(cmd) != 0) {
		printf("FAIL: cannot make %s\n", path);
		exit(1);
	}
	return path;
}

int main(void)
{
	const char *path = stream("sd_mpeg2_mp2.ts");
	/* VDR writes only I-frames in its fast modes: an intra-only stream stands for that */
	const char *ipath = derived("iframes.ts", "-fflags +bitexact -i streams/sd_mpeg2_mp2.ts -an "
				    "-c:v mpeg2video -g 1 -bf 0 -q:v 3 -flags +bitexact -f mpegts");
	const char *still = stream("still.m2v"); /* the first I-picture of sd_mpeg2_mp2.ts */
	char (*ref)[33], (*iref)[33], (*kref)[33], (*sref)[33];
	long nref = ffmpeg_frame_md5s(path, NULL, &ref);
	long niref = ffmpeg_frame_md5s(ipath, NULL, &iref);
	long nsref = ffmpeg_frame_md5s(still, NULL, &sref);
	long nkref;
	char cmd[1024];

	/* ffmpeg's decode of the key frames only */
	snprintf(cmd, sizeof(cmd), "-skip_frame nokey -i");
	{
		char line[512];
		FILE *f;

		snprintf(cmd, sizeof(cmd), "ffmpeg -nostdin -v error -skip_frame nokey -i '%s' -map 0:v "
			 "-fps_mode passthrough -f framemd5 -", path);
		f = popen(cmd, "r");
		kref = calloc(64, sizeof(*kref));
		nkref = 0;
		while (f && fgets(line, sizeof(line), f) && nkref < 64) {
			char *last = strrchr(line, ',');

			if (line[0] == '#' || !last)
				continue;
			while (*++last == ' ')
				;
			snprintf(kref[nkref++], 33, "%.32s", last);
		}
		if (f)
			pclose(f);
	}
	if (nref < 10 || niref < 10 || nsref != 1 || nkref < 2) {
		printf("FAIL: reference decodes: %ld pictures, %ld I-frames, %ld still, %ld key\n", nref,
		       niref, nsref, nkref);
		return 1;
	}
	slow_motion(path, 2, ref, nref);
	slow_motion(path, 4, ref, nref);
	slow_motion(path, 8, ref, nref);
	vdr_fast(ipath, 1, iref, niref);
	vdr_fast(ipath, 3, iref, niref);
	vdr_fast(ipath, 6, iref, niref);
	fast_forward(path, kref, nkref);
	freeze(path, ref, nref);
	still_picture(still, sref, 0);
	still_picture(still, sref, 100);
	free(ref);
	free(iref);
	free(kref);
	free(sref);
	return finish("test_play_trick");
}
