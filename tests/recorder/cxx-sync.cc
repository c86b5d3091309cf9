/* SPDX-License-Identifier: MIT */
// C++ synchronization for the end-to-end tests of the recorder: one mode
// per primitive, each a small program whose run time on P processors
// depends on the primitive's dependencies.
//
//   mutex-cv   std::thread, std::mutex, std::condition_variable: a
//              producer/consumer of 16 items (slow to produce and quick to
//              consume, then the reverse)
//   async      std::async: four tasks of different lengths, then main
//              combines their std::future results
//   semaphore  std::counting_semaphore: the producer/consumer of mutex-cv
//   latch      std::latch: three workers of different lengths count down,
//              main waits for all of them, then works
//   barrier    std::barrier: three threads, three phases, the longest
//              piece of work rotating from thread to thread
//   atomic     std::atomic<int>::wait/notify_one: a ping-pong of 8 rounds
//
// Each program is its own ground truth: every thread reads its
// CLOCK_THREAD_CPUTIME_ID at each synchronization and main prints the CPU
// time of every piece of work between two ("seg KEY ns"), so that the test
// solves the program's dependency graph on the durations of this very run
// (timings are never compared across runs: this machine's speed varies
// 2-3x between runs).  Pieces of work are long (tens of ms) where a waiter
// must still be waiting when libstdc++'s C++20 waits stop spinning: they
// sched_yield four times before they block in the kernel, and on one CPU a
// wait satisfied while it yields is not seen.
#include <time.h>

#include <atomic>
#include <barrier>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <future>
#include <latch>
#include <map>
#include <mutex>
#include <semaphore>
#include <string>
#include <thread>
#include <vector>

