/* SPDX-License-Identifier: GPL-2.0-or-later */
/* PTS unwrapping and discontinuity absorption per stream (dec_internal.h). */
#include "dec_internal.h"

#define PTS_WRAP (1ll << 33)

void timeline_init(struct timeline *t, int64_t max_jump, struct timeline_shared *shared)
{
	*t = (struct timeline){ .max_jump = max_jump, .shared = shared };
}

void timeline_restart(struct timeline *t)
{
	uint64_t jumps = t->jumps;

	timeline_init(t, t->max_jump, t->shared);
	t->jumps = jumps;
	t->offset = t->shared->offset;
	t->gen = t->shared->gen;
}

/* the offset after a jump: the other stream's if it jumped to about the same place */
static void new_offset(struct timeline *t, int64_t raw)
{
	struct timeline_shared *sh = t->shared;
	int64_t own = t->expect - raw;

	if (sh->gen != t->gen && own - sh->offset <= 2 * t->max_jump &&
	    sh->offset - own <= 2 * t->max_jump) {
		t->offset = sh->offset;
	} else {
		t->offset = own;
		sh->offset = own;
		sh->gen++;
	}
	t->gen = sh->gen;
}

/* the unwrapped value of pts33 nearest to the last one */
static int64_t unwrap(const struct timeline *t, int64_t pts33)
{
	int64_t v = pts33 + (t->last_raw & ~(PTS_WRAP - 1));

	if (v - t->last_raw > PTS_WRAP / 2)
		v -= PTS_WRAP;
	else if (t->last_raw - v > PTS_WRAP / 2)
		v += PTS_WRAP;
	return v;
}

int64_t timeline_map(struct timeline *t, int64_t pts33, int64_t duration)
{
	int64_t raw, tl;

	if (pts33 < 0) {
		tl = t->started ? t->expect : 0;
		t->expect = tl + duration;
		return tl;
	}
	raw = t->started ? unwrap(t, pts33) : (pts33 & (PTS_WRAP - 1));
	tl = raw + t->offset;
	if (t->started && (tl - t->expect > t->max_jump || t->expect - tl > t->max_jump)) {
		new_offset(t, raw);
		tl = raw + t->offset;
		t->jumps++;
	}
	t->started = 1;
	t->last_raw = raw;
	t->expect = tl + duration;
	return tl;
}
