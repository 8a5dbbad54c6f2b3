// SPDX-License-Identifier: GPL-2.0-or-later
/* Files written whole or not at all, and safely by a daemon that may run as root: the contents
 * go to a new file that mkostemp() creates in the destination folder (O_EXCL: never a planted
 * symlink or FIFO, mode 0600 while it is written), then a rename over the name (which replaces
 * a link at that name instead of following it). A reader never sees half a file. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "output_internal.h"

int output_write_atomic(const char *path, output_writer_fn fn, const void *ctx)
{
	size_t len = strlen(path);
	char *tmp = malloc(len + 8);
	int ret;

	if (!tmp)
		return -ENOMEM;
	memcpy(tmp, path, len);
	memcpy(tmp + len, ".XXXXXX", 8);
	int fd = mkostemp(tmp, O_CLOEXEC);
	FILE *f = fd >= 0 ? fdopen(fd, "wb") : NULL;
	if (!f) {
		ret = -errno;
		if (fd >= 0) {
			close(fd);
			unlink(tmp);
		}
		free(tmp);
		return ret;
	}
	ret = fn(f, ctx);
	/* whole now: readable as a file written with the usual umask would be */
	if (!ret && fflush(f))
		ret = -errno;
	if (!ret && fchmod(fd, 0644))
		ret = -errno;
	if (fclose(f) && !ret)
		ret = -errno;
	if (!ret && rename(tmp, path))
		ret = -errno;
	if (ret)
		unlink(tmp);
	free(tmp);
	return ret;
}
