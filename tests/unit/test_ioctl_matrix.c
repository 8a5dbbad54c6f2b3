/* SPDX-License-Identifier: GPL-2.0-or-later */
/* README.md's ioctl support matrix is the daemon's table: the lines between its ioctl-matrix
 * markers must be exactly what `ffdvbctl ioctls --markdown` prints (ffdvb_ioctl_matrix).
 * README.md's path comes from $FFDVB_README (set by ctest). Refresh a stale copy with
 * `cmake --build BUILD --target readme-ioctls`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "abi/ioctl_table.h"

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *text = NULL;
	size_t len = 0;

	if (!f)
		return NULL;
	FILE *m = open_memstream(&text, &len);
	int c;

	while (m && (c = fgetc(f)) != EOF)
		fputc(c, m);
	fclose(f);
	if (!m || fclose(m) != 0)
		return NULL;
	return text;
}

int main(void)
{
	const char *readme = getenv("FFDVB_README");
	char *text, *generated = NULL, *begin, *end;
	size_t glen = 0;
	FILE *m = open_memstream(&generated, &glen);

	if (!readme || !(text = slurp(readme))) {
		printf("FAIL: cannot read README.md ($FFDVB_README=%s)\n", readme ? readme : "unset");
		return 1;
	}
	ffdvb_ioctl_matrix(m, 1);
	fclose(m);
	begin = strstr(text, "<!-- ioctl-matrix begin");
	end = strstr(text, "<!-- ioctl-matrix end -->");
	CHECK_LABELLED("README.md has the ioctl-matrix markers", begin && end && end > begin);
	if (!begin || !end || end < begin)
		return finish("test_ioctl_matrix");
	begin = strchr(begin, '\n') + 1;
	*end = '\0';
	if (strcmp(begin, generated) != 0) {
		/* the first line that differs, to say what is stale */
		const char *a = begin, *b = generated, *la = a, *lb = b;
		int line = 1;

		while (*a && *a == *b) {
			if (*a == '\n') {
				line++;
				la = a + 1;
				lb = b + 1;
			}
			a++, b++;
		}
		printf("README.md, line %d of the matrix: '%.*s'\n", line, (int)strcspn(la, "\n"),
		       la);
		printf("the table's line %d:             '%.*s'\n", line, (int)strcspn(lb, "\n"), lb);
	}
	CHECK_LABELLED("README.md's ioctl matrix is the table's (refresh: cmake --build BUILD "
		       "--target readme-ioctls)", strcmp(begin, generated) == 0);
	free(generated);
	free(text);
	return finish("test_ioctl_matrix");
}
