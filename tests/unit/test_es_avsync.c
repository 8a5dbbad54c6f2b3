/* SPDX-License-Identifier: GPL-2.0-or-later */
/* avsync.ts (made for the presenter's A/V sync test) decoded by the es layer: 60 white
 * flashes and 60 tone bursts, one each per second; the pts of each flash picture and the pts
 * of the first sample of the matching burst (the MP2 decoder's 481-sample delay included, as
 * the muxer's PTS account for it) agree within 1 ms. So the stream and the es pts are right,
 * and what the presenter test measures is the presenter. */
#include "test_es_util.h"

int main(void)
{
	struct feeder fd;
	int64_t flash[128], burst[128];
	size_t nflash = 0, nburst = 0, quiet = 0, matched = 0, ci = 0;
	int64_t worst = 0;

	av_log_set_level(AV_LOG_ERROR);
	test_gen_stream("avsync.ts");
	feeder_init(&fd, 1, 1, ES_DEINTERLACE_OFF);
	feeder_file(&fd, "avsync.ts");
	for (size_t i = 0; i < fd.cv.nv && nflash < 128; i++)
		if (fd.cv.v[i].luma > 128)
			flash[nflash++] = fd.cv.v[i].pts;
	for (size_t s = 0; s < fd.ca.nsamples && nburst < 128; s++) {
		int loud = abs(fd.ca.pcm[2 * s]) > 1000 || abs(fd.ca.pcm[2 * s + 1]) > 1000;

		if (loud && quiet > 24000) { /* onset after at least 0.5 s of silence */
			while (ci + 1 < fd.ca.nchunks && fd.ca.chunk[ci + 1].first <= s)
				ci++;
			burst[nburst++] = fd.ca.chunk[ci].pts +
					  av_rescale((int64_t)(s - fd.ca.chunk[ci].first), 90000, 48000);
		}
		quiet = loud ? 0 : quiet + 1;
	}
	for (size_t i = 0; i < nburst; i++) { /* each burst against the nearest flash */
		int64_t d = INT64_MAX;

		for (size_t k = 0; k < nflash; k++)
			d = llabs(flash[k] - burst[i]) < d ? llabs(flash[k] - burst[i]) : d;
		matched += d <= 90;
		worst = d > worst ? d : worst;
	}
	printf("avsync.ts: %zu pictures, %zu flashes, %zu samples, %zu bursts; %zu pairs within "
	       "1 ms, worst %.3f ms; first flash pts %lld, burst %lld\n", fd.cv.nv, nflash,
	       fd.ca.nsamples, nburst, matched, worst / 90.0, nflash ? (long long)flash[0] : -1,
	       nburst ? (long long)burst[0] : -1);
	EXPECT_EQ("pictures", fd.cv.nv, 1500);
	EXPECT_EQ("flashes", nflash, 60);
	CHECK(nburst >= 59); /* the first burst has no silence before it */
	EXPECT_EQ("bursts within 1 ms of a flash", matched, nburst);
	CHECK(worst <= 90);
	feeder_free(&fd);
	return finish("test_es_avsync");
}
