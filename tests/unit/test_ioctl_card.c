/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The ioctl table (src/abi/ioctl_table.c) is honest: every row is driven into a real card
 * (with the "none" tuner behind frontend0, demux0 and dvr0) through its node operations, as the
 * transport calls them. A request marked ENOTTY or EINVAL must give exactly that errno; every
 * other one must not give ENOTTY (its arguments are zeros, so EINVAL and the like are fine:
 * the request was understood). 32-bit rows are driven as the transport converts them, with
 * their native number. Also: the table itself is consistent (one row per node and number, an
 * "(any other)" row per node, the card's node names). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#include <event2/event.h>

#include "check.h"
#include "abi/ioctl_table.h"
#include "ffdvb/card.h"
#include "ffdvb/tuner.h"

/* a request no node knows: 'o' 200 is unassigned in every DVB header */
#define UNKNOWN_REQUEST _IO('o', 200)

static const char *errname(int r)
{
	static char buf[32];

	switch (-r) {
	case ENOTTY: return "-ENOTTY";
	case EINVAL: return "-EINVAL";
	case EPERM: return "-EPERM";
	case EBUSY: return "-EBUSY";
	case EAGAIN: return "-EAGAIN";
	case EFAULT: return "-EFAULT";
	case EOPNOTSUPP: return "-EOPNOTSUPP";
	case ENODEV: return "-ENODEV";
	}
	snprintf(buf, sizeof(buf), "%d", r);
	return buf;
}

static void table_consistent(void)
{
	int any[FFDVB_NODE_COUNT] = { 0 };

	for (int t = 0; t < FFDVB_NODE_COUNT; t++)
		CHECK_LABELLED(ffdvb_node_name(t),
			       !strcmp(ffdvb_ioctl_node_name(t), ffdvb_node_name(t)));
	for (size_t i = 0; i < ffdvb_n_ioctls; i++) {
		const struct ffdvb_ioctl_info *r = &ffdvb_ioctls[i];
		char what[128];

		if (r->cmd == FFDVB_IOCTL_ANY) {
			any[r->node]++;
			continue;
		}
		snprintf(what, sizeof(what), "%s %s: the only row of its number on its node",
			 ffdvb_node_name(r->node), r->name);
		CHECK_LABELLED(what, ffdvb_ioctl_find((int)r->node, r->cmd) == r);
		snprintf(what, sizeof(what), "%s: the trace names it", r->name);
		CHECK_LABELLED(what, ffdvb_ioctl_name(r->cmd) &&
				     !strcmp(ffdvb_ioctl_name(r->cmd), r->name));
		if (r->support == FFDVB_IOCTL_COMPAT) {
			snprintf(what, sizeof(what), "%s: its native request has a row", r->name);
			CHECK_LABELLED(what, ffdvb_ioctl_find((int)r->node, r->native) &&
					     r->native != r->cmd);
		}
	}
	for (int t = 0; t < FFDVB_NODE_COUNT; t++) {
		char what[64];

		snprintf(what, sizeof(what), "%s: one '(any other)' row", ffdvb_node_name(t));
		CHECK_LABELLED(what, any[t] == 1);
	}
	CHECK_LABELLED("the unknown request is in no row",
		       ffdvb_ioctl_name(UNKNOWN_REQUEST) == NULL);
}

/* opens node t as a client that may call everything: a writer where the node has one (video0
 * answers EPERM before looking at the request on a read-only file), dvr0 read-only (dmxdev's
 * dvr refuses O_RDWR without DMXDEV_CAP_DUPLEX) */
static void *open_node(struct ffdvb_card *card, enum ffdvb_node_type t)
{
	const struct ffdvb_node_ops *ops = ffdvb_card_node_ops(t);
	int flags = (t == FFDVB_NODE_DVR ? O_RDONLY : O_RDWR) | O_NONBLOCK;
	void *file = NULL;
	int r = ops->open(ffdvb_card_node(card, t), flags, &file);
	char what[64];

	snprintf(what, sizeof(what), "open %s (%s)", ffdvb_node_name(t), errname(r));
	CHECK_LABELLED(what, r == 0);
	return r == 0 ? file : NULL;
}

static int call(enum ffdvb_node_type t, void *file, unsigned int cmd)
{
	static _Alignas(16) unsigned char buf[8192];
	struct ffdvb_ioctl io = { .cmd = cmd, .nonblock = 1 };

	memset(buf, 0, sizeof(buf));
	if (_IOC_SIZE(cmd))
		io.buf = buf;
	return ffdvb_card_node_ops(t)->ioctl(file, &io);
}

static void rows_honest(struct ffdvb_card *card)
{
	void *file[FFDVB_NODE_COUNT];
	int driven = 0;

	for (int t = 0; t < FFDVB_NODE_COUNT; t++)
		file[t] = open_node(card, t);
	for (size_t i = 0; i < ffdvb_n_ioctls; i++) {
		const struct ffdvb_ioctl_info *r = &ffdvb_ioctls[i];
		unsigned int cmd = r->cmd == FFDVB_IOCTL_ANY ? UNKNOWN_REQUEST
				   : r->support == FFDVB_IOCTL_COMPAT ? r->native
								       : r->cmd;
		int want = ffdvb_ioctl_expected_errno(r), got;
		char what[192];

		if (!file[r->node])
			continue;
		got = call(r->node, file[r->node], cmd);
		driven++;
		snprintf(what, sizeof(what), "%s %s (%s): %s%s, got %s", ffdvb_node_name(r->node),
			 r->name, ffdvb_ioctl_support_text(r->support), want ? "expected -" : "",
			 want == ENOTTY ? "ENOTTY" : want == EINVAL ? "EINVAL" : "anything but -ENOTTY",
			 errname(got));
		CHECK_LABELLED(what, want ? got == -want : got != -ENOTTY);
	}
	for (int t = FFDVB_NODE_COUNT - 1; t >= 0; t--)
		if (file[t])
			ffdvb_card_node_ops(t)->release(file[t]);
	printf("%d table rows driven into the card\n", driven);
}

int main(void)
{
	struct event_base *base = event_base_new();
	char err[256] = "";
	struct ffdvb_tuner *tuner;
	struct ffdvb_card *card;

	table_consistent();
	tuner = base ? ffdvb_tuner_new(base, "none", err, sizeof(err)) : NULL;
	CHECK_LABELLED("tuner none", tuner != NULL);
	if (!tuner) {
		printf("FAIL: ffdvb_tuner_new(none): %s\n", err);
		return 1;
	}
	struct ffdvb_card_config cfg = { .adapter = 0, .tuner = tuner };

	card = ffdvb_card_new(base, &cfg);
	CHECK_LABELLED("card", card != NULL);
	if (card)
		rows_honest(card);
	ffdvb_card_free(card);
	ffdvb_tuner_free(tuner);
	event_base_free(base);
	return finish("test_ioctl_card");
}
