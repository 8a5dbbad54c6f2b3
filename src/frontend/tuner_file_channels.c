/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The channel file of the file tuner: a libdvbv5 DVBv5 channel file (read by libdvbv5, as
 * dvbv5-zap reads it). libdvbv5 ignores keys it does not know, so an entry names its TS file
 * with an extra "FILE = path" line (relative to the channel file's directory), which we read
 * ourselves; without one the file is "<channel name>.ts" next to the channel file. Paths are
 * made absolute when the channel file is read.
 * docs/tuner.md describes the format. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libdvbv5/dvb-file.h>

#include "tuner_file.h"

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = 0;
	return s;
}

/* dir of path with a trailing '/', or "" */
static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	size_t n = slash ? (size_t)(slash - path) + 1 : 0;
	char *d = malloc(n + 1);

	if (d) {
		memcpy(d, path, n);
		d[n] = 0;
	}
	return d;
}

static char *join(const char *dir, const char *name, const char *suffix)
{
	size_t n = strlen(dir) + strlen(name) + strlen(suffix) + 1;
	char *s = malloc(n);

	if (s)
		snprintf(s, n, "%s%s%s", name[0] == '/' ? "" : dir, name, suffix);
	return s;
}

/* The FILE keys, by entry index (the order of the [sections], as libdvbv5 keeps it). */
static int read_file_keys(const char *path, char ***keys, unsigned int *n)
{
	FILE *fp = fopen(path, "r");
	char line[4096];
	int idx = -1;

	*keys = NULL;
	*n = 0;
	if (!fp)
		return -errno;
	while (fgets(line, sizeof(line), fp)) {
		char *s = trim(line), *eq;

		if (*s == '#' || !*s)
			continue;
		if (*s == '[') {
			char **k = realloc(*keys, (size_t)(idx + 2) * sizeof(**keys));

			if (!k)
				break;
			*keys = k;
			k[++idx] = NULL;
			*n = (unsigned int)idx + 1;
			continue;
		}
		eq = strchr(s, '=');
		if (idx < 0 || !eq)
			continue;
		*eq = 0;
		if (strcasecmp(trim(s), "FILE") == 0 && !(*keys)[idx])
			(*keys)[idx] = strdup(trim(eq + 1));
	}
	fclose(fp);
	return 0;
}

int ft_channels_load(struct ft_tuner *t, const char *path, char *err, size_t errlen)
{
	struct dvb_file *df;
	char **keys = NULL, *dir;
	unsigned int nkeys = 0, n = 0, idx = 0;
	int r = 0;
	FILE *probe = fopen(path, "r");

	if (!probe) {
		r = -errno;
		snprintf(err, errlen, "file:%s: %s", path, strerror(-r));
		return r;
	}
	fclose(probe);
	df = dvb_read_file_format(path, SYS_UNDEFINED, FILE_DVBV5);
	if (!df) {
		snprintf(err, errlen, "file:%s: not a DVBv5 channel file libdvbv5 can read", path);
		return -EINVAL;
	}
	{ /* absolute, so that the daemon may change its directory later */
		char *abs = realpath(path, NULL);

		dir = dir_of(abs ? abs : path);
		free(abs);
	}
	read_file_keys(path, &keys, &nkeys);
	for (struct dvb_entry *e = df->first_entry; e; e = e->next)
		n++;
	t->ch = calloc(n ? n : 1, sizeof(*t->ch));
	if (!dir || !t->ch) {
		r = -ENOMEM;
		goto out;
	}
	for (struct dvb_entry *e = df->first_entry; e; e = e->next, idx++) {
		struct ft_channel *c = &t->ch[t->nch];
		uint32_t freq = 0, delsys = SYS_UNDEFINED;
		char num[32];
		const char *name = e->channel;

		dvb_retrieve_entry_prop(e, DTV_FREQUENCY, &freq);
		dvb_retrieve_entry_prop(e, DTV_DELIVERY_SYSTEM, &delsys);
		if (!freq || delsys == SYS_UNDEFINED || delsys > 255)
			continue; /* cannot be tuned */
		if (!name) {
			snprintf(num, sizeof(num), "%u", freq);
			name = num;
		}
		c->name = strdup(name);
		c->file = idx < nkeys && keys[idx] ? join(dir, keys[idx], "")
						   : join(dir, name, ".ts");
		c->frequency = freq;
		c->delsys = delsys;
		t->nch++;
		if (!c->name || !c->file) {
			r = -ENOMEM;
			goto out;
		}
	}
	if (!t->nch) {
		snprintf(err, errlen, "file:%s: no entry with FREQUENCY and DELIVERY_SYSTEM", path);
		r = -EINVAL;
	}
out:
	for (unsigned int i = 0; i < nkeys; i++)
		free(keys[i]);
	free(keys);
	free(dir);
	dvb_file_free(df);
	return r;
}

void ft_channels_free(struct ft_tuner *t)
{
	for (unsigned int i = 0; i < t->nch; i++) {
		free(t->ch[i].name);
		free(t->ch[i].file);
	}
	free(t->ch);
	t->ch = NULL;
	t->nch = 0;
}

enum family { FAM_SAT, FAM_CABLE, FAM_TERR, FAM_ATSC, FAM_OTHER };

static enum family family(uint32_t s)
{
	if (fe_emul_is_satellite(s))
		return FAM_SAT;
	switch (s) {
	case SYS_DVBC_ANNEX_A:
	case SYS_DVBC_ANNEX_C:
	case SYS_ISDBC:
		return FAM_CABLE;
	case SYS_DVBT:
	case SYS_DVBT2:
	case SYS_ISDBT:
	case SYS_DTMB:
		return FAM_TERR;
	case SYS_ATSC:
	case SYS_ATSCMH:
	case SYS_DVBC_ANNEX_B:
		return FAM_ATSC;
	default:
		return FAM_OTHER;
	}
}

static uint32_t dist(uint32_t a, uint32_t b)
{
	return a > b ? a - b : b - a;
}

/* Satellite: the tuned frequency is the LNB's intermediate frequency (kHz); the entry has
 * the transponder's. Accept the local oscillators of the common LNBs (libdvbv5's list). */
static int sat_match(uint32_t tuned, uint32_t entry)
{
	static const uint32_t lo[] = { 0, 9750000, 10600000, 10750000, 11250000, 11300000,
				       5150000, 5750000, 10000000 };

	for (size_t i = 0; i < sizeof(lo) / sizeof(lo[0]); i++)
		if (dist(tuned, dist(entry, lo[i])) <= 2000)
			return 1;
	return 0;
}

const struct ft_channel *ft_channels_find(const struct ft_tuner *t, uint32_t delsys,
					  uint32_t frequency)
{
	for (unsigned int i = 0; i < t->nch; i++) {
		const struct ft_channel *c = &t->ch[i];

		if (family(c->delsys) != family(delsys))
			continue;
		if ((family(delsys) == FAM_SAT ? sat_match(frequency, c->frequency)
					       : dist(frequency, c->frequency) <= 500000) &&
		    access(c->file, R_OK) == 0)
			return c; /* several services share a frequency: any readable file */
	}
	return NULL;
}
