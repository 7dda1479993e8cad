#!/bin/bash
# A per-stage backend mix against each single backend with every other setting the same
# (the tuner also picks threads, transports, ...; this isolates the backends): nbfft-sine
# with --backend fftw, mkl and MIX in turn, ROUNDS rounds, median [min, max] ms per iteration.
# Usage: bench/local/compare_mix.sh BUILD_DIR MIX ROUNDS NP GRID TRANSFORM PRECISION [MPIRUN...]
set -euo pipefail
build=$1 mix=$2 rounds=$3 np=$4 grid=$5 transform=$6 precision=$7
shift 7
mpirun=${*:-mpiexec.openmpi --oversubscribe --bind-to none}
declare -A t
for _ in $(seq "$rounds"); do
  for b in fftw mkl "$mix"; do
    ms=$($mpirun -n "$np" "$build/bin/nbfft-sine" --grid "$grid" --transform "$transform" --precision "$precision" \
         --iters 10 --effort measure --backend "$b" 2>&1 | awk '$1 ~ /^[0-9]+$/ && $2=="nbfft" {print $5; exit}')
    t[$b]="${t[$b]:-} $ms"
  done
done
line="${grid}^3 $np $transform $precision:"
for b in fftw mkl "$mix"; do
  line+=$(printf "%s\n" ${t[$b]} | sort -g | awk -v b="$b" '{v[NR]=$1} END {printf "  %s %.2f [%.2f, %.2f]", b, v[int((NR+1)/2)], v[1], v[NR]}')
done
echo "$line"
