/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Streams made by the ffmpeg CLI, written through the card's write path as clients write them
 * (TS in 188-byte writes, program streams in 2048-byte writes, everything to video0), decoded
 * and presented by the headless sink on its virtual clock. Checked against ffmpeg's own decode:
 * every picture (MD5 of its pixels) in order, none dropped or repeated, PTS rising by one frame
 * period, the size event, the number of sound samples, the STC at the end. */
#include "play_util.h"

struct expect {
	const char *name;
	int width, height;
	int vfmt;        /* VIDEO_FORMAT_* of the size event */
	int has_audio;
};

static void check_stream(const struct expect *e)
{
	const char *path = stream(e->name);
	struct player p;
	struct ffdvb_output_picture_record *pics = NULL;
	char (*ref)[33] = NULL;
	long npics, ref_n, same = 0, rising = 1, samples, ref_samples;
	struct ffdvb_video_event ev;
	struct ffdvb_video_size size;
	uint64_t stc = 0;
	char hex[33];

	printf("-- %s\n", e->name);
	player_open(&p, 1, 0);
	CHECK_EQ(player_write_file(&p, path), 0);
	CHECK_EQ(player_wait_idle(&p, 60000), 0);

	npics = ffdvb_output_pictures(p.out, &pics);
	ref_n = ffmpeg_frame_md5s(path, NULL, &ref);
	EXPECT_EQ(e->name, npics > 0 && pics[0].blank ? npics - 1 : npics, ref_n);
	/* the first record may be the black of VIDEO_SET_BLANK before anything played */
	long first = npics > 0 && pics[0].blank ? 1 : 0;

	for (long i = first; i < npics && i - first < ref_n; i++) {
		md5_hex(pics[i].md5, hex);
		if (!strcmp(hex, ref[i - first]))
			same++;
		else if (same == i - first)
			printf("   first differing picture: #%ld ours %s ffmpeg %s\n", i - first, hex,
			       ref[i - first]);
		if (i > first && pics[i].pts <= pics[i - 1].pts)
			rising = 0;
		if (i > first && pics[i].t <= pics[i - 1].t)
			rising = 0;
	}
	EXPECT_EQ("pictures equal to ffmpeg's decode, in order", same, ref_n);
	CHECK_LABELLED("PTS and presentation times rise picture by picture", rising);
	if (npics - first >= 2) {
		long mid = first + (npics - first) / 2;

		EXPECT_EQ("one frame period between pictures (90 kHz)",
			  pics[mid + 1 < npics ? mid + 1 : mid].pts - pics[mid].pts,
			  mid + 1 < npics ? 3600 : 0);
		if (mid + 1 < npics) {
			long long d = (long long)(pics[mid + 1].t - pics[mid].t);

			printf("   presentation interval %.3f ms\n", d / 1e6);
			CHECK_LABELLED("presentation one frame period apart (40 ms +- 1 ms)",
				       d >= 39000000 && d <= 41000000);
		}
	}

	/* VIDEO_GET_EVENT: the size change of the first picture */
	CHECK_EQ(player_ioctl(&p, p.vf, FFDVB_VIDEO_GET_EVENT, 0, &ev), 0);
	EXPECT_EQ("event type", ev.type, FFDVB_VIDEO_EVENT_SIZE_CHANGED);
	EXPECT_EQ("event width", ev.u.size.w, e->width);
	EXPECT_EQ("event height", ev.u.size.h, e->height);
	EXPECT_EQ("event aspect", ev.u.size.aspect_ratio, e->vfmt);
	CHECK_EQ(player_ioctl(&p, p.vf, FFDVB_VIDEO_GET_SIZE, 0, &size), 0);
	EXPECT_EQ("VIDEO_GET_SIZE w", size.w, e->width);
	EXPECT_EQ("VIDEO_GET_SIZE h", size.h, e->height);

	/* DMX_GET_STC's source: the PTS of the picture on screen, the last one */
	CHECK_EQ(ffdvb_decoder_stc(p.dec, &stc), 0);
	if (npics > 0)
		EXPECT_EQ("STC = PTS of the last picture", (long long)stc, pics[npics - 1].pts);

	if (e->has_audio) {
		int16_t *pcm = NULL;

		samples = ffdvb_output_sound_samples(p.out, &pcm);
		ref_samples = ffmpeg_audio_samples(path);
		printf("   sound: %ld samples, ffmpeg %ld\n", samples, ref_samples);
		EXPECT_EQ("no packet dropped for want of ring space", p.card->repack_dropped, 0);
		{
			struct ffdvb_decoder_stats ds;

			ffdvb_decoder_get_stats(p.dec, &ds);
			EXPECT_EQ("no bad PES", ds.bad_pes, 0);
			EXPECT_EQ("no decode errors", ds.decode_errors, 0);
		}
		/* ours may start with silence up to the first audio PTS (sync) and keep whole frames */
		CHECK_LABELLED("sound samples within 0.25 s of ffmpeg's decode",
			       samples >= ref_samples - 1152 && samples <= ref_samples + 12000);
		free(pcm);
	}
	free(pics);
	free(ref);
	player_close(&p);
}

