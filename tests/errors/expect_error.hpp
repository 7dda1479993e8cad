// The bad-input suites' one check: fn() must throw nbfft's Error of `kind` whose message
// names the problem (contains `needle`) and, where given, not `never` (a wrong cause); any
// other exception (std::bad_alloc, std::length_error) or none is a failure on this rank.
#pragma once

#include "nbfft/error.hpp"
#include "../fft/fft_test_util.hpp"

#include <gtest/gtest.h>

#include <exception>
#include <functional>
#include <string>
#include <typeinfo>

namespace nbfft::fft::test {

inline void expect_error(const std::function<void()>& fn, ErrorCode kind, const std::string& needle,
                         const std::string& never = "") {
  try {
    fn();
    ADD_FAILURE() << "rank " << world_rank() << ": no error; expected one naming '" << needle << "'";
  } catch (const Error& e) {
    EXPECT_EQ(static_cast<int>(e.code()), static_cast<int>(kind)) << "rank " << world_rank() << ": " << e.what();
    EXPECT_NE(e.message().find(needle), std::string::npos)
        << "rank " << world_rank() << ": '" << e.message() << "' does not name '" << needle << "'";
    if (!never.empty()) {
      EXPECT_EQ(e.message().find(never), std::string::npos)
          << "rank " << world_rank() << ": '" << e.message() << "' speaks of '" << never << "'";
    }
  } catch (const std::exception& e) {
    ADD_FAILURE() << "rank " << world_rank() << ": not nbfft's error but " << typeid(e).name() << ": " << e.what();
  }
}

}  // namespace nbfft::fft::test
