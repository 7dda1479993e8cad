// The names of nbfft/io/hdf5.hpp's enums: built with or without HDF5.
#include "nbfft/io/hdf5.hpp"

namespace nbfft::io {

const char* name(Space s) { return s == Space::Physical ? "physical" : "spectral"; }

const char* name(Axis a) { return a == Axis::X ? "x" : a == Axis::Y ? "y" : "z"; }

const char* name(Dtype d) {
  switch (d) {
    case Dtype::Float64: return "float64";
    case Dtype::Float32: return "float32";
    case Dtype::Complex128: return "complex128";
    case Dtype::Complex64: return "complex64";
  }
  return "unknown";
}

}  // namespace nbfft::io
