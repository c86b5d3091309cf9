/* SPDX-License-Identifier: MIT */
// A C++ program whose work is std:: code the compiler inlines from headers
// (vector growth, std::sort with a lambda, a map): instrumented whole, every
// such helper is hooked and the hooks outweigh the code (issue 34).  Built
// twice by the tests: whole, and the README's way
// (-finstrument-functions-exclude-file-list=/usr/include).
#include <algorithm>
#include <cstdio>
#include <map>
#include <thread>
#include <vector>

static unsigned long work(unsigned seed)
{
	std::vector<unsigned> v;
	for (unsigned i = 0; i < 20000; i++)
		v.push_back(seed = seed * 1103515245u + 12345u);
	std::sort(v.begin(), v.end(),
		  [](unsigned a, unsigned b) { return a % 1000 < b % 1000; });
	std::map<unsigned, unsigned> m;
	for (unsigned i = 0; i < 2000; i++)
		m[v[i] % 512] += v[i];
	unsigned long s = 0;
	for (const auto &kv : m)
		s += kv.second;
	return s;
}

int main()
{
	unsigned long a = 0, b = 0;
	std::thread t([&a] { a = work(1); });
	b = work(2);
	t.join();
	std::printf("%lu\n", (a + b) % 1000);
	return 0;
}
