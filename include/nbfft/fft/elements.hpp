// The element types of a transform's arrays. A typed call names them by its pointer types;
// only double, float, std::complex<double> and std::complex<float> compile, and In and Out
// must share one precision (fft_elements, a static_assert in Plan's templates).
// Which of them a plan takes in each direction is known at run time only
// (Plan::shape: the one rule of call shapes).
#pragma once

#include "nbfft/fft/options.hpp"

#include <complex>
#include <cstddef>
#include <type_traits>

namespace nbfft::fft {

struct Element {
  Precision precision = Precision::Double;
  bool real = true;  // else complex
  constexpr std::size_t bytes() const { return (precision == Precision::Double ? 8u : 4u) * (real ? 1u : 2u); }
  friend constexpr bool operator==(Element a, Element b) {
    return a.precision == b.precision && a.real == b.real;
  }
  friend constexpr bool operator!=(Element a, Element b) { return !(a == b); }
};

// The C/C++ spelling: "double", "float", "complex double", "complex float".
constexpr const char* name(Element e) {
  if (e.precision == Precision::Double) return e.real ? "double" : "complex double";
  return e.real ? "float" : "complex float";
}

// The Element of a C++ type (cv-qualifiers are the caller's business, not the type's).
template <typename X, typename = void>
struct element_of {
  static constexpr bool valid = false;
};
template <typename X>
struct element_of<X, std::enable_if_t<!std::is_same_v<X, std::remove_cv_t<X>>>> : element_of<std::remove_cv_t<X>> {};
template <>
struct element_of<double> {
  static constexpr bool valid = true;
  static constexpr Element type{Precision::Double, true};
};
template <>
struct element_of<float> {
  static constexpr bool valid = true;
  static constexpr Element type{Precision::Single, true};
};
template <>
struct element_of<std::complex<double>> {
  static constexpr bool valid = true;
  static constexpr Element type{Precision::Double, false};
};
template <>
struct element_of<std::complex<float>> {
  static constexpr bool valid = true;
  static constexpr Element type{Precision::Single, false};
};

// Whether a typed call may read In and write Out: two FFT element types of one precision.
template <typename In, typename Out>
constexpr bool fft_elements() {
  if constexpr (element_of<In>::valid && element_of<Out>::valid)
    return element_of<In>::type.precision == element_of<Out>::type.precision;
  else
    return false;
}

}  // namespace nbfft::fft
