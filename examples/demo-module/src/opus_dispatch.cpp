// The dispatcher: problem shape -> kernel instance.
//
// Baseline: a std::unordered_map<std::string, std::function<...>> built at
// start-up (every entry instantiates std::function machinery), and the
// framework arrives through the include chain documented in
// opus/tensor_args.h (THE LEAK, fixed by OPUS_FIX_LEAK). OPUS_FIX_FLAT: a
// sorted constexpr array searched with std::lower_bound.
//
// It includes <Python.h> itself first, as extensions that define their own
// module init do: its own include says nothing of torch, which still comes
// in through opus/tensor_args.h, the line leak names. Fixed, the
// dispatcher is framework-free and has no use for it either.
#ifndef OPUS_FIX_LEAK
#include <Python.h>
#endif
#include "opus/dispatch.h"

#ifndef OPUS_FIX_FLAT
#include <functional>
#include <unordered_map>

namespace opus {

bool dispatch(const std::string &key, const GemmArgs &args)
{
	static const std::unordered_map<std::string, std::function<void(const GemmArgs &)>> table = {
#define OPUS_ENTRY(k, name) { k, [](const GemmArgs &a) { name##_launch(a); } },
#include "opus_table.inc"
#undef OPUS_ENTRY
	};
	auto it = table.find(key);
	if (it == table.end())
		return false;
	it->second(args);
	return true;
}

} // namespace opus

#else
#include <algorithm>
#include <string_view>

namespace opus {

namespace {
struct Entry {
	std::string_view key;
	void (*launch)(const GemmArgs &);
};
// opus_table.inc is generated in key order, so the array is sorted.
constexpr Entry table[] = {
#define OPUS_ENTRY(k, name) { k, &name##_launch },
#include "opus_table.inc"
#undef OPUS_ENTRY
};
} // namespace

bool dispatch(const std::string &key, const GemmArgs &args)
{
	auto it = std::lower_bound(std::begin(table), std::end(table), std::string_view(key),
				   [](const Entry &e, std::string_view k) { return e.key < k; });
	if (it == std::end(table) || it->key != key)
		return false;
	it->launch(args);
	return true;
}

} // namespace opus
#endif
