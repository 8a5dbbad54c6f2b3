/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ffdvb-play: a minimal client of a full-featured DVB adapter, as VDR drives it in replay: it
 * opens video0 and audio0, selects memory playback, plays a transport stream file with one
 * 188-byte write per packet (video PIDs to video0, audio PIDs to audio0, blocking, so the device
 * paces it), waits until the device has played it out (the STC stands still), and can put a
 * text message on osd0 meanwhile. For demos, smoke tests and the VM
 * tests; it works with any av7110-compatible adapter.
 *
 *   ffdvb-play [--adapter N] [--osd TEXT] [--hold SECONDS] FILE.ts
 *
 * Prints "played BYTES bytes in SECONDS s" on success. Exit 0, 1 on errors, 2 on usage. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "ffdvb/abi.h"
#include "ffdvb/clock.h"
#include "ffdvb/ts.h"

static double now_s(void)
{
	return (double)ffdvb_monotonic_ns() / 1e9;
}

static int xioctl(int fd, unsigned long req, unsigned long arg, const char *what)
{
	if (ioctl(fd, req, arg) < 0) {
		fprintf(stderr, "ffdvb-play: %s: %s\n", what, strerror(errno));
		return -1;
	}
	return 0;
}

static int write_all(int fd, const uint8_t *p, size_t len)
{
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			fprintf(stderr, "ffdvb-play: write: %s\n", n < 0 ? strerror(errno) : "0 bytes");
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int osd_cmd(int fd, int cmd, int x0, int y0, int x1, int y1, int color, void *data)
{
	struct ffdvb_osd_cmd c = { cmd, x0, y0, x1, y1, color, data };

	return ioctl(fd, FFDVB_OSD_SEND_CMD, &c);
}

/* a 4-bit window along the bottom with the text, white on translucent blue */
static int osd_message(int adapter, const char *text)
{
	char path[64];
	int fd;
	uint32_t pal[2] = { 0xc0802000u, 0xffffffffu }; /* 0xAABBGGRR: blue, white */

	snprintf(path, sizeof(path), "/dev/dvb/adapter%d/osd0", adapter);
	fd = open(path, O_RDWR);
	if (fd < 0) {
		fprintf(stderr, "ffdvb-play: %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (osd_cmd(fd, FFDVB_OSD_SetWindow, 1, 0, 0, 0, 0, NULL) ||
	    osd_cmd(fd, FFDVB_OSD_Open, 60, 480, 659, 527, 4, NULL) ||
	    /* entries color..x0 = 0..1 */
	    osd_cmd(fd, FFDVB_OSD_SetPalette, 1, 0, 0, 0, 0, pal) ||
	    osd_cmd(fd, FFDVB_OSD_Fill, 0, 0, 0, 0, 0, NULL) ||
	    osd_cmd(fd, FFDVB_OSD_Text, 16, 12, 2, 0, (0 << 16) | 1, (void *)text)) {
		fprintf(stderr, "ffdvb-play: OSD_SEND_CMD: %s\n", strerror(errno));
		close(fd);
		return -1;
	}
	return fd; /* the OSD stays after close too, as on the card */
}

/* What was written is still in the device's buffers: wait as VDR does at the end of a
 * recording, until the STC (DMX_GET_STC on demux0) stands still for 1.5 s (10 s at most; ffdvbd
 * shows the pictures its decoder holds back after 1 s without data), so that closing video0
 * does not cut the end off. */
static void wait_played_out(int adapter)
{
	char path[64];
	struct ffdvb_dmx_stc stc = { .num = 0 };
	uint64_t last = ~0ull;
	double still_since = now_s(), end = now_s() + 10;
	int fd;

	snprintf(path, sizeof(path), "/dev/dvb/adapter%d/demux0", adapter);
	fd = open(path, O_RDWR);
	if (fd < 0)
		return;
	while (now_s() < end && now_s() - still_since < 1.5) {
		usleep(50000);
		if (ioctl(fd, FFDVB_DMX_GET_STC, &stc) < 0)
			break;
		if (stc.stc != last) {
			last = stc.stc;
			still_since = now_s();
		}
	}
	close(fd);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "adapter", required_argument, NULL, 'a' },
		{ "osd", required_argument, NULL, 'o' },
		{ "hold", required_argument, NULL, 'H' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int adapter = 0, c, vfd, afd, osd = -1;
	const char *text = NULL;
	double hold = 0, t0;
	signed char kind[8192] = { 0 };
	uint8_t pkt[188];
	size_t bytes = 0;
	char path[64];
	FILE *in;

	while ((c = getopt_long(argc, argv, "a:o:H:h", opts, NULL)) != -1) {
		switch (c) {
		case 'a':
			adapter = atoi(optarg);
			break;
		case 'o':
			text = optarg;
			break;
		case 'H':
			hold = atof(optarg);
			break;
		case 'h':
			printf("usage: ffdvb-play [--adapter N] [--osd TEXT] [--hold SECONDS] FILE.ts\n");
			return 0;
		default:
			return 2;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "usage: ffdvb-play [--adapter N] [--osd TEXT] [--hold SECONDS] FILE.ts\n");
		return 2;
	}
	in = fopen(argv[optind], "rb");
	if (!in) {
		fprintf(stderr, "ffdvb-play: %s: %s\n", argv[optind], strerror(errno));
		return 1;
	}
	snprintf(path, sizeof(path), "/dev/dvb/adapter%d/video0", adapter);
	vfd = open(path, O_RDWR);
	snprintf(path, sizeof(path), "/dev/dvb/adapter%d/audio0", adapter);
	afd = open(path, O_RDWR);
	if (vfd < 0 || afd < 0) {
		fprintf(stderr, "ffdvb-play: cannot open video0/audio0 of adapter %d: %s\n", adapter,
			strerror(errno));
		return 1;
	}
	/* VDR's pmAudioVideo */
	if (xioctl(vfd, FFDVB_VIDEO_SET_BLANK, 1, "VIDEO_SET_BLANK") ||
	    xioctl(afd, FFDVB_AUDIO_SELECT_SOURCE, FFDVB_AUDIO_SOURCE_MEMORY, "AUDIO_SELECT_SOURCE") ||
	    xioctl(afd, FFDVB_AUDIO_SET_AV_SYNC, 1, "AUDIO_SET_AV_SYNC") ||
	    xioctl(afd, FFDVB_AUDIO_PLAY, 0, "AUDIO_PLAY") ||
	    xioctl(vfd, FFDVB_VIDEO_SELECT_SOURCE, FFDVB_VIDEO_SOURCE_MEMORY, "VIDEO_SELECT_SOURCE") ||
	    xioctl(vfd, FFDVB_VIDEO_PLAY, 0, "VIDEO_PLAY"))
		return 1;
	if (text && (osd = osd_message(adapter, text)) < 0)
		return 1;
	t0 = now_s();
	while (fread(pkt, 1, sizeof(pkt), in) == sizeof(pkt)) {
		enum ffdvb_ts_kind k = ffdvb_ts_route(kind, pkt);

		if (k == FFDVB_TS_UNKNOWN)
			continue; /* PAT, PMT, other tables */
		if (write_all(k == FFDVB_TS_VIDEO ? vfd : afd, pkt, sizeof(pkt)))
			return 1;
		bytes += sizeof(pkt);
	}
	/* the last video PES in TS is unbounded: a packet that starts a padding PES ends it */
	for (int pid = 0; pid < 8192; pid++) {
		if (kind[pid] != FFDVB_TS_VIDEO)
			continue;
		ffdvb_ts_pes_end(pkt, pid);
		if (write_all(vfd, pkt, sizeof(pkt)))
			return 1;
	}
	printf("played %zu bytes in %.2f s\n", bytes, now_s() - t0);
	fflush(stdout);
	wait_played_out(adapter);
	if (hold > 0)
		usleep((useconds_t)(hold * 1e6));
	fclose(in);
	if (osd >= 0)
		close(osd);
	close(afd);
	close(vfd);
	return 0;
}
