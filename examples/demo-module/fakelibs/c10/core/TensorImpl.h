// The framework's core: the standard library it leans on, pulled in whole.
#pragma once
#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <complex>
#include <cstdint>
#include <deque>
#include <functional>
#include <future>
#include <iostream>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <numeric>
#include <optional>
#include <random>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <variant>
#include <vector>

#define TORCH_CHECK(cond, ...) \
	do { if (!(cond)) throw std::runtime_error(c10::str(__VA_ARGS__)); } while (0)

namespace c10 {

enum class ScalarType : int8_t { Float, Half, BFloat16, Double, Int, Long };

inline const char *to_string(ScalarType t)
{
	static const char *const names[] = { "Float", "Half", "BFloat16", "Double", "Int", "Long" };
	return names[(int)t];
}

template <typename... Args> std::string str(const Args &...args)
{
	std::ostringstream os;
	(os << ... << args);
	return os.str();
}

struct TensorImpl {
	std::vector<int64_t> sizes, strides;
	ScalarType dtype = ScalarType::Float;
	std::shared_ptr<void> data;
	int64_t numel() const
	{
		return std::accumulate(sizes.begin(), sizes.end(), int64_t(1), std::multiplies<int64_t>());
	}
};

using IValue = std::variant<std::monostate, bool, int64_t, double, std::string, std::vector<int64_t>>;

} // namespace c10
