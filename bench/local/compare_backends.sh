#!/bin/bash
# FFTW, MKL and the tuner's per-stage mix on the 3-D plan (issue 33), interleaved: for each
# grid, rank count, transform and precision, rounds of two processes in turn:
#   A: nbfft-sine --backend mkl                (MKL on every stage)
#   B: nbfft-sine --autotune quick             (the default plan, FFTW where built, and the
#                                               tuned plan, its runs interleaved round-robin)
# Prints one line per configuration: median ms of each over the rounds, and the tuned plan's
# backends. Usage: bench/local/compare_backends.sh BUILD_DIR [ROUNDS] [MPIRUN...]
set -euo pipefail
build=${1:?usage: compare_backends.sh BUILD_DIR [ROUNDS] [MPIRUN...]}
rounds=${2:-2}
shift $(( $# >= 2 ? 2 : 1 ))
mpirun=${*:-mpiexec.openmpi --oversubscribe --bind-to none}
sine=$build/bin/nbfft-sine
rows() { awk '$1 ~ /^[0-9]+$/ && $2=="nbfft" {print $4, $5, $NF}'; }
printf "%-28s %10s %10s %10s  %s\n" "grid ranks transform prec" "fftw ms" "mkl ms" "tuned ms" "tuned plan's backends (x,y,z)"
for grid in 128 256; do
  for np in 1 2; do
    for tp in "r2c double" "r2c single" "c2c double" "c2c single"; do
      set -- $tp
      common="--grid $grid --transform $1 --precision $2 --iters 8 --effort measure"
      fftw=() mkl=() tuned=() chosen=""
      for _ in $(seq "$rounds"); do
        a=$($mpirun -n "$np" "$sine" $common --backend mkl 2>&1 | rows)
        mkl+=("$(echo "$a" | awk 'NR==1{print $2}')")
        b=$($mpirun -n "$np" "$sine" $common --autotune quick --autotune-budget 8 2>&1 | rows)
        fftw+=("$(echo "$b" | awk 'NR==1{print $2}')")
        tuned+=("$(echo "$b" | awk 'NR==2{print $2}')")
        chosen=$(echo "$b" | awk 'NR==2{print $3}')
      done
      med() { printf "%s\n" "$@" | sort -g | awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }
      printf "%-28s %10s %10s %10s  %s\n" "${grid}^3 $np $1 $2" "$(med "${fftw[@]}")" "$(med "${mkl[@]}")" \
        "$(med "${tuned[@]}")" "$chosen"
    done
  done
done
