/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Robustness (run on request): random requests with a fixed seed, unmapped argument pointers
 * for every sized request number, out-of-range values, huge sizes, clients killed while the
 * device holds a blocked call, and 50 clients opening and closing concurrently. After each
 * part the device must still answer, and every errno must be one av7110 can return. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "conform.h"

static const char *const nodes[] = { "video0", "audio0", "osd0", "demux0", "frontend0" };

static void alive(const char *after)
{
	struct ffdvb_video_status s;
	int fd = dev_open("video0", O_RDONLY | O_NONBLOCK);
	long r = fd < 0 ? fd : video_status(fd, &s);

	dev_close(&fd);
	check_rc(cname("robustness.alive_after_%s", after), 0, r);
}

static uint32_t rng;

static uint32_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 17;
	rng ^= rng << 5;
	return rng;
}

static int allowed(const char *node, long r)
{
	static const long av[] = { EINVAL, ENOTTY, EPERM, EBUSY, EFAULT, EAGAIN, EOVERFLOW };
	static const long more[] = { EOPNOTSUPP, ENOMEM, ENODEV, ETIMEDOUT, ERANGE, E2BIG };

	if (r >= 0)
		return 1;
	for (size_t i = 0; i < ARRAY_SIZE(av); i++)
		if (-r == av[i])
			return 1;
	if (!strcmp(node, "demux0") || !strcmp(node, "frontend0"))
		for (size_t i = 0; i < ARRAY_SIZE(more); i++)
			if (-r == more[i])
				return 1;
	return 0;
}

static long random_requests(void *arg)
{
	const char *node = arg;
	int fd = dev_open(node, O_RDWR | O_NONBLOCK);
	uint8_t *buf = malloc(4096);
	static const unsigned int sizes[] = { 4, 8, 12, 16, 20, 28, 32, 72 };
	long bad = 0;

	if (fd < 0)
		return fd;
	for (int i = 0; i < 400; i++) {
		unsigned int dir = next() % 4, type = next() % 4 ? 'o' : next() & 0xFF;
		unsigned int nr = next() & 0xFF, size = 0;

		if (dir)
			size = next() % 2 ? sizes[next() % ARRAY_SIZE(sizes)] : next() % 1024;
		unsigned long req = _IOC(dir, type, nr, size);

		if (type == 'o' && nr == 30)
			continue; /* VIDEO_STILLPICTURE blocks by design */
		for (int k = 0; k < 4096; k++)
			buf[k] = (uint8_t)next();
		long r = dir ? dev_ioctl(fd, req, buf) : dev_ioctl_val(fd, req, next());

		if (!allowed(node, r) && bad++ < 5)
			note("%s: request 0x%08lx gave %s", node, req, rcname(r));
	}
	close(fd);
	free(buf);
	return bad;
}

static void random_part(void)
{
	note("random requests: seed %u (--seed N repeats a run)", opts.seed);
	for (size_t i = 0; i < ARRAY_SIZE(nodes); i++) {
		struct child c;
		long rc;

		rng = opts.seed * 2654435761u + (uint32_t)i + 1;
		if (child_start(&c, random_requests, (void *)nodes[i]) < 0)
			continue;
		if (child_wait(&c, 60000, &rc) < 0) {
			child_kill(&c);
			rc = -ETIMEDOUT;
		}
		if (rc == -ENOENT && !strcmp(nodes[i], "frontend0")) {
			skip("robustness.random_requests.frontend0", "no frontend0 node");
			continue;
		}
		check(cname("robustness.random_requests.%s", nodes[i]), rc == 0,
		      "only errnos av7110 returns", "%s",
		      rc < 0 ? rcname(rc) : cname("%ld unexpected results", rc));
		card_reset();
	}
	alive("random_requests");
}

/* dvb-core copies every sized argument in first: an unmapped one is EFAULT, whatever the
 * number, the node or the fd's access mode */
