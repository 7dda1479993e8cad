#!/usr/bin/env bash
# The device check (docs/gpu.md "Checking on a GPU"): on a machine with an NVIDIA GPU, runs
# the GPU tests at 1-4 ranks sharing the GPU and the benchmarks from a bundle made elsewhere
# by scripts/gpu-bundle.sh, and writes every log and a summary into one folder.
# Usage: gpu-check.sh BUNDLE_DIR OUT_DIR [quick|ipc]   (about 2 minutes on an H200; quick: tests only;
# ipc: tests and the multi-rank benchmarks of both exchanges)
set -uo pipefail
BUNDLE=$(cd "$1" && pwd)
OUT=$2
MODE=${3:-full}
mkdir -p "$OUT"
R=/tmp/nbfft-gpu-runtime
if [ ! -x $R/usr/bin/orterun ]; then
  mkdir -p $R
  for f in "$BUNDLE"/debs/*.deb; do dpkg -x "$f" $R; done
fi
CUDA_LIB=$(ls -d /usr/local/cuda*/targets/x86_64-linux/lib 2>/dev/null | head -1)
export OPAL_PREFIX=$R/usr PMIX_INSTALL_PREFIX=$R/usr/lib/x86_64-linux-gnu/pmix2 HWLOC_COMPONENTS=-gl,-opencl
export LD_LIBRARY_PATH=$BUNDLE/lib:$R/usr/lib/x86_64-linux-gnu:$R/lib/x86_64-linux-gnu:${CUDA_LIB}:${LD_LIBRARY_PATH:-}
MPIRUN="$R/usr/bin/orterun --allow-run-as-root --oversubscribe --mca pml ob1 --mca btl self,vader"
{ nvidia-smi; echo; ldd "$BUNDLE/bin/test_gpu_device_plan"; } > "$OUT/machine.txt" 2>&1
status=0
for n in 1 2 3 4; do
  GTEST_COLOR=no NBFFT_TEST_DEVICE=cuda timeout 150 $MPIRUN -x GTEST_COLOR -x NBFFT_TEST_DEVICE -n $n \
    "$BUNDLE/bin/test_gpu_device_plan" > "$OUT/test_np$n.log" 2>&1
  rc=$?
  L="$OUT/test_np$n.log"
  echo "gpu.cuda np$n: rc=$rc ok=$(grep -c '^\[       OK \]' "$L") failed=$(grep -c '^\[  FAILED  \] .* (' "$L")" \
    "skipped=$(grep -c '^\[  SKIPPED \] .* (' "$L")" | tee -a "$OUT/summary.txt"
  [ $rc -ne 0 ] && status=1
done
if [ "$MODE" != quick ]; then
  B="$BUNDLE/bin/nbfft-gpu-bench"
  bench() { echo "\$ $*" >> "$OUT/bench.log"; timeout 240 "$@" >> "$OUT/bench.log" 2>&1 || echo "rc=$? for: $*" >> "$OUT/bench.log"; }
  if [ "$MODE" != ipc ]; then
    bench $MPIRUN -n 1 $B --grid 512 --rounds 10 --transports blocking
    bench $MPIRUN -n 1 $B --grid 1024 --rounds 5 --transports blocking
    bench $MPIRUN -n 1 $B --grid 512 --precision single --rounds 10 --transports blocking
  fi
  # nbfft-sine on the GPU against cuFFT's own transform (its summary line), and split across
  # two ranks sharing the GPU with the ipc exchange.
  S="$BUNDLE/bin/nbfft-sine"
  bench $MPIRUN -n 1 $S --grid 512 --iters 5 --effort estimate --device cuda --baseline cufft
  bench $MPIRUN -n 2 $S --grid 512 --iters 3 --fields 2 --effort estimate --device cuda --device-exchange ipc
  bench $MPIRUN -n 2 $B --grid 512 --fields 4 --rounds 3 --transports ipc,blocking,pairwise:2@caller
  bench $MPIRUN -n 4 $B --grid 512 --fields 4 --rounds 3 --transports ipc,blocking,pairwise:2@caller
  grep -E '^record=|^summary:' "$OUT/bench.log" >> "$OUT/summary.txt"
fi
exit $status
