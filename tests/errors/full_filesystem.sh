#!/usr/bin/env bash
# Results written to a full file system: the program exits non-zero with an [io] message on
# every rank, and the older file at the target path is left intact (no temporary either).
# Needs root for a 64 KiB tmpfs; skips (exit 77) otherwise.
#   full_filesystem.sh NBFFT_BENCH NBFFT_SINE MPIEXEC...
set -u
bench=$1 sine=$2
shift 2
mpiexec=("$@")
if [[ $(id -u) != 0 ]]; then
  echo "SKIP: mounting a small tmpfs needs root"
  exit 77
fi
dir=$(mktemp -d /tmp/nbfft-fullfs.XXXXXX)
cleanup() { umount "$dir" 2>/dev/null; rmdir "$dir"; }
trap cleanup EXIT
if ! mount -t tmpfs -o size=64k tmpfs "$dir" 2>/dev/null; then
  echo "SKIP: cannot mount a tmpfs here (no CAP_SYS_ADMIN)"
  exit 77
fi
status=0
check() {  # name rc output_file target old_content
  local name=$1 rc=$2 out=$3 target=$4 old=$5
  if ((rc == 0 || rc == 124)); then echo "FAIL $name: exit $rc"; status=1; fi
  if ! grep -q "\[io\]\|nbfft: .*cannot write\|No space left" "$out"; then
    echo "FAIL $name: no io message"; cat "$out"; status=1
  fi
  if [[ $(cat "$target") != "$old" ]]; then echo "FAIL $name: the older file changed"; status=1; fi
  if ls "$dir" | grep -q '\.tmp\.'; then echo "FAIL $name: a temporary was left"; status=1; fi
  echo "$name: exit $rc"; grep -m2 "io\]\|cannot write" "$out"
}

# 1. nbfft-bench JSON.
echo '["older results"]' >"$dir/results.json"
# 2. FFTW wisdom, saved by a first run while there is room.
timeout 60 "${mpiexec[@]}" -n 2 "$sine" --grid 8 --iters 1 --effort estimate --wisdom "$dir/wisdom" >/dev/null 2>&1 ||
  { echo "FAIL: the first nbfft-sine run could not write its wisdom"; exit 1; }
old_wisdom=$(cat "$dir/wisdom")
# Fill the file system.
dd if=/dev/zero of="$dir/filler" bs=4k 2>/dev/null
out=$(mktemp)
timeout 60 "${mpiexec[@]}" -n 2 "$bench" overlap --iters 1 --sizes 64 --tests 1 --json "$dir/results.json" >"$out" 2>&1
check "nbfft-bench --json" $? "$out" "$dir/results.json" '["older results"]'
n=$(grep -c "^nbfft-bench: \[io\]" "$out")
((n == 2)) || { echo "FAIL: $n of 2 ranks printed the io error"; status=1; }
# Wisdom must differ to be rewritten at all; a new grid adds to it.
timeout 60 "${mpiexec[@]}" -n 2 "$sine" --grid 12 --iters 1 --effort estimate --wisdom "$dir/wisdom" >"$out" 2>&1
check "nbfft-sine --wisdom" $? "$out" "$dir/wisdom" "$old_wisdom"
rm -f "$out"
exit $status
