/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ffdvb-bench-osd: OSD figures through the real device (run inside the VM by bench/run.sh osd).
 *
 *   ffdvb-bench-osd ADAPTER ITERATIONS
 *
 * Opens one 720x576 8-bit window on osd0 (VDR's layout with the default OSD memory), then:
 *  - latency: ITERATIONS times an OSD_SEND_CMD(SetBlock) of the whole window through CUSE, and
 *    the time until ffdvbd reports that OSD plane presented (the control socket's status JSON:
 *    decoder.osd_presented / osd_presented_ns, CLOCK_MONOTONIC in the same machine);
 *  - sustained rate: small commands (FillBlock 32x32) as fast as the device takes them, and
 *    full-window SetBlocks per second.
 * Prints `figure NAME VALUE UNIT` lines. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "ffdvb/abi.h"
#include "ffdvb/clock.h"

#define W 720
#define H 576

static uint64_t now_ns(void)
{
	return ffdvb_monotonic_ns();
}

/* the daemon's status JSON; 0 or -1 */
static int status(int adapter, char *buf, size_t cap)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	size_t len = 0;
	ssize_t n;

	snprintf(sa.sun_path, sizeof(sa.sun_path), "/run/ffdvb/adapter%d.sock", adapter);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 ||
	    write(fd, "status --json\n", 14) != 14) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	while (len + 1 < cap && (n = read(fd, buf + len, cap - 1 - len)) > 0)
		len += (size_t)n;
	buf[len] = '\0';
	close(fd);
	return 0;
}

static unsigned long long field(const char *json, const char *name)
{
	char key[64];
	const char *p;

	snprintf(key, sizeof(key), "\"%s\":", name);
	p = strstr(json, key);
	return p ? strtoull(p + strlen(key), NULL, 10) : 0;
}

static int osd(int fd, int cmd, int x0, int y0, int x1, int y1, int color, void *data)
{
	struct ffdvb_osd_cmd c = { cmd, x0, y0, x1, y1, color, data };

	return ioctl(fd, FFDVB_OSD_SEND_CMD, &c);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	int adapter = argc > 1 ? atoi(argv[1]) : 0, iters = argc > 2 ? atoi(argv[2]) : 50;
	static char json[65536];
	static uint8_t block[W * H];
	uint32_t pal[256];
	uint64_t *lat = calloc((size_t)iters, sizeof(*lat));
	char path[64];
	int fd, done = 0;

	snprintf(path, sizeof(path), "/dev/dvb/adapter%d/osd0", adapter);
	fd = open(path, O_RDWR);
	if (fd < 0 || !lat) {
		fprintf(stderr, "bench: %s: %s\n", path, strerror(errno));
		return 1;
	}
	for (int i = 0; i < 256; i++)
		pal[i] = 0xff000000u | (uint32_t)(i * 0x010101);
	if (osd(fd, FFDVB_OSD_SetWindow, 1, 0, 0, 0, 0, NULL) ||
	    osd(fd, FFDVB_OSD_Open, 0, 0, W - 1, H - 1, 8, NULL) ||
	    osd(fd, FFDVB_OSD_SetPalette, 255, 0, 0, 0, 0, pal)) {
		fprintf(stderr, "bench: cannot open the OSD window: %s\n", strerror(errno));
		return 1;
	}
	for (int i = 0; i < iters; i++) {
		unsigned long long before;
		uint64_t t0, deadline;

		if (status(adapter, json, sizeof(json))) {
			fprintf(stderr, "bench: no control socket\n");
			return 1;
		}
		before = field(json, "osd_updates");
		memset(block, (i * 37 + 1) & 0xff, sizeof(block));
		t0 = now_ns();
		if (osd(fd, FFDVB_OSD_SetBlock, 0, 0, W - 1, H - 1, 0, block)) {
			fprintf(stderr, "bench: SetBlock: %s\n", strerror(errno));
			return 1;
		}
		deadline = t0 + 2000000000ull;
		while (now_ns() < deadline) {
			if (status(adapter, json, sizeof(json)) == 0 &&
			    field(json, "osd_presented") > before) {
				lat[done++] = field(json, "osd_presented_ns") - t0;
				break;
			}
			usleep(500);
		}
		usleep(20000); /* let the presenter settle between samples */
	}
	if (done < iters / 2) {
		fprintf(stderr, "bench: only %d of %d OSD updates were reported presented\n", done,
			iters);
		return 1;
	}
	qsort(lat, (size_t)done, sizeof(*lat), cmp_u64);
	printf("figure osd_setblock_to_screen_median %.2f ms\n", (double)lat[done / 2] / 1e6);
	printf("figure osd_setblock_to_screen_p90 %.2f ms\n", (double)lat[done * 9 / 10] / 1e6);
	printf("figure osd_setblock_to_screen_max %.2f ms\n", (double)lat[done - 1] / 1e6);
	printf("figure osd_frame_period 40 ms\n");

	/* sustained: small fills, then full-window blocks */
	{
		int n = 2000 * (iters / 50 > 0 ? iters / 50 : 1), m = 50;
		uint64_t t0 = now_ns();

		for (int i = 0; i < n; i++)
			osd(fd, FFDVB_OSD_FillBlock, (i * 32) % (W - 32), (i * 7) % (H - 32),
			    (i * 32) % (W - 32) + 31, (i * 7) % (H - 32) + 31, i & 0xff, NULL);
		printf("figure osd_fillblock_rate %.0f cmd/s\n",
		       n / ((double)(now_ns() - t0) / 1e9));
		t0 = now_ns();
		for (int i = 0; i < m; i++)
			osd(fd, FFDVB_OSD_SetBlock, 0, 0, W - 1, H - 1, 0, block);
		printf("figure osd_setblock_full_rate %.1f cmd/s\n",
		       m / ((double)(now_ns() - t0) / 1e9));
	}
	osd(fd, FFDVB_OSD_Close, 0, 0, 0, 0, 0, NULL);
	close(fd);
	free(lat);
	return 0;
}
