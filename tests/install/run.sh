#!/usr/bin/env bash
# Installs nbfft from a build tree into a fresh prefix, moves the prefix (the package must be
# relocatable), then builds against it
#   - the Poisson examples (examples/, C++, C and Fortran in one project) with find_package,
#   - three consumer projects that each enable ONE language (consumers/cxx, c, fortran),
#   - the C programs with `mpicc $(pkg-config --cflags --libs nbfft)` and the Fortran one with
#     `mpifort $(pkg-config --cflags --libs nbfft-fortran)`,
# checks that a project enabling none of C, CXX, Fortran is told what to enable, and runs every
# program at 1, 2, 3 and 4 ranks; any wrong result or failed step fails the test.
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

# Each consumer project is configured with its one language's compilers only.
here=$(cd "$(dirname "$0")" && pwd)
consumer() {  # consumer NAME CMAKE_ARGS...: configure and build consumers/NAME
  local name=$1; shift
  cmake -S "$here/consumers/$name" -B "$work/consumer-$name" -DCMAKE_PREFIX_PATH="$prefix" \
    -DCMAKE_BUILD_TYPE=Release "$@" > "$work/consumer-$name.log" 2>&1 || { cat "$work/consumer-$name.log"; exit 1; }
  cmake --build "$work/consumer-$name" > "$work/consumer-$name-build.log" 2>&1 \
    || { cat "$work/consumer-$name-build.log"; exit 1; }
  echo "consumers/$name: built ($(grep -ho 'LANGUAGES [A-Za-z]*' "$here/consumers/$name/CMakeLists.txt"))"
}
step "find_package(nbfft) from projects that enable one language each"
consumer cxx -DCMAKE_CXX_COMPILER="$cxx" -DMPI_CXX_COMPILER="$mpicxx"
consumer c -DCMAKE_C_COMPILER="$cc" -DMPI_C_COMPILER="$mpicc"
if readelf -d "$work/consumer-c/roundtrip_c" | grep -q mpi_cxx; then
  echo "FAIL: a C program links Open MPI's C++ bindings"; exit 1
fi
echo "consumers/c: no libmpi_cxx"
if [ -n "$fc" ]; then
  consumer fortran -DCMAKE_Fortran_COMPILER="$fc" -DMPI_Fortran_COMPILER="$mpifort"
fi

step "find_package(nbfft) from a project with no language MPI serves: a clear error"
mkdir -p "$work/nolang"
printf 'cmake_minimum_required(VERSION 3.18)\nproject(nolang LANGUAGES NONE)\nfind_package(nbfft REQUIRED)\n' \
  > "$work/nolang/CMakeLists.txt"
if cmake -S "$work/nolang" -B "$work/nolang/build" -DCMAKE_PREFIX_PATH="$prefix" > "$work/nolang.log" 2>&1; then
  echo "FAIL: find_package(nbfft) succeeded without C, CXX or Fortran"; exit 1
fi
# cmake wraps the message: join its lines before looking for the advice.
if ! tr -s ' \n' ' ' < "$work/nolang.log" | grep -q "enables none of them.*project(<name> LANGUAGES CXX)"; then
  echo "FAIL: the error does not say what to enable:"; cat "$work/nolang.log"; exit 1
fi
echo "LANGUAGES NONE: refused with the advice to enable C, CXX or Fortran"

step "pkg-config: $mpicc prog.c \$(pkg-config --cflags --libs nbfft), $mpifort prog.f90 \$(... nbfft-fortran)"
pcdir=$(dirname "$(find "$prefix" -name nbfft.pc)")
export PKG_CONFIG_PATH=$pcdir
echo "pkg-config --cflags --libs nbfft: $(pkg-config --cflags --libs nbfft)"
# shellcheck disable=SC2046
"$mpicc" -std=c99 -pedantic -Wall -o "$work/poisson_pc" "$src/examples/poisson.c" $(pkg-config --cflags --libs nbfft) -lm
# shellcheck disable=SC2046
"$mpicc" -std=c99 -pedantic -Wall -o "$work/roundtrip_c_pc" "$here/consumers/c/roundtrip.c" $(pkg-config --cflags --libs nbfft) -lm
pc_programs=("$work/poisson_pc" "$work/roundtrip_c_pc")
if [ -n "$fc" ]; then
  [ -f "$pcdir/nbfft-fortran.pc" ] || { echo "FAIL: nbfft was built with Fortran but installed no nbfft-fortran.pc"; exit 1; }
  echo "pkg-config --cflags --libs nbfft-fortran: $(pkg-config --cflags --libs nbfft-fortran)"
  # shellcheck disable=SC2046
  "$mpifort" -Wall -o "$work/roundtrip_f_pc" "$here/consumers/fortran/roundtrip.f90" $(pkg-config --cflags --libs nbfft-fortran)
  pc_programs+=("$work/roundtrip_f_pc")
fi
libdir=$(pkg-config --variable=libdir nbfft)

# CMake's programs find the libraries through their RPATH; the pkg-config ones, built with
# plain -L, through LD_LIBRARY_PATH as a user would set it.
programs=("$work/examples/poisson_cxx" "$work/examples/channel_poisson_cxx" "$work/examples/poisson_c" "$work/consumer-cxx/roundtrip_cxx"
          "$work/consumer-c/roundtrip_c")
if [ -n "$fc" ]; then
  [ -x "$work/examples/poisson_f" ] || { echo "FAIL: the Fortran example was not built"; exit 1; }
  programs+=("$work/examples/poisson_f" "$work/examples/channel_poisson_f" "$work/consumer-fortran/roundtrip_f")
fi
fail=0
run() {  # run NP PROGRAM ARGS...: one mpiexec, with a timeout
  local np=$1; shift
  # shellcheck disable=SC2086
  timeout 120 "$mpiexec" -n "$np" $mpiflags "$@" || { echo "FAIL: $(basename "$1") ${*:2} at $np ranks"; fail=1; }
}
step "running ${#programs[@]} + ${#pc_programs[@]} programs at 1, 2, 3 and 4 ranks"
for np in 1 2 3 4; do
  for p in "${programs[@]}"; do run "$np" "$p"; done
  for p in "${pc_programs[@]}"; do LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" run "$np" "$p"; done
done
# Pencils (2x2) with an overlapping transport, for the C and C++ programs.
run 4 "$work/examples/poisson_cxx" pairwise:2@caller 2x2
LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" run 4 "$work/poisson_pc" pairwise:2@caller 2x2
[ "$fail" -eq 0 ] && echo && echo "install test: all programs passed"
exit "$fail"
