/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The daemon's loop driver (ffdvb_cuse_loop_run): the libevent loop, plus a fast path for a
 * device that gets request after request and nothing else happens.
 *
 * Each device has its own /dev/cuse fd, so the loop waits in epoll_wait and then reads the
 * request: three system calls per request (epoll_wait, read, writev) where libfuse's own loop
 * blocks in read and needs two. In the TCG test VM that third call was most of what our round
 * trip cost above a bare libfuse device (bench/README.md). So when one device served
 * HOT_STREAK turns of the loop in a row, with no libevent timer pending and no event active,
 * the loop thread takes that device's fd out of libevent, makes it blocking and reads it
 * directly, like libfuse's loop: the card still runs on this thread only.
 *
 * Meanwhile a watcher thread waits in epoll_wait on libevent's own epoll fd (every other fd
 * of the loop: the other devices, eventfds of the decoder threads, timerfds, sockets,
 * libevent's signal pipe). When one becomes ready, it sets need_run and interrupts the read
 * with a signal (handler without SA_RESTART: read returns EINTR); it sends the signal again
 * every RESIGNAL_MS while the loop thread still says it is in the read, which covers a signal
 * that arrived just before the read began. The loop thread then runs libevent once without
 * waiting (EVLOOP_NONBLOCK; the hot fd is not in it) and tells the watcher to poll again, so
 * a timerfd tick or a decoder's eventfd costs a signal, not the fast path. Events a request
 * activated (a wake-up with a waiter) run the same way, checked after every request. A
 * pending libevent timer ends the fast path (the watcher does not know libevent's timeouts),
 * and so do HOT_IDLE_MAX runs of libevent in a row without a request. The watcher never
 * touches the card or libevent's state: it only polls the epoll fd, and waits while
 * libevent runs.
 *
 * Whether a timer is pending or an event active is asked of libevent only when something may
 * have changed them: libevent's lock callbacks (which only count, the daemon's loop being its
 * one thread: no lock is needed) tell when the loop's base was last touched, and a request
 * that did not touch it (a write whose wake-up found no waiter) leaves both as they were.
 * Walking libevent's events after every request cost about a fifth of the fast path's
 * overhead over a bare device on 188-byte writes (bench/README.md).
 *
 * libevent does not give out its epoll fd: ffdvb_cuse_base_new finds it as the one eventpoll
 * fd that event_base_new() added. Without it (another backend, or more than one new epoll
 * fd) the fast path stays off and ffdvb_cuse_loop_run is event_base_dispatch. The
 * environment variable FFDVB_CUSE_NO_FAST_PATH turns it off as well. */
#include "ffdvb/log.h"
#include "cuse_internal.h"

#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>
#include <event2/thread.h>

#define HOT_STREAK 8        /* turns of one device in a row before its fd is read directly */
#define HOT_STREAK_MAX 4096 /* after fast paths that ended early, the streak asked doubles */
#define HOT_GOOD 16         /* requests served in one fast path that reset it */
#define HOT_POOR 4          /* fewer than this: the fast path did not pay for itself */
#define HOT_IDLE_MAX 8      /* libevent runs in a row without a request: back to libevent */
#define RESIGNAL_MS 1
#define MAX_EPOLL_FDS 16

static struct {
	struct event_base *base; /* the base whose epoll fd is known */
	int lev_epfd;            /* libevent's epoll fd */
	int wep;                 /* the watcher's: lev_epfd and kick */
	int kick;                /* eventfd: the loop thread left the fast path */
	int sig;
	pthread_t loop_thread, watcher;
	int watcher_running;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int hot;                 /* under lock: the loop thread is on the fast path */
	int quit;                /* under lock */
	atomic_int in_read;      /* the loop thread is in (or about to enter) the blocking read */
	atomic_int need_run;     /* libevent has something to do */
	struct ffdvb_cuse_dev *streak_dev;
	unsigned int streak;
	struct ffdvb_cuse_dev *hot_dev; /* the device on the fast path */
	int hot_dev_gone;               /* freed by a callback while on the fast path */
	int exit;                       /* the loop was asked to end during the fast path */
	/* libevent's lock callbacks: base_lock is the base's own lock, taken by every call that
	   reads or changes the base; base_gen counts its locking (loop thread only) */
	void *base_lock, *probe_lock;
	int probing;
	unsigned long base_gen;
	/* FFDVB_CUSE_LOOP_STATS: printed when the loop ends */
	unsigned long long st_entries, st_served, st_runs, st_timer, st_idle, st_dead, st_checks;
} L = { .lev_epfd = -1, .wep = -1, .kick = -1,
	.lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER };

static int list_epoll_fds(int *fds, int max)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d))) {
		char path[300], target[64];
		ssize_t len;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/fd/%s", e->d_name);
		len = readlink(path, target, sizeof(target) - 1);
		if (len <= 0)
			continue;
		target[len] = '\0';
		if (strcmp(target, "anon_inode:[eventpoll]") != 0)
			continue;
		if (n == max) {
			n = -1;
			break;
		}
		fds[n++] = atoi(e->d_name);
	}
	closedir(d);
	return n;
}

/* Lock callbacks that lock nothing (libevent's bases are used by one thread each here, as
 * without locking; the watcher never calls libevent) and count the loop base's locking. Other
 * threads' bases (a remote tuner's worker) read base_lock and probing, which are written
 * before those threads exist. */
static void *lk_alloc(unsigned int locktype)
{
	(void)locktype;
	return malloc(1); /* a distinct pointer per lock */
}

static void lk_free(void *lock, unsigned int locktype)
{
	(void)locktype;
	free(lock);
}

static int lk_lock(unsigned int mode, void *lock)
{
	(void)mode;
	if (lock == L.base_lock)
		L.base_gen++;
	else if (L.probing)
		L.probe_lock = lock;
	return 0;
}

static int lk_unlock(unsigned int mode, void *lock)
{
	(void)mode;
	(void)lock;
	return 0;
}

static const struct evthread_lock_callbacks lock_counting = {
	.lock_api_version = EVTHREAD_LOCK_API_VERSION,
	.supported_locktypes = EVTHREAD_LOCKTYPE_RECURSIVE | EVTHREAD_LOCKTYPE_READWRITE,
	.alloc = lk_alloc,
	.free = lk_free,
	.lock = lk_lock,
	.unlock = lk_unlock,
};

/* Finds the base's lock: the one event_base_get_num_events takes. */
static void find_base_lock(struct event_base *base)
{
	L.probe_lock = NULL;
	L.probing = 1;
	event_base_get_num_events(base, EVENT_BASE_COUNT_ADDED);
	L.probing = 0;
	L.base_lock = L.probe_lock;
}

struct event_base *ffdvb_cuse_base_new(void)
{
	int before[MAX_EPOLL_FDS], after[MAX_EPOLL_FDS], nb, na, found = -1, count = 0;
	int counting = 0;
	struct event_base *base;

	/* before the base exists, so that it gets a lock; only where the fast path may run */
	if (!L.base && !getenv("FFDVB_CUSE_NO_FAST_PATH"))
		counting = evthread_set_lock_callbacks(&lock_counting) == 0;
	nb = list_epoll_fds(before, MAX_EPOLL_FDS);
	base = event_base_new();
	if (!base || nb < 0 || L.base || strcmp(event_base_get_method(base), "epoll") != 0)
		return base;
	if (counting)
		find_base_lock(base);
	na = list_epoll_fds(after, MAX_EPOLL_FDS);
	for (int i = 0; i < na; i++) {
		int old = 0;

		for (int j = 0; j < nb; j++)
			old |= before[j] == after[i];
		if (!old) {
			found = after[i];
			count++;
		}
	}
	if (count == 1) {
		L.base = base;
		L.lev_epfd = found;
	}
	return base;
}

void ffdvb_cuse_loop_note(struct ffdvb_cuse_dev *dev)
{
	if (dev == L.streak_dev) {
		if (L.streak < UINT32_MAX)
			L.streak++;
	} else {
		L.streak_dev = dev;
		L.streak = 1;
	}
}

void ffdvb_cuse_loop_forget(struct ffdvb_cuse_dev *dev)
{
	if (L.streak_dev == dev) {
		L.streak_dev = NULL;
		L.streak = 0;
	}
	if (L.hot_dev == dev)
		L.hot_dev_gone = 1;
}

static void on_signal(int sig)
{
	(void)sig; /* only there to make the blocking read return EINTR */
}