static void unmapped_part(void)
{
	static const struct {
		const char *node;
		int flags;
	} t[] = {
		{ "video0", O_RDWR }, { "video0", O_RDONLY }, { "audio0", O_RDWR },
		{ "osd0", O_RDWR },   { "demux0", O_RDWR },   { "frontend0", O_RDWR },
	};
	static const unsigned int dirs[] = { _IOC_READ, _IOC_WRITE, _IOC_READ | _IOC_WRITE };
	static const unsigned int sizes[] = { 4, 72 };

	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		int fd = dev_open(t[i].node, t[i].flags | O_NONBLOCK);
		const char *name = cname("robustness.unmapped_arg_efault_every_sized_request.%s_%s",
					 t[i].node, t[i].flags == O_RDONLY ? "rdonly" : "rdwr");
		unsigned long first_bad = 0;
		long first_rc = 0;
		int n = 0, bad = 0;

		if (fd == -ENOENT) {
			skip(name, "no such node");
			continue;
		}
		if (fd < 0) {
			check(name, 0, "open", "%s", rcname(fd));
			continue;
		}
		for (unsigned int nr = 0; nr < 256; nr++)
			for (size_t d = 0; d < ARRAY_SIZE(dirs); d++)
				for (size_t s = 0; s < ARRAY_SIZE(sizes); s++) {
					unsigned long req = _IOC(dirs[d], 'o', nr, sizes[s]);
					void *arg = (nr + d + s) % 2 ? bad_page() : NULL;
					long r = dev_ioctl(fd, req, arg);

					n++;
					if (r != -EFAULT && !bad++) {
						first_bad = req;
						first_rc = r;
					}
				}
		check(name, !bad, cname("EFAULT for all %d", n), "%s",
		      bad ? cname("%d others, first 0x%08lx -> %s", bad, first_bad,
				  rcname(first_rc))
			  : "EFAULT for all");
		dev_close(&fd);
	}
	card_reset();
	alive("unmapped_arguments");
}

static long osd(int o, int cmd, int x0, int y0, int x1, int y1, int color, void *data)
{
	struct ffdvb_osd_cmd c = { .cmd = cmd, .x0 = x0, .y0 = y0, .x1 = x1, .y1 = y1,
				   .color = color, .data = data };

	return dev_ioctl(o, FFDVB_OSD_SEND_CMD, &c);
}

