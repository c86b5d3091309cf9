/* SPDX-License-Identifier: MIT */
// Issue 34's shape, as a newcomer writes it in C++17: a std::thread pool
// fed by a bounded queue, a std::async side task, and a serial merge under
// a lock.  Each thread times each stage on its own CPU clock and prints the
// totals ("stage NAME NS"), the same run's exact per-function CPU time that
// ecp's answers are compared with (bench/validate/cxx-pool.sh).
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <future>
#include <map>
#include <mutex>
#include <thread>
#include <time.h>
#include <unordered_map>
#include <vector>

namespace
{

std::uint64_t cpu_ns()
{
	timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return std::uint64_t(ts.tv_sec) * 1000000000u + std::uint64_t(ts.tv_nsec);
}

struct Record {
	std::vector<std::uint32_t> fields;
};

class BoundedQueue
{
      public:
	explicit BoundedQueue(std::size_t cap) : cap_(cap)
	{
	}
	void push(Record r)
	{
		std::unique_lock<std::mutex> l(m_);
		not_full_.wait(l, [&] { return q_.size() < cap_; });
		q_.push_back(std::move(r));
		not_empty_.notify_one();
	}
	bool pop(Record &r)
	{
		std::unique_lock<std::mutex> l(m_);
		not_empty_.wait(l, [&] { return !q_.empty() || closed_; });
		if (q_.empty())
			return false;
		r = std::move(q_.front());
		q_.pop_front();
		not_full_.notify_one();
		return true;
	}
	void close()
	{
		std::lock_guard<std::mutex> l(m_);
		closed_ = true;
		not_empty_.notify_all();
	}

      private:
	std::mutex m_;
	std::condition_variable not_empty_, not_full_;
	std::deque<Record> q_;
	std::size_t cap_;
	bool closed_ = false;
};

struct Times {
	std::uint64_t parse = 0, detect = 0, score = 0, merge = 0, index = 0;
};

std::mutex print_mutex, merge_mutex;
std::map<std::uint32_t, std::uint64_t> merged;

std::uint64_t parse_record(const Record &r)
{
	std::uint64_t h = 1469598103934665603ull;
	for (int round = 0; round < 40; round++)
		for (std::uint32_t f : r.fields)
			h = (h ^ (f + std::uint32_t(round))) * 1099511628211ull;
	return h;
}

int detect_replays(const Record &r, std::uint64_t h)
{
	std::unordered_map<std::uint32_t, int> seen;
	int replays = 0;
	for (std::uint32_t f : r.fields)
		replays += seen[(f ^ std::uint32_t(h)) % 257]++ > 0;
	return replays;
}

std::uint64_t score(std::uint64_t h, int replays)
{
	for (int i = 0; i < 2000; i++)
		h = h * 6364136223846793005ull + std::uint64_t(replays);
	return h;
}

void merge_result(std::uint64_t h, std::uint64_t s)
{
	std::lock_guard<std::mutex> l(merge_mutex);
	// a serial step: every worker's result goes through here
	std::uint64_t x = s;
	for (int i = 0; i < 4000; i++)
		x = x * 2862933555777941757ull + 3037000493ull;
	merged[std::uint32_t(h % 1024)] += x;
}

std::uint64_t build_index(int n)
{
	std::uint64_t x = 7;
	for (int i = 0; i < n; i++)
		x = x * 6364136223846793005ull + std::uint64_t(i);
	return x;
}

void report(const char *who, const Times &t)
{
	std::lock_guard<std::mutex> l(print_mutex);
	std::printf(
	    "stage parse_record %llu\nstage detect_replays %llu\nstage score %llu\n"
	    "stage merge_result %llu\nstage build_index %llu\n",
	    (unsigned long long)t.parse, (unsigned long long)t.detect,
	    (unsigned long long)t.score, (unsigned long long)t.merge,
	    (unsigned long long)t.index);
	(void)who;
}

void worker(BoundedQueue &q)
{
	Times t;
	Record r;
	while (q.pop(r)) {
		std::uint64_t a = cpu_ns();
		std::uint64_t h = parse_record(r);
		std::uint64_t b = cpu_ns();
		int rep = detect_replays(r, h);
		std::uint64_t c = cpu_ns();
		std::uint64_t s = score(h, rep);
		std::uint64_t d = cpu_ns();
		merge_result(h, s);
		std::uint64_t e = cpu_ns();
		t.parse += b - a;
		t.detect += c - b;
		t.score += d - c;
		t.merge += e - d;
	}
	report("worker", t);
}

} // namespace

int main(int argc, char **argv)
{
	int records = argc > 1 ? std::atoi(argv[1]) : 3000;
	unsigned n = std::thread::hardware_concurrency();
	if (n == 0)
		n = 2;
	BoundedQueue q(64);
	Times side;
	auto index = std::async(std::launch::async, [&side] {
		std::uint64_t a = cpu_ns();
		std::uint64_t x = build_index(30000000);
		side.index = cpu_ns() - a;
		return x;
	});
	std::vector<std::thread> pool;
	for (unsigned i = 0; i < n; i++)
		pool.emplace_back(worker, std::ref(q));
	std::uint32_t seed = 12345;
	for (int i = 0; i < records; i++) {
		Record r;
		r.fields.resize(2000);
		for (auto &f : r.fields)
			f = seed = seed * 1103515245u + 12345u;
		q.push(std::move(r));
	}
	q.close();
	for (auto &t : pool)
		t.join();
	std::uint64_t x = index.get();
	report("index", side);
	std::printf("workers %u result %llu\n", n,
		    (unsigned long long)((x + merged.size()) % 1000));
	return 0;
}