static void *watcher_main(void *arg)
{
	(void)arg;
	for (;;) {
		struct epoll_event ev[4];
		uint64_t v;
		int n;

		pthread_mutex_lock(&L.lock);
		while (!L.hot && !L.quit)
			pthread_cond_wait(&L.cond, &L.lock);
		if (L.quit) {
			pthread_mutex_unlock(&L.lock);
			return NULL;
		}
		pthread_mutex_unlock(&L.lock);

		n = epoll_wait(L.wep, ev, 4, -1);
		if (n < 0)
			continue;
		int libevent_ready = 0;

		for (int i = 0; i < n; i++) {
			if (ev[i].data.fd == L.kick) {
				if (read(L.kick, &v, sizeof(v)) < 0) {
					/* EAGAIN: taken already */
				}
			} else {
				libevent_ready = 1;
			}
		}
		pthread_mutex_lock(&L.lock);
		if (libevent_ready && L.hot) {
			atomic_store(&L.need_run, 1);
			while (atomic_load(&L.need_run) && L.hot && !L.quit) {
				struct timespec until;

				if (atomic_load(&L.in_read))
					pthread_kill(L.loop_thread, L.sig);
				clock_gettime(CLOCK_MONOTONIC, &until);
				until.tv_nsec += RESIGNAL_MS * 1000000L;
				if (until.tv_nsec >= 1000000000L) {
					until.tv_sec++;
					until.tv_nsec -= 1000000000L;
				}
				pthread_cond_timedwait(&L.cond, &L.lock, &until);
			}
		}
		pthread_mutex_unlock(&L.lock);
	}
}

static int start_watcher(void)
{
	struct epoll_event ev = { .events = EPOLLIN };
	struct sigaction sa;
	pthread_condattr_t ca;
	sigset_t all, old;
	int rc;

	L.sig = SIGRTMIN + 2;
	L.wep = epoll_create1(EPOLL_CLOEXEC);
	L.kick = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (L.wep < 0 || L.kick < 0)
		return -1;
	ev.data.fd = L.lev_epfd;
	if (epoll_ctl(L.wep, EPOLL_CTL_ADD, L.lev_epfd, &ev) != 0)
		return -1;
	ev.data.fd = L.kick;
	if (epoll_ctl(L.wep, EPOLL_CTL_ADD, L.kick, &ev) != 0)
		return -1;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_destroy(&L.cond);
	pthread_cond_init(&L.cond, &ca);
	pthread_condattr_destroy(&ca);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = 0; /* no SA_RESTART: the read must return */
	if (sigaction(L.sig, &sa, NULL) != 0)
		return -1;
	L.loop_thread = pthread_self();
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(&L.watcher, NULL, watcher_main, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0)
		return -1;
	L.watcher_running = 1;
	return 0;
}

static void stop_watcher(void)
{
	if (L.watcher_running) {
		uint64_t one = 1;

		pthread_mutex_lock(&L.lock);
		L.quit = 1;
		pthread_cond_broadcast(&L.cond);
		pthread_mutex_unlock(&L.lock);
		if (write(L.kick, &one, sizeof(one)) < 0) {
			/* a full counter wakes it as well */
		}
		pthread_join(L.watcher, NULL);
		L.watcher_running = 0;
		L.quit = 0;
	}
	if (L.wep >= 0)
		close(L.wep);
	if (L.kick >= 0)
		close(L.kick);
	L.wep = L.kick = -1;
}

static int has_timer_cb(const struct event_base *base, const struct event *ev, void *arg)
{
	(void)base;
	(void)arg;
	return event_pending(ev, EV_TIMEOUT, NULL) ? 1 : 0;
}

static int has_timer(struct event_base *base)
{
	return event_base_foreach_event(base, has_timer_cb, NULL) != 0;
}

static int has_active(struct event_base *base)
{
	return event_base_get_num_events(base, EVENT_BASE_COUNT_ACTIVE) != 0;
}

/* Runs what libevent has now (EVLOOP_NONBLOCK: ready fds, active events) while the hot fd is
 * out of it; returns 0 when the fast path may go on. */
static int run_libevent(struct event_base *base)
{
	L.st_runs++;
	if (event_base_loop(base, EVLOOP_NONBLOCK) < 0 || event_base_got_exit(base) ||
	    event_base_got_break(base)) {
		L.exit = 1;
		return -1;
	}
	return L.hot_dev_gone ? -1 : 0;
}

/* Serves dev's requests with blocking reads while libevent has no timer pending; what else
 * becomes ready runs in between (run_libevent). Returns the number of requests served. */