static void range_part(void)
{
	static const long ok_or_inval[] = { 0, -EINVAL };
	int v = dev_open("video0", O_RDWR | O_NONBLOCK);
	int a = dev_open("audio0", O_RDWR | O_NONBLOCK);
	int o = dev_open("osd0", O_RDWR), d = dev_open("demux0", O_RDWR);

	check_rc("robustness.range.video_display_format_int_max_einval", -EINVAL,
		 dev_ioctl_val(v, FFDVB_VIDEO_SET_DISPLAY_FORMAT, INT_MAX));
	check_rc("robustness.range.video_display_format_0x80000000_einval", -EINVAL,
		 dev_ioctl_val(v, FFDVB_VIDEO_SET_DISPLAY_FORMAT, 0x80000000ul));
	check_rc("robustness.range.video_set_format_0xffffffff_einval", -EINVAL,
		 dev_ioctl_val(v, FFDVB_VIDEO_SET_FORMAT, 0xFFFFFFFFul));
	check_rc_in("robustness.range.video_slowmotion_0xffffffff", ok_or_inval, 2,
		    dev_ioctl_val(v, FFDVB_VIDEO_SLOWMOTION, 0xFFFFFFFFul));
	check_rc_in("robustness.range.video_fast_forward_int_max", ok_or_inval, 2,
		    dev_ioctl_val(v, FFDVB_VIDEO_FAST_FORWARD, INT_MAX));
	check_rc("robustness.range.video_select_source_0xffffffff_stored", 0,
		 dev_ioctl_val(v, FFDVB_VIDEO_SELECT_SOURCE, 0xFFFFFFFFul));
	check_rc("robustness.range.video_set_blank_0xffffffff", 0,
		 dev_ioctl_val(v, FFDVB_VIDEO_SET_BLANK, 0xFFFFFFFFul));
	check_rc("robustness.range.audio_channel_select_minus1_einval", -EINVAL,
		 dev_ioctl_val(a, FFDVB_AUDIO_CHANNEL_SELECT, (unsigned long)-1));
	check_rc("robustness.range.audio_set_mute_int_max", 0,
		 dev_ioctl_val(a, FFDVB_AUDIO_SET_MUTE, INT_MAX));
	check_rc("robustness.range.audio_set_av_sync_minus1", 0,
		 dev_ioctl_val(a, FFDVB_AUDIO_SET_AV_SYNC, (unsigned long)-1));
	struct ffdvb_audio_mixer mix = { 0xFFFFFFFFu, 0xFFFFFFFFu };

	check_rc("robustness.range.audio_set_mixer_0xffffffff_unchecked", 0,
		 dev_ioctl(a, FFDVB_AUDIO_SET_MIXER, &mix));

	uint8_t *block = calloc(1, 1024);

	osd(o, FFDVB_OSD_SetWindow, 5, 0, 0, 0, 0, NULL);
	check_rc_in("robustness.range.osd_open_int_max_size", ok_or_inval, 2,
		    osd(o, FFDVB_OSD_Open, 0, 0, INT_MAX, INT_MAX, 8, (void *)1));
	osd(o, FFDVB_OSD_Close, 0, 0, 0, 0, 0, NULL);
	check_rc_in("robustness.range.osd_open_negative_size", ok_or_inval, 2,
		    osd(o, FFDVB_OSD_Open, 100, 100, 0, 0, 4, (void *)1));
	osd(o, FFDVB_OSD_Close, 0, 0, 0, 0, 0, NULL);
	for (int color = 3; color <= 7; color += 2)
		check_rc_in(cname("robustness.range.osd_open_depth_color_%d", color), ok_or_inval,
			    2, osd(o, FFDVB_OSD_Open, 0, 0, 63, 15, color, (void *)1));
	check_rc_in("robustness.range.osd_fill_block_extreme_coordinates", ok_or_inval, 2,
		    osd(o, FFDVB_OSD_FillBlock, INT_MIN, INT_MIN, INT_MAX, INT_MAX, 1, NULL));
	check_rc_in("robustness.range.osd_line_extreme_coordinates", ok_or_inval, 2,
		    osd(o, FFDVB_OSD_Line, INT_MIN, INT_MAX, INT_MAX, INT_MIN, 1, NULL));
	check_rc_in("robustness.range.osd_move_window_extreme", ok_or_inval, 2,
		    osd(o, FFDVB_OSD_MoveWindow, INT_MAX, INT_MIN, 0, 0, 0, NULL));
	check_rc("robustness.range.osd_set_block_huge_stride_one_row", 0,
		 osd(o, FFDVB_OSD_SetBlock, 0, 0, 63, 0, INT_MAX, block));
	check_rc("robustness.range.osd_set_block_negative_stride_means_width", 0,
		 osd(o, FFDVB_OSD_SetBlock, 0, 0, 31, 7, -5, block));
	check_rc_in("robustness.range.osd_set_block_stride_1GiB_second_row", ok_or_inval, 2,
		    osd(o, FFDVB_OSD_SetBlock, 0, 0, 63, 1, 1 << 30, block));
	check_rc("robustness.range.osd_set_palette_indices_truncated_to_8_bits", 0,
		 osd(o, FFDVB_OSD_SetPalette, 0x1FF, 0, 0, 0, 0x1C8, block));
	check_rc("robustness.range.osd_text_negative_font", 0,
		 osd(o, FFDVB_OSD_Text, 0, 0, -5, 0, -1, "x"));
	check_rc("robustness.range.osd_set_window_int_max_einval", -EINVAL,
		 osd(o, FFDVB_OSD_SetWindow, INT_MAX, 0, 0, 0, 0, NULL));
	osd(o, FFDVB_OSD_SetWindow, 5, 0, 0, 0, 0, NULL);
	osd(o, FFDVB_OSD_Close, 0, 0, 0, 0, 0, NULL);

	struct ffdvb_dmx_stc stc = { .num = 0xFFFFFFFFu };

	check_rc("robustness.range.dmx_get_stc_num_0xffffffff_einval", -EINVAL,
		 dev_ioctl(d, FFDVB_DMX_GET_STC, &stc));

	/* huge sizes behind small buffers */
	struct ffdvb_video_still_picture sp = { .iFrame = (char *)block, .size = 0x7FFFFFFF };

	check_rc("robustness.huge.stillpicture_size_0x7fffffff_small_buffer_efault", -EFAULT,
		 dev_ioctl(v, FFDVB_VIDEO_STILLPICTURE, &sp));
	sp.iFrame = NULL;
	check_rc("robustness.huge.stillpicture_size_0x7fffffff_null_efault", -EFAULT,
		 dev_ioctl(v, FFDVB_VIDEO_STILLPICTURE, &sp));
	static const long fault_or_inval[] = { -EFAULT, -EINVAL };

	sp.iFrame = (char *)block;
	sp.size = -1;
	check_rc_in("robustness.huge.stillpicture_size_minus1", fault_or_inval, 2,
		    dev_ioctl(v, FFDVB_VIDEO_STILLPICTURE, &sp));
	osd(o, FFDVB_OSD_SetWindow, 5, 0, 0, 0, 0, NULL);
	osd(o, FFDVB_OSD_Open, 0, 0, 719, 575, 8, (void *)1);
	check_rc("robustness.huge.osd_set_block_720x576_from_1KiB_buffer_einval", -EINVAL,
		 osd(o, FFDVB_OSD_SetBlock, 0, 0, 719, 575, 0, page_end_buf(1024)));
	check_rc("robustness.huge.osd_set_palette_256_from_16_bytes_efault", -EFAULT,
		 osd(o, FFDVB_OSD_SetPalette, 255, 0, 0, 0, 0, page_end_buf(16)));
	osd(o, FFDVB_OSD_Close, 0, 0, 0, 0, 0, NULL);
	free(block);
	dev_close(&v);
	dev_close(&a);
	dev_close(&o);
	dev_close(&d);
	card_reset();
	alive("out_of_range_and_huge_values");
}

