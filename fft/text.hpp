// Small text helpers the option parsers share (options, the option table, r2r kind names).
#pragma once

#include <cctype>
#include <string>
#include <string_view>
#include <vector>

namespace nbfft::fft {

// ASCII lower case: option words and kind names compare case-insensitively.
inline std::string lower_case(std::string_view s) {
  std::string r(s);
  for (auto& c : r) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return r;
}

// "a,b,c" -> {"a", "b", "c"} (one entry when there is no comma; empty entries kept).
inline std::vector<std::string_view> split_commas(std::string_view s) {
  std::vector<std::string_view> parts;
  for (std::size_t a = 0;;) {
    const std::size_t b = s.find(',', a);
    parts.push_back(s.substr(a, b == std::string_view::npos ? std::string_view::npos : b - a));
    if (b == std::string_view::npos) return parts;
    a = b + 1;
  }
}

}  // namespace nbfft::fft
