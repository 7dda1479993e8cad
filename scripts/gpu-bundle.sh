#!/usr/bin/env bash
# Builds, on a machine without a GPU, what scripts/gpu-check.sh runs on one (docs/gpu.md
# "Checking on a GPU"): a Release build with CUDA (PyPI's CUDA 13 kit in build/cuda), its GPU
# test and benchmark with the libraries they load, and Debian's Open MPI and FFTW runtime
# packages, which the GPU machine lacks, all in one folder (default build/gpu-bundle) to
# carry there. Usage: scripts/gpu-bundle.sh [BUNDLE_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
BUNDLE=${1:-build/gpu-bundle}
BUILD=build/gpu-release
CUDA_VENV=${CUDA_VENV:-build/cuda}
# The Makefile's pinned kit (its one list of versions), unless a kit is there already.
[ -x "$CUDA_VENV/bin/python" ] || make --no-print-directory cuda-kit CUDA_VENV="$CUDA_VENV"
NVCC=$(realpath "$(ls "$CUDA_VENV"/lib/python3*/site-packages/nvidia/cu13/bin/nvcc)")
cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DMPI_C_COMPILER=mpicc.openmpi -DMPI_CXX_COMPILER=mpicxx.openmpi \
  -DMPIEXEC_EXECUTABLE=/usr/bin/mpiexec.openmpi -DNBFFT_WITH_MKL=OFF -DNBFFT_WITH_HDF5=OFF -DNBFFT_BUILD_FORTRAN=OFF \
  -DNBFFT_WITH_CUDA=ON -DCMAKE_CUDA_COMPILER="$NVCC" >/dev/null
cmake --build "$BUILD" -j"${JOBS:-2}" --target test_gpu_device_plan nbfft-gpu-bench nbfft-sine
rm -rf "$BUNDLE"
mkdir -p "$BUNDLE/bin" "$BUNDLE/lib" "$BUNDLE/debs"
cp "$BUILD/tests/gpu/test_gpu_device_plan" "$BUILD/bin/nbfft-gpu-bench" "$BUILD/bin/nbfft-sine" "$BUNDLE/bin/"
cp -P "$BUILD"/coll/libnbfft_coll.so* "$BUILD"/fft/libnbfft_fft.so* "$BUNDLE/lib/"
cp scripts/gpu-check.sh "$BUNDLE/"
(cd "$BUNDLE/debs" && apt-get download -q libopenmpi3 openmpi-bin openmpi-common libucx0 libpsm-infinipath1 \
  libfftw3-single3 libfftw3-double3 libfftw3-mpi3 librdmacm1 libpsm2-2 libpmix2 libnuma1 libnl-route-3-200 libnl-3-200 \
  libmunge2 libibverbs1 libhwloc15 libfabric1 libevent-pthreads-2.1-7 libevent-core-2.1-7 libevent-2.1-7 \
  ibverbs-providers >/dev/null)
du -sh "$BUNDLE"