/* ---- clients killed while the device holds a blocked call ---- */

static long blocked_writer(void *arg)
{
	const char *node = arg;
	int video = !strcmp(node, "video0");
	int fd = dev_open(node, O_RDWR | O_NONBLOCK);
	uint8_t *pes = malloc(32768);
	long part;
	int bad;

	make_pes(pes, 32768, video ? 0xE0 : 0xC0);
	dev_ioctl_val(fd, video ? FFDVB_VIDEO_SELECT_SOURCE : FFDVB_AUDIO_SELECT_SOURCE, 1);
	fill_ring(fd, pes, 32768, 4096, &part, &bad);
	dev_set_nonblock(fd, 0);
	return dev_write(fd, pes, 32768); /* blocks: nothing plays */
}

static long blocked_get_event(void *arg)
{
	struct ffdvb_video_event ev;
	int fd = dev_open("video0", *(int *)arg);

	return dev_ioctl(fd, FFDVB_VIDEO_GET_EVENT, &ev);
}

static long blocked_still(void *arg)
{
	struct ffdvb_video_still_picture sp = { .size = 4 << 20 };
	int fd = dev_open("video0", O_RDWR);

	(void)arg;
	sp.iFrame = malloc((size_t)sp.size);
	make_es((uint8_t *)sp.iFrame, (size_t)sp.size, 9);
	return dev_ioctl(fd, FFDVB_VIDEO_STILLPICTURE, &sp);
}

static void killed(const char *name, long (*fn)(void *), void *arg, const char *node, int flags)
{
	struct child c;
	long rc;

	if (child_start(&c, fn, arg) < 0)
		return;
	if (child_wait(&c, 1500, &rc) == 0) {
		/* it did not block: nothing to kill, say so */
		skip(cname("robustness.killed_%s", name), "the call returned %s without blocking",
		     rcname(rc));
	} else {
		child_kill(&c);
		usleep(200000);
	}
	int fd = dev_open(node, flags | O_NONBLOCK);

	check_rc(cname("robustness.killed_%s_slot_released", name), 0, fd < 0 ? fd : 0);
	dev_close(&fd);
	card_reset();
	alive(cname("killed_%s", name));
}

static void killed_part(void)
{
	static int wr = O_RDWR, ro = O_RDONLY;

	killed("blocked_video_writer", blocked_writer, "video0", "video0", O_RDWR);
	killed("blocked_audio_writer", blocked_writer, "audio0", "audio0", O_RDWR);
	killed("blocked_get_event_writer", blocked_get_event, &wr, "video0", O_RDWR);
	killed("blocked_get_event_reader", blocked_get_event, &ro, "video0", O_RDONLY);
	killed("during_4MiB_stillpicture", blocked_still, NULL, "video0", O_RDWR);
}

