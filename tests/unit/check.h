/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The unit tests' assertions: each check is counted, a failing one prints a FAIL line with its
 * place and both values, and finish() turns the counts into the exit status. */
#ifndef FFDVB_TEST_CHECK_H
#define FFDVB_TEST_CHECK_H

#include <stdio.h>

static int failures, checks;

#define CHECK_LABELLED(what, cond)                                                           \
	do {                                                                                 \
		checks++;                                                                    \
		if (!(cond)) {                                                               \
			failures++;                                                          \
			printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, what);              \
		}                                                                            \
	} while (0)

#define CHECK(cond) CHECK_LABELLED(#cond, cond)

/* integers of any type up to 64 bits, compared as signed; EXPECT_EQ names the check */
#define EXPECT_EQ(what, got, want)                                                           \
	do {                                                                                 \
		long long g_ = (long long)(got), w_ = (long long)(want);                    \
		checks++;                                                                    \
		if (g_ != w_) {                                                              \
			failures++;                                                          \
			printf("FAIL %s:%d: %s (expected %lld = 0x%llx, got %lld = 0x%llx)\n", \
			       __FILE__, __LINE__, what, w_, (unsigned long long)w_, g_,      \
			       (unsigned long long)g_);                                      \
		}                                                                            \
	} while (0)

#define CHECK_EQ(got, want) EXPECT_EQ(#got " == " #want, got, want)

static inline int finish(const char *name)
{
	printf("%s: %d checks, %d failures\n", name, checks, failures);
	return failures ? 1 : 0;
}

#endif
