/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer target for the file tuner's channel file reader (ft_channels_load in
 * src/frontend/tuner_file_channels.c): the bytes are a channel file (in a memfd, read through
 * /proc/self/fd/N as the tuner reads a path). Any file gives 0 with at least one channel or
 * -EINVAL/-ENOMEM with a "file:PATH: reason" message ("file:PATH:LINE: reason", LINE one of
 * the input's, for a file refused before libdvbv5 reads it: libdvbv5 1.22 would overflow on
 * it); every channel has a name, a tunable frequency and delivery system and an absolute TS
 * file, which is the FILE line of its own entry (or "<name>.ts") as an independent scan of
 * the bytes sees the entries libdvbv5 sees. A violation aborts; ASan/UBSan catch memory
 * errors (in our code: libdvbv5 itself is not instrumented). */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <libdvbv5/dvb-file.h>

#include "tuner_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);
void __sanitizer_set_report_fd(void *fd);

#define CHECK(cond)                                                                        \
	do {                                                                               \
		if (!(cond)) {                                                             \
			fprintf(stderr, "test_channels_fuzz: %s:%d: %s\n", __FILE__, __LINE__, \
				#cond);                                                    \
			abort();                                                           \
		}                                                                          \
	} while (0)

/* libdvbv5 1.22 leaks what an entry's repeated VIDEO_PID/AUDIO_PID lines held: not ours */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:libdvbv5.so\n";
}

static int mfd = -1, err_fd = -1, null_fd = -1;
static char path[64];

/* libdvbv5 tells stderr about every file it refuses: quiet while it reads, but sanitizer
 * reports still go to the real stderr */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	mfd = memfd_create("channels", MFD_CLOEXEC);
	err_fd = dup(2);
	null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (mfd < 0 || err_fd < 0 || null_fd < 0)
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", mfd);
	__sanitizer_set_report_fd((void *)(intptr_t)err_fd);
	return 0;
}

static void quiet(int on)
{
	fflush(stderr);
	dup2(on ? null_fd : err_fd, 2);
}

/* The FILE value of each entry, the entries found as libdvbv5 1.22's dvb_read_file finds
 * them: lines end at '\n' and are read as C strings; after spaces and tabs, '\n', '#', '\a'
 * or the end skip a line, '[' opens an entry. The first FILE line of an entry counts; its key
 * and value are trimmed of white space. */
struct ref {
	unsigned int n;
	char **file; /* [n], NULL: no FILE line */
};

static char *trimmed(const char *s, size_t n)
{
	while (n && isspace((unsigned char)*s))
		s++, n--;
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	return strndup(s, n);
}

static void ref_scan(const char *buf, size_t size, struct ref *r)
{
	r->n = 0;
	r->file = NULL;
	for (size_t pos = 0; pos < size;) {
		const char *nl = memchr(buf + pos, '\n', size - pos);
		size_t end = nl ? (size_t)(nl - buf) : size;
		size_t len = strnlen(buf + pos, end - pos); /* a C string: up to a NUL */
		const char *p = buf + pos, *stop = buf + pos + len;

		pos = end + 1;
		while (p < stop && (*p == ' ' || *p == '\t'))
			p++;
		if (p == stop || *p == '#' || *p == '\a')
			continue;
		if (*p == '[') {
			r->file = realloc(r->file, (r->n + 1) * sizeof(*r->file));
			CHECK(r->file);
			r->file[r->n++] = NULL;
			continue;
		}
		const char *eq = memchr(p, '=', (size_t)(stop - p));

		if (!r->n || !eq || r->file[r->n - 1])
			continue;
		char *key = trimmed(p, (size_t)(eq - p));

		if (!strcasecmp(key, "FILE"))
			r->file[r->n - 1] = trimmed(eq + 1, (size_t)(stop - eq - 1));
		free(key);
	}
}

static void ref_free(struct ref *r)
{
	for (unsigned int i = 0; i < r->n; i++)
		free(r->file[i]);
	free(r->file);
}

static char *expect_file(const char *dir, const char *name, const char *suffix)
{
	char *s = NULL;

	CHECK(asprintf(&s, "%s%s%s", name[0] == '/' ? "" : dir, name, suffix) >= 0);
	return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ft_tuner t;
	char err[512] = "";
	int r;

	if (ftruncate(mfd, 0) != 0 || pwrite(mfd, data, size, 0) != (ssize_t)size)
		abort();
	memset(&t, 0, sizeof(t));
	quiet(1);
	r = ft_channels_load(&t, path, err, sizeof(err));
	quiet(0);

	CHECK(r == 0 || r == -EINVAL || r == -ENOMEM);
	CHECK((r == 0) == (t.nch > 0) || r == -ENOMEM);
	/* a file refused before libdvbv5 reads it (it would overflow) names the line */
	int refused_early = 0;

	if (r < 0) {
		char head[96];
		size_t hl = (size_t)snprintf(head, sizeof(head), "file:%s:", path);
		unsigned long line;

		CHECK(!strncmp(err, head, hl) && strlen(err) > hl + 1);
		if (sscanf(err + hl, "%lu:", &line) == 1) {
			size_t lines = 1;

			for (size_t k = 0; k < size; k++)
				lines += data[k] == '\n';
			CHECK(line >= 1 && line <= lines);
			refused_early = 1;
		}
	}
	if (r == -ENOMEM) {
		ft_channels_free(&t);
		return 0;
	}

	/* the same entries again, to match each channel with its entry */
	struct ref ref;
	struct dvb_file *df = NULL;
	/* the reader's folder of relative names (a memfd's link does not resolve: the path's) */
	char *abs = realpath(path, NULL), *dir;
	const char *base = abs ? abs : path;

	dir = strndup(base, (size_t)(strrchr(base, '/') - base) + 1);
	ref_scan((const char *)data, size, &ref);
	if (!refused_early) {
		quiet(1);
		df = dvb_read_file_format(path, SYS_UNDEFINED, FILE_DVBV5);
		quiet(0);
	}
	CHECK(df || !t.nch);
	unsigned int idx = 0, i = 0;

	for (struct dvb_entry *e = df ? df->first_entry : NULL; e; e = e->next, idx++) {
		uint32_t freq = 0, delsys = SYS_UNDEFINED;
		char num[32];
		const char *name = e->channel;

		dvb_retrieve_entry_prop(e, DTV_FREQUENCY, &freq);
		dvb_retrieve_entry_prop(e, DTV_DELIVERY_SYSTEM, &delsys);
		if (!freq || delsys == SYS_UNDEFINED || delsys > 255)
			continue;
		CHECK(i < t.nch);
		CHECK(idx < ref.n); /* libdvbv5 finds no entry the scan does not */
		const struct ft_channel *c = &t.ch[i++];

		if (!name) {
			snprintf(num, sizeof(num), "%u", freq);
			name = num;
		}
		CHECK(c->name && !strcmp(c->name, name));
		CHECK(c->frequency == freq && c->delsys == delsys);
		char *want = ref.file[idx] ? expect_file(dir, ref.file[idx], "")
					   : expect_file(dir, name, ".ts");

		if (!c->file || strcmp(c->file, want)) {
			fprintf(stderr, "test_channels_fuzz: entry %u: file '%s', its entry says "
				"'%s'\n", idx, c->file ? c->file : "(null)", want);
			abort();
		}
		CHECK(c->file[0] == '/');
		free(want);
	}
	CHECK(i == t.nch);
	if (df)
		dvb_file_free(df);
	ref_free(&ref);
	free(dir);
	free(abs);
	ft_channels_free(&t);
	CHECK(!t.ch && !t.nch);
	return 0;
}
