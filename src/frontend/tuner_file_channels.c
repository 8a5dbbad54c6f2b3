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

/* libdvbv5 1.22's dvb_read_file has two overflows on odd files, so the file is checked first
 * and refused with a reason instead: it stores an entry's properties in an array of
 * DTV_MAX_COMMAND without a bound (an entry with more writes past it), and formats
 * "value %s is invalid for %s" into 80 bytes on its stack (a long bad value writes past that;
 * glibc's fortify aborts). */
#define MAX_ENTRY_KEYS 64 /* key lines in one entry; below DTV_MAX_COMMAND */
#define V5_ERR_MSG 80     /* libdvbv5's message buffer */

/* a key for which libdvbv5 may say "value ... is invalid": its properties, COUNTRY and
 * POLARIZATION */
static int v5_may_refuse(const char *key)
{
	if (!strcasecmp(key, "COUNTRY") || !strcasecmp(key, "POLARIZATION"))
		return 1;
	for (size_t i = 0; i < sizeof(dvb_v5_name) / sizeof(dvb_v5_name[0]); i++)
		if (dvb_v5_name[i] && !strcasecmp(key, dvb_v5_name[i]))
			return 1;
	return 0;
}

/* Would libdvbv5's message about line p (a key line, from its first non-blank) overflow (1,
 * or -ENOMEM)? Its key and value are found as dvb_read_file finds them: strtok at '=', the
 * key's last character and the blanks before it cut off, the value up to '\n' after its
 * blanks. The message is untranslated: ffdvbd sets no locale. */
static int v5_message_overflows(const char *p)
{
	char *copy = strdup(p), *save = NULL, *key, *value, *q;
	int bad = 0;

	if (!copy)
		return -ENOMEM;
	key = strtok_r(copy, "=", &save);
	if (key) {
		q = &key[strlen(key) - 1];
		while (q > key && (q[-1] == ' ' || q[-1] == '\t'))
			q--;
		*q = 0;
		value = strtok_r(NULL, "\n", &save);
		if (value) {
			while (*value == ' ' || *value == '\t')
				value++;
			bad = sizeof("value  is invalid for ") + strlen(key) + strlen(value) >
				      V5_ERR_MSG &&
			      v5_may_refuse(key);
		}
	}
	free(copy);
	return bad;
}

/* Reads the file as dvb_read_file does (whole lines; blanks are ' ' and '\t'; lines that
 * start with '#', '\a' or end are skipped, '[' opens an entry), so that the FILE keys, by
 * entry index, belong to the entries libdvbv5 returns. Refuses what libdvbv5 would overflow
 * on. 0 or -errno with err set. */
static int read_file_keys(const char *path, char ***keys, unsigned int *n, char *err,
			  size_t errlen)
{
	FILE *fp = fopen(path, "r");
	char *line = NULL;
	size_t size = 0;
	unsigned int idx = 0, lineno = 0, entry_keys = 0;
	int r = 0;

	*keys = NULL;
	*n = 0;
	if (!fp) {
		r = -errno;
		snprintf(err, errlen, "file:%s: %s", path, strerror(-r));
		return r;
	}
	while (getline(&line, &size, fp) > 0) {
		char *p = line, *eq;

		lineno++;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '\n' || *p == '#' || *p == '\a' || *p == '\0')
			continue;
		if (*p == '[') {
			char **k = realloc(*keys, ((size_t)*n + 1) * sizeof(**keys));

			if (!k) {
				r = -ENOMEM;
				break;
			}
			*keys = k;
			idx = (*n)++;
			k[idx] = NULL;
			entry_keys = 0;
			continue;
		}
		if (!*n)
			continue; /* libdvbv5 refuses the file */
		if (++entry_keys > MAX_ENTRY_KEYS) {
			snprintf(err, errlen, "file:%s:%u: more than %d keys in one entry", path,
				 lineno, MAX_ENTRY_KEYS);
			r = -EINVAL;
			break;
		}
		if ((r = v5_message_overflows(p)) < 0)
			break;
		if (r) {
			snprintf(err, errlen, "file:%s:%u: value too long (libdvbv5 cannot report "
				 "it)", path, lineno);
			r = -EINVAL;
			break;
		}
		eq = strchr(p, '=');
		if (!eq)
			continue;
		*eq = 0;
		if (strcasecmp(trim(p), "FILE") == 0 && !(*keys)[idx] &&
		    !((*keys)[idx] = strdup(trim(eq + 1)))) {
			r = -ENOMEM;
			break;
		}
	}
	free(line);
	fclose(fp);
	if (r == -ENOMEM)
		snprintf(err, errlen, "file:%s: %s", path, strerror(ENOMEM));
	return r;
}

int ft_channels_load(struct ft_tuner *t, const char *path, char *err, size_t errlen)
{
	struct dvb_file *df = NULL;
	char **keys = NULL, *dir = NULL;
	unsigned int nkeys = 0, n = 0, idx = 0;
	int r = read_file_keys(path, &keys, &nkeys, err, errlen);

	if (r < 0)
		goto out;
	df = dvb_read_file_format(path, SYS_UNDEFINED, FILE_DVBV5);
	if (!df) {
		snprintf(err, errlen, "file:%s: not a DVBv5 channel file libdvbv5 can read", path);
		r = -EINVAL;
		goto out;
	}
	{ /* absolute, so that the daemon may change its directory later */
		char *abs = realpath(path, NULL);

		dir = dir_of(abs ? abs : path);
		free(abs);
	}
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
	if (df)
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
