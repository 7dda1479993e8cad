// The CUDA entry points of a build without CUDA (NBFFT_WITH_CUDA=OFF or no nvcc found):
// device=cuda is then a clear error naming how to build with it.
#include "gpu/device.hpp"

#include "nbfft/error.hpp"

namespace nbfft::gpu {

bool cuda_built() { return false; }
std::string cuda_version() { return "not built"; }
int cuda_device_count(std::string* why_none) {
  if (why_none) *why_none = "this nbfft was built without CUDA";
  return 0;
}
std::unique_ptr<Device> cuda_device(int) {
  throw Error("device=cuda: this nbfft was built without CUDA (configure with -DNBFFT_WITH_CUDA=ON and nvcc, "
              "e.g. from `pip install nvidia-cuda-nvcc`; docs/gpu.md)",
              ErrorCode::Unavailable);
}

}  // namespace nbfft::gpu
