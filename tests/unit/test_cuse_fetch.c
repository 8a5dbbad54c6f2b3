/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Caller-memory reads of the CUSE transport (src/cuse/cuse_fetch.c), on this process itself:
 * blocks, strided rows without gaps, strings that end right before an unmapped page, and
 * faults reported as -EFAULT. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "check.h"
#include "cuse_fetch.h"
#include "ffdvb/checksum.h"

static unsigned char dst[1 << 20];

int main(void)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	pid_t self = getpid();
	/* two pages, the second unmapped */
	unsigned char *map = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
				  -1, 0);

	if (map == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	munmap(map + page, page);

	/* a 1 MB block arrives whole */
	static unsigned char big[1000000];

	for (size_t i = 0; i < sizeof(big); i++)
		big[i] = (unsigned char)(i * 7 + 3);
	struct ffdvb_payload p = { .kind = FFDVB_PAYLOAD_BLOCK, .addr = (uintptr_t)big, .len = sizeof(big) };
	ssize_t probe = ffdvb_fetch_payload(self, &p, dst);

	if (probe == -EPERM || probe == -ENOSYS) {
		/* e.g. a container whose seccomp profile forbids process_vm_readv */
		printf("SKIP: process_vm_readv on ourselves fails (%s); the transport would use "
		       "ioctl retries only\n", strerror((int)-probe));
		return 77;
	}

	EXPECT_EQ("block 1 MB", ffdvb_fetch_payload(self, &p, dst), sizeof(big));
	EXPECT_EQ("block checksum", ffdvb_fnv1a(FFDVB_FNV1A_INIT, dst, sizeof(big)),
		  ffdvb_fnv1a(FFDVB_FNV1A_INIT, big, sizeof(big)));

	/* 576 rows of 720 at stride 1000: rows concatenated */
	static unsigned char frame[576 * 1000];
	static unsigned char want[576 * 720];

	for (size_t r = 0; r < 576; r++)
		for (size_t c = 0; c < 1000; c++)
			frame[r * 1000 + c] = (unsigned char)(r ^ (c * 3));
	for (size_t r = 0; r < 576; r++)
		memcpy(want + r * 720, frame + r * 1000, 720);
	p = (struct ffdvb_payload){ .kind = FFDVB_PAYLOAD_ROWS, .addr = (uintptr_t)frame,
				    .width = 720, .rows = 576, .stride = 1000, .len = 576 * 720 };
	EXPECT_EQ("rows 720x576", ffdvb_fetch_payload(self, &p, dst), 414720);
	EXPECT_EQ("rows content", memcmp(dst, want, sizeof(want)), 0);

	/* a block crossing into the unmapped page faults */
	p = (struct ffdvb_payload){ .kind = FFDVB_PAYLOAD_BLOCK, .addr = (uintptr_t)(map + page - 10),
				    .len = 20 };
	EXPECT_EQ("block fault", ffdvb_fetch_payload(self, &p, dst), -EFAULT);
	p.addr = 8; /* NULL page */
	EXPECT_EQ("block at NULL", ffdvb_fetch_payload(self, &p, dst), -EFAULT);

	/* a string whose NUL is the last byte before the unmapped page: read without a fault */
	memcpy(map + page - 6, "hello", 6);
	p = (struct ffdvb_payload){ .kind = FFDVB_PAYLOAD_STRING, .addr = (uintptr_t)(map + page - 6),
				    .len = 240 };
	EXPECT_EQ("string to page end", ffdvb_fetch_payload(self, &p, dst), 6);
	EXPECT_EQ("string content", strcmp((char *)dst, "hello"), 0);
	/* without a NUL before the unmapped page: fault */
	memset(map + page - 6, 'x', 6);
	EXPECT_EQ("string fault", ffdvb_fetch_payload(self, &p, dst), -EFAULT);
	/* longer than 240 bytes: the first 240 */
	memset(map, 'y', 300);
	p.addr = (uintptr_t)map;
	EXPECT_EQ("string 240", ffdvb_fetch_payload(self, &p, dst), 240);

	/* a row of a strided block in the unmapped page faults */
	p = (struct ffdvb_payload){ .kind = FFDVB_PAYLOAD_ROWS, .addr = (uintptr_t)map, .width = 16,
				    .rows = 2, .stride = page, .len = 32 };
	EXPECT_EQ("rows fault", ffdvb_fetch_payload(self, &p, dst), -EFAULT);

	/* no such process */
	p = (struct ffdvb_payload){ .kind = FFDVB_PAYLOAD_BLOCK, .addr = (uintptr_t)big, .len = 4 };
	EXPECT_EQ("pid 0", ffdvb_fetch_payload(0, &p, dst), -ESRCH);

	printf("%d/%d checks passed\n", checks - failures, checks);
	return failures ? 1 : 0;
}
