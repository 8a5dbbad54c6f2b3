/* Files written whole or not at all: through path.tmp and a rename, so that a reader (a test, a
 * tool polling for a screenshot) never sees half a file. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "output_internal.h"

int output_write_atomic(const char *path, output_writer_fn fn, const void *ctx)
{
	size_t len = strlen(path);
	char *tmp = malloc(len + 5);
	FILE *f;
	int ret;

	if (!tmp)
		return -ENOMEM;
	memcpy(tmp, path, len);
	memcpy(tmp + len, ".tmp", 5);
	f = fopen(tmp, "wb");
	if (!f) {
		ret = -errno;
		free(tmp);
		return ret;
	}
	ret = fn(f, ctx);
	if (fclose(f) && !ret)
		ret = -errno;
	if (!ret && rename(tmp, path))
		ret = -errno;
	if (ret)
		unlink(tmp);
	free(tmp);
	return ret;
}
