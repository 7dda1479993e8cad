#!/usr/bin/env bash
# Installs nbfft from a build tree into a fresh prefix, moves the prefix (the package must be
# relocatable), builds the Poisson examples against it with find_package(nbfft) (C++, C,
# Fortran) and the C one with plain `mpicc $(pkg-config --cflags --libs nbfft)`, and runs
# each at 1, 2, 3 and 4 ranks; any error above 1e-10 or failed step fails the test.
#
#   run.sh BUILD_DIR SOURCE_DIR MPIEXEC "MPIEXEC_FLAGS" MPICC MPICXX MPIFORT CC CXX FC
set -euo pipefail
build=$1 src=$2 mpiexec=$3 mpiflags=$4 mpicc=$5 mpicxx=$6 mpifort=$7 cc=$8 cxx=$9 fc=${10}
work=$(mktemp -d "${TMPDIR:-/tmp}/nbfft-install.XXXXXX")
trap 'rm -rf "$work"' EXIT
step() { echo; echo "== $*"; }

step "cmake --install $build --prefix $work/staged"
cmake --install "$build" --prefix "$work/staged" > "$work/install.log"
grep -c "Installing\|Up-to-date" "$work/install.log" | sed 's/^/files installed: /'
mv "$work/staged" "$work/prefix"   # relocated: nothing may point back to the staging path
prefix=$work/prefix
if grep -rqs "$work/staged" "$prefix"; then
  echo "FAIL: the installed files name the staging prefix:"; grep -rls "$work/staged" "$prefix"; exit 1
fi

step "find_package(nbfft): configure and build examples/"
fortran_args=()
if [ -n "$fc" ] && [ -n "$mpifort" ]; then
  fortran_args=(-DCMAKE_Fortran_COMPILER="$fc" -DMPI_Fortran_COMPILER="$mpifort")
fi
cmake -S "$src/examples" -B "$work/examples" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx" -DMPI_C_COMPILER="$mpicc" -DMPI_CXX_COMPILER="$mpicxx" \
  "${fortran_args[@]}" > "$work/configure.log" || { cat "$work/configure.log"; exit 1; }
cmake --build "$work/examples" -j2 > "$work/build.log" || { cat "$work/build.log"; exit 1; }
ls "$work/examples" | grep '^poisson_'

step "find_package(nbfft) from a C-only project (MPI's C component must be enough)"
mkdir -p "$work/conly"
cat > "$work/conly/CMakeLists.txt" <<CMAKE
cmake_minimum_required(VERSION 3.18)
project(conly LANGUAGES C)
find_package(nbfft 0.1 REQUIRED COMPONENTS c)
add_executable(poisson_conly $src/examples/poisson.c)
target_link_libraries(poisson_conly PRIVATE nbfft::c m)
CMAKE
cmake -S "$work/conly" -B "$work/conly/build" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_C_COMPILER="$cc" \
  -DMPI_C_COMPILER="$mpicc" > "$work/conly.log" || { cat "$work/conly.log"; exit 1; }
cmake --build "$work/conly/build" > "$work/conly-build.log" || { cat "$work/conly-build.log"; exit 1; }
if readelf -d "$work/conly/build/poisson_conly" | grep -q mpi_cxx; then
  echo "FAIL: a C program links Open MPI's C++ bindings"; exit 1
fi
echo "poisson_conly: built, no libmpi_cxx"

step "pkg-config: $mpicc poisson.c \$(pkg-config --cflags --libs nbfft)"
pcdir=$(dirname "$(find "$prefix" -name nbfft.pc)")
export PKG_CONFIG_PATH=$pcdir
echo "pkg-config --cflags --libs nbfft: $(pkg-config --cflags --libs nbfft)"
# shellcheck disable=SC2046
"$mpicc" -std=c99 -pedantic -Wall -o "$work/poisson_pc" "$src/examples/poisson.c" $(pkg-config --cflags --libs nbfft) -lm
libdir=$(pkg-config --variable=libdir nbfft)

programs=("$work/examples/poisson_cxx" "$work/examples/poisson_c" "$work/poisson_pc" "$work/conly/build/poisson_conly")
[ -x "$work/examples/poisson_f" ] && programs+=("$work/examples/poisson_f")
[ -x "$work/examples/poisson_f" ] || { [ -z "$fc" ] || { echo "FAIL: the Fortran example was not built"; exit 1; }; }
fail=0
for p in "${programs[@]}"; do
  for np in 1 2 3 4; do
    # shellcheck disable=SC2086
    if ! LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" timeout 120 \
        "$mpiexec" -n "$np" $mpiflags "$p"; then
      echo "FAIL: $(basename "$p") at $np ranks"; fail=1
    fi
  done
done
# Pencils (2x2) with an overlapping transport, for the C and C++ programs.
for p in "$work/examples/poisson_cxx" "$work/poisson_pc"; do
  # shellcheck disable=SC2086
  if ! LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" timeout 120 \
      "$mpiexec" -n 4 $mpiflags "$p" pairwise:2@caller 2x2; then
    echo "FAIL: $(basename "$p") at 4 ranks, 2x2, pairwise:2@caller"; fail=1
  fi
done
[ "$fail" -eq 0 ] && echo && echo "install test: all examples passed"
exit "$fail"
