// A program that loads MKL before libfftw3 (tests/local/CMakeLists.txt links it so): FFTW's
// entry points then resolve into MKL's FFTW wrappers, and nbfft's FFTW backend must refuse
// to plan with an error that says so, instead of computing with MKL's wrappers (which have
// no r2r kinds and other semantics). The MKL backend still plans and runs.
#include "local/transform.hpp"
#include "nbfft/error.hpp"

#include <dlfcn.h>
#include <fftw3.h>
#include <gtest/gtest.h>

#include <string>

// From mkl_service.h (MKL_Get_Version_String), declared here so that this program refers to
// MKL directly and keeps it first in its DT_NEEDED whatever the linker's --as-needed default.
extern "C" void MKL_Get_Version_String(char* buffer, int len);

namespace nbfft::local {
namespace {

TEST(FftwSymbolsMklFirst, FftwBackendRefusesMklWrappers) {
  char mkl_version[128] = {0};
  MKL_Get_Version_String(mkl_version, sizeof mkl_version);
  Dl_info at{};
  ASSERT_NE(dladdr(reinterpret_cast<const void*>(&fftw_plan_guru64_dft), &at), 0);
  // The premise: in this program the name resolves into MKL.
  ASSERT_NE(std::string(at.dli_fname).find("mkl"), std::string::npos)
      << "fftw_plan_guru64_dft resolves into " << at.dli_fname << ", not MKL: the test's link order did not hold";
  double a[32] = {0};
  try {
    Transform<double> t(Backend::Fftw, Problem{Kind::Forward, {{8, 1, 1}}, {}, {}, Input::Any}, a, a + 16, Effort::Estimate);
    FAIL() << "the FFTW backend planned on MKL's wrappers";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::Unavailable);
    EXPECT_NE(e.message().find("resolves into"), std::string::npos) << e.message();
    EXPECT_NE(e.message().find("mkl"), std::string::npos) << e.message();
    EXPECT_NE(e.message().find("wrappers to"), std::string::npos) << e.message();
  }
  for (Input input : {Input::Any, Input::Preserve}) {  // r2r too: every FFTW plan is refused
    try {
      Transform<double> t(Backend::Fftw, Problem{Kind::R2R, {{8, 1, 1}}, {}, {R2r::Dct2}, input}, a, a + 16,
                          Effort::Estimate);
      FAIL() << "the FFTW backend planned an r2r on MKL's wrappers";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::Unavailable);
    }
  }
  Transform<double> m(Backend::Mkl, Problem{Kind::Forward, {{8, 1, 1}}, {}, {}, Input::Any}, a, a + 16, Effort::Estimate);
  a[0] = 1;
  m.execute(a, a + 16);
  for (int k = 0; k < 8; ++k) EXPECT_DOUBLE_EQ(a[16 + 2 * k], 1.0);  // the DFT of a delta
}

}  // namespace
}  // namespace nbfft::local
