// The test_sine field, which nbfft-sine transforms and checks, and which
// nbfft-fftw-serial transforms too so that both time the same work: the spectrum of this
// field is exactly sparse, and the rounding noise in its zero modes, scaled by 1/N, falls
// into the subnormal range in single precision, where x86 arithmetic can be many times
// slower (docs/performance.md "Threads inside each rank": 5x on an Intel Xeon). Data of
// another kind would time other arithmetic.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <vector>

namespace nbfft::bench {

// On [0, 2pi)^3: sin(x) sin(2y) sin(3z), and for c2c an imaginary part sin(3x) sin(y)
// sin(2z). Tables per dimension keep the error check cheap.
class SineField {
 public:
  explicit SineField(std::array<std::int64_t, 3> n) {
    const double two_pi = 6.283185307179586476925286766559;
    for (int d = 0; d < 3; ++d)
      for (int k = 1; k <= 3; ++k) {
        auto& t = table_[d][k - 1];
        t.resize(static_cast<std::size_t>(n[d]));
        for (std::int64_t i = 0; i < n[d]; ++i) t[i] = std::sin(k * two_pi * i / n[d]);
      }
  }
  double re(std::int64_t x, std::int64_t y, std::int64_t z) const {
    return table_[0][0][x] * table_[1][1][y] * table_[2][2][z];
  }
  double im(std::int64_t x, std::int64_t y, std::int64_t z) const {
    return table_[0][2][x] * table_[1][0][y] * table_[2][1][z];
  }

 private:
  std::vector<double> table_[3][3];  // [dimension][frequency-1]
};

}  // namespace nbfft::bench