namespace
{

const uint64_t ms = 1000000;
std::map<std::string, uint64_t> segs;
std::mutex segs_lock;
volatile double sink;

uint64_t cpu_ns()
{
	timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return uint64_t(ts.tv_sec) * 1000000000u + uint64_t(ts.tv_nsec);
}

// Computes for `ns` of this thread's CPU time.
void work(uint64_t ns)
{
	uint64_t end = cpu_ns() + ns;
	double s = 0;
	do {
		for (int i = 0; i < 20000; i++)
			s += double(i & 7) * 1e-9;
	} while (cpu_ns() < end);
	sink = sink + s;
}

// The CPU time since the last mark of this thread, saved as segment `key`.
struct marker {
	uint64_t t = cpu_ns();
	void operator()(const std::string &key)
	{
		uint64_t now = cpu_ns();
		std::lock_guard<std::mutex> g(segs_lock);
		segs[key] = now - t;
		t = now;
	}
};

// The recorded lock of `segs` is taken only at marks, each a few us.

const int ITEMS = 16;

int mutex_cv()
{
	std::mutex m;
	std::condition_variable cv;
	std::vector<int> queue;
	marker mk;
	std::thread consumer([&] {
		marker c;
		for (int i = 0; i < ITEMS; i++) {
			{
				std::unique_lock<std::mutex> g(m);
				cv.wait(g, [&] { return !queue.empty(); });
				queue.erase(queue.begin());
			}
			work(i < ITEMS / 2 ? ms / 2 : 5 * ms);
			c("c" + std::to_string(i));
		}
		c("ctail");
	});
	mk("setup");
	for (int i = 0; i < ITEMS; i++) {
		work(i < ITEMS / 2 ? 5 * ms : ms / 2);
		{
			std::lock_guard<std::mutex> g(m);
			queue.push_back(i);
		}
		cv.notify_one();
		mk("p" + std::to_string(i));
	}
	consumer.join();
	mk("mtail");
	return 0;
}

int async_tasks()
{
	marker mk;
	std::vector<std::future<uint64_t>> f;
	for (int i = 0; i < 4; i++) {
		f.push_back(std::async(std::launch::async, [i] {
			marker t;
			work((4 + 4 * uint64_t(i)) * ms);
			t("t" + std::to_string(i));
			return uint64_t(i);
		}));
		mk("spawn" + std::to_string(i));
	}
	work(3 * ms);
	mk("main");
	uint64_t sum = 0;
	for (auto &x : f)
		sum += x.get();
	work(2 * ms);
	mk("mtail");
	return sum == 6 ? 0 : 1;
}

const int SITEMS = 6;

int semaphore()
{
	std::counting_semaphore<SITEMS> items(0);
	marker mk;
	std::thread consumer([&] {
		marker c;
		for (int i = 0; i < SITEMS; i++) {
			items.acquire();
			work(i < SITEMS / 2 ? 3 * ms : 30 * ms);
			c("c" + std::to_string(i));
		}
		c("ctail");
	});
	mk("setup");
	for (int i = 0; i < SITEMS; i++) {
		work(i < SITEMS / 2 ? 30 * ms : 3 * ms);
		items.release();
		mk("p" + std::to_string(i));
	}
	consumer.join();
	mk("mtail");
	return 0;
}

int latch()
{
	std::latch done(3);
	marker mk;
	std::vector<std::thread> w;
	for (int i = 0; i < 3; i++) {
		w.emplace_back([&done, i] {
			marker t;
			work((10 + 15 * uint64_t(i)) * ms);
			t("a" + std::to_string(i));
			done.count_down();
			work(2 * ms);
			t("b" + std::to_string(i));
		});
		mk("spawn" + std::to_string(i));
	}
	done.wait();
	mk("wait");
	work(10 * ms);
	mk("work");
	for (auto &t : w)
		t.join();
	mk("mtail");
	return 0;
}

int barrier()
{
	std::barrier sync(3);
	marker mk;
	auto body = [&sync](int id, marker &t) {
		for (int phase = 0; phase < 3; phase++) {
			work(((id + phase) % 3 == 2   ? 30
			      : (id + phase) % 3 == 1 ? 12
						      : 4) *
			     ms);
			t("w" + std::to_string(id) + "." + std::to_string(phase));
			sync.arrive_and_wait();
		}
	};
	std::vector<std::thread> w;
	for (int i = 1; i < 3; i++) {
		w.emplace_back([&body, i] {
			marker t;
			body(i, t);
			t("tail" + std::to_string(i));
		});
		mk("spawn" + std::to_string(i));
	}
	body(0, mk);
	for (auto &t : w)
		t.join();
	mk("tail0");
	return 0;
}

int atomic_wait()
{
	std::atomic<int> turn(0);
	const int ROUNDS = 8;
	marker mk;
	std::thread other([&] {
		marker t;
		for (int r = 0; r < ROUNDS; r++) {
			turn.wait(0);
			work(8 * ms);
			t("o" + std::to_string(r));
			turn.store(0);
			turn.notify_one();
		}
		t("otail");
	});
	mk("setup");
	for (int r = 0; r < ROUNDS; r++) {
		work(12 * ms);
		mk("m" + std::to_string(r));
		turn.store(1);
		turn.notify_one();
		turn.wait(1);
		mk("back" + std::to_string(r));
	}
	other.join();
	mk("mtail");
	return 0;
}

} // namespace

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	int rc;
	if (!strcmp(mode, "mutex-cv"))
		rc = mutex_cv();
	else if (!strcmp(mode, "async"))
		rc = async_tasks();
	else if (!strcmp(mode, "semaphore"))
		rc = semaphore();
	else if (!strcmp(mode, "latch"))
		rc = latch();
	else if (!strcmp(mode, "barrier"))
		rc = barrier();
	else if (!strcmp(mode, "atomic"))
		rc = atomic_wait();
	else {
		std::fprintf(stderr,
			     "usage: %s mutex-cv|async|semaphore|latch|barrier|atomic\n",
			     argv[0]);
		return 2;
	}
	for (auto &s : segs)
		std::printf("seg %s %llu\n", s.first.c_str(),
			    (unsigned long long)s.second);
	return rc;
}
