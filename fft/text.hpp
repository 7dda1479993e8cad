// Small text helpers the option parsers share (options, the option table, r2r kind names).
#pragma once

#include <cctype>
#include <string>
#include <string_view>

namespace nbfft::fft {

// ASCII lower case: option words and kind names compare case-insensitively.
inline std::string lower_case(std::string_view s) {
  std::string r(s);
  for (auto& c : r) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return r;
}

}  // namespace nbfft::fft