static unsigned int run_hot(struct event_base *base, struct ffdvb_cuse_dev *dev)
{
	int fd = fuse_session_fd(dev->se);
	int flags = fcntl(fd, F_GETFL);
	unsigned int served = 0, idle = 0;
	uint64_t one = 1;
	int watcher_waits, active = 0, timer = 0, known = 0;
	unsigned long seen = 0;

	if (flags < 0 || event_del(dev->ev_read) != 0)
		return 0;
	if (fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0) {
		event_add(dev->ev_read, NULL);
		return 0;
	}
	L.st_entries++;
	L.hot_dev = dev;
	L.hot_dev_gone = 0;
	atomic_store(&L.need_run, 0);
	pthread_mutex_lock(&L.lock);
	L.hot = 1;
	pthread_cond_broadcast(&L.cond);
	pthread_mutex_unlock(&L.lock);

	for (;;) {
		int res;

		if (atomic_load(&L.need_run)) {
			int stop = run_libevent(base);

			pthread_mutex_lock(&L.lock);
			atomic_store(&L.need_run, 0); /* the watcher polls again */
			pthread_cond_broadcast(&L.cond);
			pthread_mutex_unlock(&L.lock);
			if (stop)
				break;
			known = 0;
			if (++idle > HOT_IDLE_MAX) { /* the loop's other fds keep it busy */
				L.st_idle++;
				break;
			}
			continue;
		}
		if (!known || L.base_gen != seen) { /* libevent was touched since the last look */
			L.st_checks++;
			active = has_active(base);
			timer = !active && has_timer(base);
			seen = L.base_gen; /* after the looks: they lock the base too */
			known = L.base_lock != NULL;
		}
		if (active) { /* a wake-up with a waiter: on_wake */
			known = 0;
			if (run_libevent(base))
				break;
			if (++idle > HOT_IDLE_MAX) {
				L.st_idle++;
				break;
			}
			continue;
		}
		if (dev->dead) {
			L.st_dead++;
			break;
		}
		if (timer) {
			L.st_timer++;
			break;
		}
		atomic_store(&L.in_read, 1);
		if (atomic_load(&L.need_run)) {
			atomic_store(&L.in_read, 0);
			continue;
		}
		res = ffdvb_cuse_receive(dev);
		atomic_store(&L.in_read, 0);
		if (ffdvb_cuse_dev_received(dev, res)) {
			served++;
			idle = 0;
		}
	}

	pthread_mutex_lock(&L.lock);
	L.hot = 0;
	watcher_waits = !atomic_load(&L.need_run); /* still in epoll_wait, or about to be */
	atomic_store(&L.need_run, 0);
	pthread_cond_broadcast(&L.cond);
	pthread_mutex_unlock(&L.lock);
	if (watcher_waits && write(L.kick, &one, sizeof(one)) < 0) {
		/* a full counter wakes it as well */
	}
	L.st_served += served;
	L.hot_dev = NULL;
	if (L.hot_dev_gone)
		return served; /* dev and its fd are gone */
	fcntl(fd, F_SETFL, flags);
	if (!dev->dead)
		event_add(dev->ev_read, NULL);
	return served;
}

int ffdvb_cuse_loop_run(struct event_base *base)
{
	unsigned int need = HOT_STREAK;
	int r = 0;

	if (base != L.base || L.lev_epfd < 0 || getenv("FFDVB_CUSE_NO_FAST_PATH"))
		return event_base_dispatch(base);
	if (start_watcher() != 0) {
		ffdvb_log(FFDVB_LOG_WARNING, "cuse: no fast path (watcher thread: %s)",
			  strerror(errno));
		stop_watcher();
		return event_base_dispatch(base);
	}
	L.streak_dev = NULL;
	L.streak = 0;
	L.exit = 0;
	for (;;) {
		r = event_base_loop(base, EVLOOP_ONCE);
		if (r != 0 || event_base_got_exit(base) || event_base_got_break(base))
			break;
		if (L.streak_dev && L.streak >= need && !L.streak_dev->dead && !has_active(base) &&
		    !has_timer(base)) {
			unsigned int served = run_hot(base, L.streak_dev);

			L.streak = 0;
			if (served >= HOT_GOOD)
				need = HOT_STREAK;
			else if (served < HOT_POOR && need < HOT_STREAK_MAX)
				need *= 2;
			if (L.exit)
				break;
		}
	}
	stop_watcher();
	if (getenv("FFDVB_CUSE_LOOP_STATS"))
		ffdvb_log(FFDVB_LOG_NOTICE, "cuse: fast path entered %llu times, %llu requests, "
			  "%llu libevent runs, %llu looks at libevent's events; left for a timer %llu, "
			  "busy fds %llu, dead %llu",
			  L.st_entries, L.st_served, L.st_runs, L.st_checks, L.st_timer, L.st_idle,
			  L.st_dead);
	return r < 0 ? -1 : r;
}
