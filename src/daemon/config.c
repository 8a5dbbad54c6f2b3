/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ffdvbd.conf: sections and keys onto struct ffdvbd_options (config.h). */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ini.h"
#include "settings.h"

#define MAX_KEYS 32 /* distinct keys in one section: more than there are */

struct load {
	struct ffdvbd_options *o;
	struct ffdvbd_adapter_options *adapter; /* the [adapterN] being read, NULL in [daemon] */
	unsigned char seen[FFDVBD_MAX_ADAPTER + 1];
	int seen_daemon;
	char keys[MAX_KEYS][32]; /* keys of the current section, to refuse one given twice */
	int n_keys;
};

/* "adapterN", N 0..255 written without leading zeros: N, else -1 */
static int adapter_number(const char *name)
{
	const char *d = name + strlen("adapter");
	char *end;

	if (strncmp(name, "adapter", strlen("adapter")) || *d < '0' || *d > '9' ||
	    (d[0] == '0' && d[1]))
		return -1;
	long n = strtol(d, &end, 10);

	return *end || n > FFDVBD_MAX_ADAPTER ? -1 : (int)n;
}

static int on_section(void *ctx, const char *name, char *why, size_t whylen)
{
	struct load *l = ctx;
	int n;

	l->n_keys = 0;
	if (!strcmp(name, "daemon")) {
		if (l->seen_daemon++) {
			snprintf(why, whylen, "section [daemon] given twice");
			return -1;
		}
		l->adapter = NULL;
		return 0;
	}
	n = adapter_number(name);
	if (n < 0) {
		snprintf(why, whylen, "unknown section [%.64s] (expected [daemon] or [adapterN], "
			 "N 0..%d)", name, FFDVBD_MAX_ADAPTER);
		return -1;
	}
	if (l->seen[n]++) {
		snprintf(why, whylen, "section [adapter%d] given twice", n);
		return -1;
	}
	if (l->o->n_adapters == FFDVBD_MAX_ADAPTERS) {
		snprintf(why, whylen, "more than %d adapters", FFDVBD_MAX_ADAPTERS);
		return -1;
	}
	l->adapter = &l->o->adapters[l->o->n_adapters++];
	ffdvbd_adapter_defaults(l->adapter, n);
	return 0;
}

static int on_key(void *ctx, const char *section, const char *key, const char *value, char *why,
		  size_t whylen)
{
	struct load *l = ctx;
	char reason[160];
	int r;

	for (int i = 0; i < l->n_keys; i++) {
		if (!strcmp(l->keys[i], key)) {
			snprintf(why, whylen, "'%.31s' given twice in [%.32s]", key, section);
			return -1;
		}
	}
	reason[0] = '\0';
	if (l->adapter)
		r = ffdvbd_set_adapter_key(l->adapter, key, value, reason, sizeof(reason));
	else
		r = ffdvbd_set_daemon_key(l->o, key, value, reason, sizeof(reason));
	if (r == -1) {
		snprintf(why, whylen, "unknown key '%.64s' in [%.32s] (see ffdvbd.conf(5))", key,
			 section);
		return -1;
	}
	if (r < 0) {
		snprintf(why, whylen, "%s '%.64s': %s", key, value, reason);
		return -1;
	}
	if (l->n_keys < MAX_KEYS)
		snprintf(l->keys[l->n_keys++], sizeof(l->keys[0]), "%s", key);
	return 0;
}

static int by_number(const void *a, const void *b)
{
	return ((const struct ffdvbd_adapter_options *)a)->adapter -
	       ((const struct ffdvbd_adapter_options *)b)->adapter;
}

int ffdvbd_config_load(const char *path, struct ffdvbd_options *o, char *err, size_t errlen)
{
	static const struct ffdvbd_ini_handler handler = { on_section, on_key };
	struct load *l = calloc(1, sizeof(*l));
	FILE *f;
	int rc;

	if (!l) {
		snprintf(err, errlen, "%s: %s", path, strerror(ENOMEM));
		return -1;
	}
	f = fopen(path, "re");
	if (!f) {
		rc = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		free(l);
		return rc == -ENOENT ? -ENOENT : -1;
	}
	l->o = o;
	rc = ffdvbd_ini_parse(f, path, &handler, l, err, errlen);
	fclose(f);
	free(l);
	qsort(o->adapters, (size_t)o->n_adapters, sizeof(o->adapters[0]), by_number);
	return rc;
}
