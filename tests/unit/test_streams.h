/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Test streams made at test time by scripts/gen-streams.sh (with the ffmpeg command-line tool)
 * in the working directory, and reading them back whole. Tests that need them skip (77) when
 * ffmpeg is missing. */
#ifndef FFDVB_TEST_STREAMS_H
#define FFDVB_TEST_STREAMS_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef GEN_STREAMS
#error "GEN_STREAMS (path of scripts/gen-streams.sh) must be defined by the build"
#endif

static inline void test_need_ffmpeg(void)
{
	if (system("command -v ffmpeg >/dev/null 2>&1") != 0) {
		printf("SKIP: the ffmpeg command-line tool is missing: no test streams (scripts/setup.sh "
		       "installs it)\n");
		exit(77);
	}
}

/* Makes the stream NAME in DIR (once: an existing file is kept) and returns its path, valid
 * until eight more calls. Exits 77 (ctest: skipped) with a loud line without the ffmpeg CLI. */
static inline const char *test_stream_in(const char *dir, const char *name)
{
	static char paths[8][512];
	static unsigned int next;
	char cmd[2048], *path = paths[next++ % 8];
	int rc;

	snprintf(path, sizeof(paths[0]), "%s/%s", dir, name);
	if (access(path, R_OK) == 0)
		return path;
	test_need_ffmpeg();
	snprintf(cmd, sizeof(cmd), "sh '%s' '%s' '%s' >/dev/null", GEN_STREAMS, dir, name);
	rc = system(cmd);
	rc = WIFEXITED(rc) ? WEXITSTATUS(rc) : 1;
	if (rc == 77) {
		printf("SKIP: gen-streams.sh cannot run ffmpeg (scripts/setup.sh installs it)\n");
		exit(77);
	}
	if (rc != 0 || access(path, R_OK) != 0) {
		printf("FAIL: gen-streams.sh could not make %s (exit %d)\n", name, rc);
		exit(1);
	}
	return path;
}

/* makes the stream NAME in the working directory */
static inline void test_gen_stream(const char *name)
{
	(void)test_stream_in(".", name);
}

/* the whole file, or the test fails */
static inline uint8_t *test_read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL, *bigger;
	size_t cap = 0, n = 0, r;

	if (!f) {
		printf("FAIL: cannot open %s\n", path);
		exit(1);
	}
	do {
		if (n + 65536 > cap) {
			cap = (n + 65536) * 2;
			bigger = realloc(buf, cap);
			if (!bigger) {
				printf("FAIL: out of memory reading %s\n", path);
				exit(1);
			}
			buf = bigger;
		}
		r = fread(buf + n, 1, cap - n, f);
		n += r;
	} while (r > 0);
	fclose(f);
	*len = n;
	return buf;
}

#endif
