#!/usr/bin/env bash
# Installs the Debian packages nbfft needs for one MPI flavour, skipping what is already there,
# so `make test` / `make demo` work on a fresh machine and cost ~nothing on a prepared one.
# Parallel HDF5 (field I/O, nbfft/io/hdf5.hpp) is built per MPI: each flavour gets its own.
set -euo pipefail
mpi="${1:-openmpi}"
common=(build-essential cmake pkg-config libgtest-dev libfftw3-dev iproute2 python3 python3-venv python3-dev gfortran)
case "$mpi" in
  openmpi) pkgs=("${common[@]}" openmpi-bin libopenmpi-dev libfftw3-mpi-dev libhdf5-openmpi-dev) ;;
  mpich)   pkgs=("${common[@]}" mpich libmpich-dev libhdf5-mpich-dev) ;;
  *) echo "install-deps: unknown MPI '$mpi' (use openmpi or mpich)" >&2; exit 2 ;;
esac
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -eq 0 ]; then exit 0; fi
echo "install-deps: installing ${missing[*]}"
SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
