/* Shared helpers of the card unit tests: a card on a libevent base with a fake clock, counted
 * wake-up hooks, and node calls as the transport would make them. */
#ifndef TEST_CARD_UTIL_H
#define TEST_CARD_UTIL_H

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "ffdvb/abi.h"
#include "ffdvb/card.h"
#include "card_internal.h"

static int failures, checks;

#define CHECK(cond)                                                                          \
	do {                                                                                 \
		checks++;                                                                    \
		if (!(cond)) {                                                               \
			failures++;                                                          \
			printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond);             \
		}                                                                            \
	} while (0)

#define CHECK_EQ(got, want)                                                                  \
	do {                                                                                 \
		long long g_ = (long long)(got), w_ = (long long)(want);                    \
		checks++;                                                                    \
		if (g_ != w_) {                                                              \
			failures++;                                                          \
			printf("FAIL %s:%d: %s == %lld, expected %s == %lld\n", __FILE__,   \
			       __LINE__, #got, g_, #want, w_);                               \
		}                                                                            \
	} while (0)

struct env {
	struct event_base *base;
	struct ffdvb_card *card;
	const struct ffdvb_node_ops *ops;
	uint64_t now;
	int wakes[FFDVB_NODE_COUNT];
};

static struct env E;

static inline uint64_t fake_now(void *ctx)
{
	return *(uint64_t *)ctx;
}

static inline void count_wake(void *ctx)
{
	(*(int *)ctx)++;
}

static inline void env_setup(uint32_t drain_rate)
{
	struct ffdvb_card_config cfg = { .adapter = 0, .drain_rate = drain_rate };

	memset(&E, 0, sizeof(E));
	E.base = event_base_new();
	E.card = ffdvb_card_new(E.base, &cfg);
	if (!E.base || !E.card) {
		printf("FAIL: cannot create card\n");
		exit(1);
	}
	E.now = 1000000000ull;
	E.card->now_ns = fake_now;
	E.card->now_ctx = &E.now;
	E.ops = ffdvb_card_node_ops(FFDVB_NODE_VIDEO);
	for (int t = 0; t < FFDVB_NODE_COUNT; t++)
		ffdvb_card_set_wake(E.card, t, count_wake, &E.wakes[t]);
}

static inline void env_teardown(void)
{
	ffdvb_card_free(E.card);
	event_base_free(E.base);
}

static inline void *xopen(enum ffdvb_node_type t, int flags, int *rc)
{
	void *f = NULL;
	int r = E.ops->open(ffdvb_card_node(E.card, t), flags, &f);

	if (rc)
		*rc = r;
	return r == 0 ? f : NULL;
}

static inline void xclose(void *f)
{
	if (f)
		E.ops->release(f);
}

/* an _IO ioctl with an integer argument */
static inline int io_arg(void *f, unsigned int cmd, unsigned long arg)
{
	struct ffdvb_ioctl io = { .cmd = cmd, .arg = arg };

	return E.ops->ioctl(f, &io);
}

/* an ioctl with a struct argument (copied in and out by the transport) */
static inline int io_buf(void *f, unsigned int cmd, void *buf, int nonblock)
{
	struct ffdvb_ioctl io = { .cmd = cmd, .buf = buf, .nonblock = nonblock };

	return E.ops->ioctl(f, &io);
}

/* an ioctl with a struct and a fetched payload */
static inline int io_data(void *f, unsigned int cmd, void *buf, void *data, size_t len, int fault)
{
	struct ffdvb_ioctl io = { .cmd = cmd, .buf = buf, .data = fault ? NULL : data,
				  .data_len = fault ? 0 : len, .data_fault = fault };

	return E.ops->ioctl(f, &io);
}

static inline int finish(const char *name)
{
	printf("%s: %d checks, %d failures\n", name, checks, failures);
	return failures ? 1 : 0;
}

#endif
