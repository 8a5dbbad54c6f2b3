/* Test streams made at test time by scripts/gen-streams.sh (with the ffmpeg command-line tool)
 * in the working directory, and reading them back whole. Tests that need them skip (77) when
 * ffmpeg is missing. */
#ifndef FFDVB_TEST_STREAMS_H
#define FFDVB_TEST_STREAMS_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>

#ifndef GEN_STREAMS
#error "GEN_STREAMS (path of scripts/gen-streams.sh) must be defined by the build"
#endif

static inline void test_need_ffmpeg(void)
{
	if (system("command -v ffmpeg >/dev/null 2>&1") != 0) {
		printf("SKIP: the ffmpeg command-line tool is missing: these tests compare with it\n");
		exit(77);
	}
}

/* makes the stream NAME in the working directory (gen-streams.sh keeps one already made) */
static inline void test_gen_stream(const char *name)
{
	char cmd[1024];
	int rc;

	test_need_ffmpeg();
	snprintf(cmd, sizeof(cmd), "sh '%s' . %s >/dev/null", GEN_STREAMS, name);
	rc = system(cmd);
	rc = WIFEXITED(rc) ? WEXITSTATUS(rc) : 1;
	if (rc == 77) {
		printf("SKIP: gen-streams.sh cannot run ffmpeg\n");
		exit(77);
	}
	if (rc != 0) {
		printf("FAIL: gen-streams.sh %s exited %d\n", name, rc);
		exit(1);
	}
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
