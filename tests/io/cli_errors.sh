#!/usr/bin/env bash
# One bad-input case of nbfft::io as a program (nbfft-io-case, 2 ranks): the case's files
# are made here, then tests/errors/cli_case.sh checks that the run ends with a non-zero exit
# and the same "[kind] ..." line naming the problem on both ranks.
#   cli_errors.sh CASE CLI_CASE_SH NBFFT_IO_CASE MPIEXEC...
set -u
case_name=$1 cli_case=$2 prog=$3
shift 3
mpiexec=("$@")
dir=$(mktemp -d "${TMPDIR:-/tmp}/nbfft-io-cli.XXXXXX")
mounted=
cleanup() {
  [[ -n $mounted ]] && umount "$mounted"
  chmod -R u+w "$dir" 2>/dev/null
  rm -rf "$dir"
}
trap cleanup EXIT
run() { timeout -k 5 60 "${mpiexec[@]}" -n 2 "$prog" "$@"; }
# A good file to go wrong with: field u at steps 0 and 1, and its spectrum u_hat.
good() { run write "$dir/run.h5" --steps 0,1 --spectral >/dev/null 2>&1 || { echo "FAIL: could not write $dir/run.h5"; exit 1; }; }
as=()  # a prefix that runs the job as another user (setpriv), or nothing
expect() {  # KIND NEEDLE ARGS...: the run must fail with KIND on both ranks, naming NEEDLE
  local kind=$1 needle=$2
  shift 2
  bash "$cli_case" nbfft-io-case "$kind" 2 90 "$needle" -- "${as[@]}" "${mpiexec[@]}" -n 2 "$prog" "$@"
}
f=$dir/run.h5
case $case_name in
  missing_field) good; expect "invalid argument" "'$f' has no field 'v' (its fields: u, u_hat)" read "$f" --field v ;;
  missing_step) good; expect "invalid argument" "'$f' has no step 7 of field 'u' (its steps: 0, 1)" read "$f" --steps 7 ;;
  other_grid) good; expect "invalid argument" "is a 5x6x8 (z, y, x) array; this plan's physical field is 5x6x9 (another grid)" \
    read "$f" --grid 9,6,5 ;;
  other_dtype) good; expect "invalid argument" "/u/0 of '$f' holds float64, the plan reads float32" read "$f" --single ;;
  other_space) good; expect "invalid argument" "/u/0 of '$f' is a physical field; asked for a spectral one" \
    read "$f" --spectral ;;
  truncated)
    good
    truncate -s $(($(stat -c %s "$f") * 2 / 3)) "$f"
    expect io "cannot open '$f': truncated file" read "$f" ;;
  corrupt)  # one bit flipped inside the data of /u/1: only the checksum can see it
    good
    run corrupt "$f" --field u --steps 1 || exit 1
    expect io "/u/1 of '$f' fails its checksum" read "$f" --steps 1 --proc-grid 2x1 ;;
  corrupt_spectrum)
    good
    run corrupt "$f" --field u_hat --steps 0 || exit 1
    expect io "/u_hat/0 of '$f' fails its checksum" read "$f" --field u_hat --spectral --steps 0 ;;
  foreign_hdf5)  # /u/0 as nbfft would write it, but by plain HDF5: no nbfft_format
    run foreign "$f" || exit 1
    expect io "'$f' is an HDF5 file but not nbfft's" read "$f" ;;
  not_hdf5)
    printf 'step,u\n0,1.0\n' >"$f"
    expect io "cannot open '$f': file signature not found" read "$f" ;;
  missing_folder) expect io "cannot create '$dir/none/run.h5.nbfft-tmp'" write "$dir/none/run.h5" ;;
  unwritable_folder)
    # Root passes permission bits: a read-only tmpfs is unwritable for root too; where root
    # may not mount (or NBFFT_TEST_NO_MOUNT is set), the job runs as nobody on a mode-555 folder.
    mkdir "$dir/ro"
    if [[ $(id -u) != 0 ]]; then
      chmod 555 "$dir/ro"
    elif [[ -z ${NBFFT_TEST_NO_MOUNT:-} ]] && mount -t tmpfs -o ro,size=64k tmpfs "$dir/ro" 2>/dev/null; then
      mounted=$dir/ro
    elif command -v setpriv >/dev/null; then
      chmod 755 "$dir" && chmod 555 "$dir/ro"
      as=(setpriv --reuid=65534 --regid=65534 --clear-groups)
      echo "running the job as nobody (uid 65534)"
    else
      echo "FAIL: root can neither mount a read-only tmpfs nor run the job as another user (setpriv)"
      exit 1
    fi
    expect io "cannot create '$dir/ro/run.h5.nbfft-tmp'" write "$dir/ro/run.h5" ;;
  step_twice) expect "invalid argument" "'$f' already holds /u/1" write "$f" --steps 0,1,1 ;;
  step_twice_append) good; expect "invalid argument" "'$f' already holds /u/0" write "$f" --append --steps 2,0 ;;
  *) echo "unknown case $case_name"; exit 1 ;;
esac
