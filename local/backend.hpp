// What a backend file provides (local/fftw.cpp, local/mkl.cpp, ...), and the table of the
// built ones (local/backend.cpp). A new backend is one file defining its Ops plus a line in
// that table and its build lines.
#pragma once

#include "local/transform.hpp"

#include <memory>
#include <string>

namespace nbfft::local::detail {

struct Ops {
  Backend id;  // its name: local::name(id)
  bool r2r;    // runs the real-to-real kinds natively (else through its DFT, local/r2r_by_dft.cpp)
  std::unique_ptr<Executor<double>> (*plan_double)(const Problem&, void* in, void* out, Effort);
  std::unique_ptr<Executor<float>> (*plan_float)(const Problem&, void* in, void* out, Effort);
  int (*misalignment_double)(const void*);
  int (*misalignment_float)(const void*);
  std::string (*export_knowledge)(bool single);
  bool (*import_knowledge)(bool single, const std::string& text);
  std::string (*version)();
};

// The built backend's table entry, or nullptr.
const Ops* find(Backend b);

// Each backend file's entry (defined only when the backend is built).
const Ops& fftw_ops();
const Ops& mkl_ops();

}  // namespace nbfft::local::detail
