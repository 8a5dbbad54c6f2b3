/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The ffdvbd control socket ("status --json") and the few JSON numbers the payload checks
 * compare. Not a JSON parser: the daemon's output is flat and predictable. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "conform.h"

char *control_status_json(const char *path)
{
	size_t len;

	return control_command(path, "status --json\n", &len);
}

char *control_command(const char *path, const char *cmd, size_t *out_len)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	size_t len = 0, cap = 4096;
	char *out;
	int fd;

	if (strlen(path) >= sizeof sa.sun_path) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return NULL;
	if (connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0 ||
	    write(fd, cmd, strlen(cmd)) != (ssize_t)strlen(cmd))
		goto fail;
	out = malloc(cap);
	if (!out)
		goto fail;
	for (;;) {
		ssize_t n;

		if (cap - len < 1024) {
			char *bigger = realloc(out, cap * 2);

			if (!bigger) {
				free(out);
				goto fail;
			}
			out = bigger;
			cap *= 2;
		}
		n = read(fd, out + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			free(out);
			goto fail;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	out[len] = '\0';
	close(fd);
	*out_len = len;
	return out;
fail:;
	int e = errno;

	close(fd);
	errno = e;
	return NULL;
}

int json_u64(const char *json, const char *obj, const char *field, unsigned long long *v)
{
	char key[96];
	const char *p, *end;

	snprintf(key, sizeof key, "\"%s\"", obj);
	p = strstr(json, key);
	if (!p)
		return -ENOENT;
	p = strchr(p + strlen(key), '{');
	end = p ? strchr(p, '}') : NULL;
	if (!end)
		return -ENOENT;
	snprintf(key, sizeof key, "\"%s\"", field);
	p = strstr(p, key);
	if (!p || p > end)
		return -ENOENT;
	p += strlen(key);
	while (*p == ' ' || *p == ':')
		p++;
	char *num_end;

	errno = 0;
	*v = strtoull(p, &num_end, 10);
	return num_end == p || errno ? -ENOENT : 0;
}