/* ---- 50 clients opening and closing concurrently ---- */

static int open_cycle(const char *node, int flags, int busy_ok)
{
	int fd = dev_open(node, flags | O_NONBLOCK);

	if (fd >= 0) {
		if (!strcmp(node, "video0")) {
			struct ffdvb_video_status s;
			long r = video_status(fd, &s);

			if (r < 0) {
				printf("# client %d: %s GET_STATUS %s\n", getpid(), node,
				       rcname(r));
				close(fd);
				return 1;
			}
		}
		close(fd);
		return 0;
	}
	if ((fd == -EBUSY && busy_ok) || (fd == -EMFILE && !strcmp(node, "demux0")))
		return 0;
	printf("# client %d: open %s: %s\n", getpid(), node, rcname(fd));
	return 1;
}

static int client(void)
{
	int bad = 0;

	for (int i = 0; i < 30; i++) {
		bad += open_cycle("video0", O_RDONLY, 1);
		bad += open_cycle("video0", O_RDWR, 1);
		bad += open_cycle("audio0", O_RDWR, 1);
		bad += open_cycle("osd0", O_RDWR, 1);
		bad += open_cycle("demux0", O_RDWR, 0);
	}
	fflush(stdout);
	return bad > 255 ? 255 : bad;
}

static void concurrent_part(void)
{
	enum { N = 50 };
	pid_t pids[N];
	int bad = 0, hung = 0, started = 0;

	fflush(stdout);
	for (int i = 0; i < N; i++) {
		pids[i] = fork();
		if (pids[i] == 0)
			_exit(client());
		if (pids[i] > 0)
			started++;
	}
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int left = started; left > 0;) {
		int status;
		pid_t p = waitpid(-1, &status, WNOHANG);

		if (p > 0) {
			left--;
			if (!WIFEXITED(status) || WEXITSTATUS(status))
				bad++;
			continue;
		}
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (t.tv_sec - t0.tv_sec > 120) {
			for (int i = 0; i < N; i++)
				if (pids[i] > 0 && kill(pids[i], SIGKILL) == 0)
					hung++;
			while (waitpid(-1, NULL, 0) > 0)
				;
			break;
		}
		usleep(20000);
	}
	check("robustness.concurrent_50_clients_open_close_only_0_or_ebusy", !bad && !hung,
	      cname("%d clients, all clean", N), "%d started, %d with unexpected results, %d hung",
	      started, bad, hung);

	int fds[8], n = 0, ok = 1;

	fds[n++] = dev_open("video0", O_RDWR | O_NONBLOCK);
	for (int i = 0; i < 5; i++)
		fds[n++] = dev_open("video0", O_RDONLY | O_NONBLOCK);
	fds[n++] = dev_open("audio0", O_RDWR | O_NONBLOCK);
	fds[n++] = dev_open("osd0", O_RDWR);
	for (int i = 0; i < n; i++)
		if (fds[i] < 0)
			ok = 0;
	check("robustness.open_counters_restored_after_concurrent_clients", ok,
	      "1 video writer + 5 readers, audio0, osd0 open", "%s",
	      ok ? "all open" : "an open failed");
	for (int i = 0; i < n; i++)
		dev_close(&fds[i]);
	alive("concurrent_clients");
}

/* with --control: the daemon's own open counters must be back to 0 (no leaked files after
 * killed clients) */
static void no_leaked_files(void)
{
	char *json;

	if (!opts.control) {
		skip("robustness.daemon_reports_no_open_files", "needs --control PATH");
		return;
	}
	json = control_status_json(opts.control);
	for (size_t i = 0; i < ARRAY_SIZE(nodes); i++) {
		unsigned long long n = 0;
		int r = json ? json_u64(json, nodes[i], "openers", &n) : -errno;

		check(cname("robustness.daemon_reports_no_open_files.%s", nodes[i]),
		      r == 0 && n == 0, "0 openers", "%s",
		      r < 0 ? rcname(r) : cname("%llu openers", n));
	}
	free(json);
}

void group_robustness(void)
{
	random_part();
	unmapped_part();
	range_part();
	killed_part();
	concurrent_part();
	no_leaked_files();
}