/* ffprobe's last audio packet of path: its PTS plus its duration (90 kHz), or -1 */
static long long ffprobe_audio_end(const char *path)
{
	char cmd[512], line[128];
	long long pts = -1, dur = 0, end = -1;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "ffprobe -v error -select_streams a:0 -show_entries "
		 "packet=pts,duration -of csv=p=0 '%s'", path);
	if (!(f = popen(cmd, "r")))
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%lld,%lld", &pts, &dur) == 2)
			end = pts + dur;
	pclose(f);
	return end;
}

/* A radio channel: only audio0 plays, video0 stopped. DMX_GET_STC then comes from the sound
 * heard (docs/behaviour.md): once everything is played, the end of the last audio frame. */
static void radio(void)
{
	const char *path = stream("sd_mpeg2_mp2.ts");
	long long want = ffprobe_audio_end(path);
	struct player p;
	uint64_t stc = 0;
	size_t len;
	uint8_t *ts = read_file(path, &len);
	int ok = ts != NULL;

	printf("-- radio (%s, audio only)\n", path);
	player_open(&p, 1, 0);
	CHECK_EQ(player_ioctl(&p, p.vf, FFDVB_VIDEO_STOP, 0, NULL), 0);
	for (size_t off = 0; ok && off + 188 <= len; off += 188)
		if (ffdvb_ts_route(p.ts_kind, ts + off) == FFDVB_TS_AUDIO)
			ok = player_write(&p, p.af, ts + off, 188, 188) == 0;
	CHECK_LABELLED("the audio packets written", ok);
	CHECK_EQ(player_wait_idle(&p, 60000), 0);
	CHECK_EQ(ffdvb_decoder_stc(p.dec, &stc), 0);
	printf("   STC %llu, last audio frame ends at %lld\n", (unsigned long long)stc, want);
	CHECK_LABELLED("ffprobe found the audio", want > 0);
	EXPECT_EQ("radio: STC = end of the last sound heard (90 kHz)", (long long)stc, want);
	free(ts);
	player_close(&p);
}

int main(int argc, char **argv)
{
	static const struct expect all[] = {
		{ "sd_mpeg2_mp2.ts", 720, 576, FFDVB_VIDEO_FORMAT_4_3, 1 },
		{ "sd_mpeg2_mp2.mpg", 720, 576, FFDVB_VIDEO_FORMAT_4_3, 1 },
		{ "sd_mpeg2_ac3.ts", 720, 576, FFDVB_VIDEO_FORMAT_4_3, 1 },
		{ "sd_mpeg2_lpcm.mpg", 720, 576, FFDVB_VIDEO_FORMAT_4_3, 1 },
		{ "sd_mpeg1_mp3.mpg", 352, 288, FFDVB_VIDEO_FORMAT_4_3, 1 },
		{ "sd_h264_mp2.ts", 720, 576, FFDVB_VIDEO_FORMAT_4_3, 1 },
		{ "eac3.ts", 720, 576, FFDVB_VIDEO_FORMAT_4_3, 1 },
		{ "sd_hevc_aac.ts", 720, 576, FFDVB_VIDEO_FORMAT_4_3, 1 },
		{ "sd_h264_latm.ts", 720, 576, FFDVB_VIDEO_FORMAT_4_3, 1 },
		{ "dts.ts", 720, 576, FFDVB_VIDEO_FORMAT_4_3, 1 },
		{ "hd_mpeg2_1080i.ts", 1920, 1080, FFDVB_VIDEO_FORMAT_16_9, 1 },
		{ "hd_h264_1080i.ts", 1920, 1080, FFDVB_VIDEO_FORMAT_16_9, 1 },
	};

	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		if (argc < 2 || !strcmp(argv[1], all[i].name))
			check_stream(&all[i]);
	if (argc < 2 || !strcmp(argv[1], "radio"))
		radio();
	return finish("test_play_streams");
}
