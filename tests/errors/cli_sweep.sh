#!/usr/bin/env bash
# Issue 37's sweep of every command-line program the project ships, one group per ctest:
#   cli_sweep.sh GROUP BIN_DIR SOURCE_DIR MPIEXEC...
# GROUP is bench (nbfft-bench, nbfft-sine), tools (the other programs built from bench/),
# netcluster or experiments (tools/nbfft-experiments, tools/nbfft-model). Each case is a
# bad command line: no arguments or command, an unknown option (also as the last
# argument, where it used to be told "needs a value"), an option without its value, bad
# numbers (negative, zero, not a number, huge), output files in a missing or read-only
# folder (checked before the run, not lost after it); and --help, which must exit 0.
# A bad case must end in time, non-zero, with one clear error naming the option (for the
# MPI programs on both ranks: tests/errors/cli_case.sh). A program this build lacks is
# skipped. Prints one line per case and fails when any case fails.
set -u
group=$1 bin=$2 src=$3
shift 3
mpiexec=("$@")
case_sh=$src/tests/errors/cli_case.sh
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nbfft-cli-sweep.XXXXXX")
ro=
cleanup() {
  mountpoint -q "$tmp/ro" 2>/dev/null && umount "$tmp/ro"
  chmod -R u+w "$tmp" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT
# A read-only folder: permission bits for a normal user; root passes those, so a read-only
# tmpfs where root may mount; otherwise the read-only cases are skipped.
mkdir "$tmp/ro"
if [[ $(id -u) != 0 ]]; then
  chmod 555 "$tmp/ro" && ro=$tmp/ro
elif mount -t tmpfs -o ro,size=64k tmpfs "$tmp/ro" 2>/dev/null; then
  ro=$tmp/ro
fi
missing=/nonexistent-nbfft-dir
failures=0 cases=0

note() { printf '%-6s %-58s %s\n' "$1" "$2" "${3:-}"; }

# mpi PROG KIND NEEDLE ARGS...: on 2 ranks, a non-zero exit and "PROG: [KIND] ...NEEDLE..."
# on both.
mpi() {
  local prog=$1 kind=$2 needle=$3
  shift 3
  ((cases++))
  if [[ ! -x $bin/$prog ]]; then note SKIP "$prog $*" "(not built)"; return; fi
  if out=$(bash "$case_sh" "$prog" "$kind" 2 60 "$needle" -- "${mpiexec[@]}" -n 2 "$bin/$prog" "$@" 2>&1); then
    note ok "$prog $*" "$(tail -1 <<<"$out" | cut -c1-110)"
  else
    note FAIL "$prog $*"
    echo "$out"
    ((failures++))
  fi
}

# plain WANT NEEDLE CMD...: a program without MPI (or with --help): WANT 0 = exit 0,
# fail = a non-zero exit in 60 s; NEEDLE must appear in its output.
plain() {
  local want=$1 needle=$2 out rc
  shift 2
  ((cases++))
  if [[ $1 == */* && ! -x $1 ]]; then note SKIP "${*##*/}" "(not built)"; return; fi
  out=$(timeout -k 5 60 "$@" </dev/null 2>&1)
  rc=$?
  local ok=1
  ((rc == 124 || rc == 137)) && ok=0
  [[ $want == 0 ]] && ((rc != 0)) && ok=0
  [[ $want == fail ]] && ((rc == 0)) && ok=0
  grep -qF -- "$needle" <<<"$out" || ok=0
  if ((ok)); then
    note ok "${*##*/}" "(exit $rc) $(grep -F -m1 -- "$needle" <<<"$out" | cut -c1-100)"
  else
    note FAIL "${*##*/}" "exit $rc, wanted $want and '$needle'"
    echo "$out" | tail -20
    ((failures++))
  fi
}
# The same with `mpiexec -n 1`, for --help of the MPI programs.
help_ok() {
  if [[ -x $bin/$1 ]]; then plain 0 "$2" "${mpiexec[@]}" -n 1 "$bin/$1" --help; else ((cases++)); note SKIP "$1 --help" "(not built)"; fi
}
rocase() { [[ -n $ro ]] && "$@" || { ((cases++)); note SKIP "$*" "(no read-only folder here)"; }; }

ia="invalid argument"
case $group in
  bench)
    help_ok nbfft-bench "usage:"
    help_ok nbfft-sine "usage:"
    mpi nbfft-bench "$ia" "no command given"
    mpi nbfft-bench "$ia" "the command comes first, before options like '--iters'" --iters 3 overlap
    mpi nbfft-bench "$ia" "unknown option --sizess" overlap --sizess   # was "--sizess: needs a value"
    mpi nbfft-bench "$ia" "--iters: needs a value" overlap --iters --sizes 64
    mpi nbfft-bench "$ia" "unknown option --bogus" algorithms --bogus
    mpi nbfft-bench io "--trace: cannot write '$missing/t.json'" overlap --iters 1 --sizes 64 --tests 1 --trace $missing/t.json
    mpi nbfft-bench io "--trace: cannot write" primitives --iters 1 --sizes 64 --trace $missing/t.json
    rocase mpi nbfft-bench io "--trace: cannot write '$ro/t.json'" overlap --iters 1 --sizes 64 --tests 1 --trace $ro/t.json
    rocase mpi nbfft-bench io "--json: cannot write '$ro/o.json'" overlap --iters 1 --sizes 64 --tests 1 --json $ro/o.json
    mpi nbfft-bench io "--json: cannot write" kernels --grid 8 --iters 1 --json $missing/k.json
    mpi nbfft-bench io "--json: cannot write" nsloop --grid 8 --steps 1 --json $missing/n.json
    mpi nbfft-sine "$ia" "unknown option --gird" --grid 8 --gird   # was "--gird: needs a value"
    mpi nbfft-sine "$ia" "--iters: needs a value" --iters --grid 8
    mpi nbfft-sine io "--wisdom: cannot write '$missing/w'" --grid 8 --iters 1 --effort estimate --wisdom $missing/w
    rocase mpi nbfft-sine io "--json: cannot write '$ro/s.json'" --grid 8 --iters 1 --effort estimate --json $ro/s.json
    mpi nbfft-sine io "--json: cannot write" --shape 8,8 --iters 1 --json $missing/s.json
    # A grid too large to address is refused by the plan before the field is built (it
    # used to fill tables of 2e9 points first: minutes and gigabytes).
    mpi nbfft-sine "$ia" "cannot be addressed" --grid 2000000000 --iters 1 --effort estimate
    ;;
  tools)
    help_ok nbfft-bench-nd "usage:"   # these ran their benchmark on --help
    help_ok nbfft-bench-bricks "usage:"
    help_ok nbfft-bench-iobg "usage:"
    help_ok nbfft-transpose-bench "usage:"
    help_ok nbfft-io-bench "usage:"   # was an error
    mpi nbfft-bench-nd "$ia" "unknown option --bogus" --n 8 --bogus   # was ignored
    mpi nbfft-bench-nd "$ia" "--rounds: '0' is out of range" --n 8 --rounds 0
    mpi nbfft-bench-nd "$ia" "--n: '0' is out of range" --n 0
    mpi nbfft-bench-nd "$ia" "--case: 'bogus' is not 2d, batch or 3d" --case bogus
    mpi nbfft-bench-bricks "$ia" "--grid: needs a value" --grid   # was ignored: the benchmark ran
    mpi nbfft-bench-bricks "$ia" "--grid: 'abc' is not an integer" --grid abc   # was MPI_Abort
    mpi nbfft-bench-bricks "$ia" "--grid: '-8' is out of range" --grid -8
    mpi nbfft-bench-bricks "$ia" "--layouts: unknown layout 'bogus'" --grid 8 --layouts bogus
    mpi nbfft-bench-iobg "$ia" "--rounds: '0' is out of range" --grid 8 --rounds 0   # was a segfault
    mpi nbfft-bench-iobg "$ia" "--every: '0' is out of range" --grid 8 --every 0     # was SIGFPE
    mpi nbfft-bench-iobg "$ia" "--stage: 'lend' is not one of copy, borrow" --grid 8 --stage lend
    mpi nbfft-bench-iobg "$ia" "--stage borrow needs --write U" --grid 8 --stage borrow
    mpi nbfft-bench-iobg io "--dir: cannot write '$missing/" --grid 8 --rounds 1 --steps 1 --dir $missing
    rocase mpi nbfft-bench-iobg io "--dir: cannot write '$ro/" --grid 8 --rounds 1 --steps 1 --dir $ro
    mpi nbfft-transpose-bench "$ia" "--grid: 'abc' is not an integer" --grid abc   # was std::terminate
    mpi nbfft-transpose-bench "$ia" "--iters: '-1' is out of range" --iters -1     # was a segfault
    mpi nbfft-transpose-bench "$ia" "unknown option --bogus" --grid 8 --bogus
    mpi nbfft-io-bench "$ia" "--grid: needs a value" --path $tmp/x.h5 --grid     # was "unknown argument '--grid'"
    mpi nbfft-io-bench "$ia" "--grid: '1' is out of range" --grid 1 --path $tmp/x.h5
    mpi nbfft-io-bench io "--path: cannot write '$missing/x.h5'" --grid 8 --path $missing/x.h5
    rocase mpi nbfft-io-bench io "--path: cannot write '$ro/x.h5'" --grid 8 --path $ro/x.h5
    plain 0 "usage:" "$bin/nbfft-fftw-serial" --help
    plain fail "nbfft-fftw-serial: [invalid argument] unknown option --bogus" "$bin/nbfft-fftw-serial" --bogus
    plain fail "nbfft-fftw-serial: [io] --json: cannot write '$missing/f.json'" "$bin/nbfft-fftw-serial" --grid 8 --iters 1 --json $missing/f.json
    plain fail "nbfft-local-threads: [invalid argument] --threads must be in [1, 64]" "$bin/nbfft-local-threads" --threads 0
    plain fail "nbfft-local-threads: [invalid argument] --grid: needs a value" "$bin/nbfft-local-threads" --grid
    ;;
  netcluster)
    # Only command lines refused before anything is created (no namespaces, no root needed).
    nc=$src/tools/netcluster/netcluster
    plain 0 "Usage:" "$nc" --help
    plain fail "Usage:" "$nc"
    plain fail "unknown command 'bogus'" "$nc" bogus
    plain fail "unknown option '--bogus' for status" "$nc" status --bogus   # exited 0
    plain fail "unknown option 'extra' for status" "$nc" status extra       # exited 0
    plain fail "unknown option '--bogus' for down" "$nc" down --bogus
    plain fail "--hosts needs a value" "$nc" run --hosts
    plain fail "--hosts must be 1..250 (got '0')" "$nc" run --hosts 0 -- true
    plain fail "--np must be 1..1000000 (got '-1')" "$nc" run --hosts 2 --np -1 -- true
    plain fail "--rate 'fast' is not a tc rate" "$nc" run --hosts 2 --rate fast -- true
    plain fail "no program given" "$nc" run --hosts 2
    ;;
  experiments)
    py=$(dirname "$bin")/venv/bin/python  # the build's venv (make venv), else python3
    [[ -x $py ]] || py=python3
    if ! "$py" -c "import numpy, matplotlib" 2>/dev/null; then
      echo "SKIP: no Python with numpy and matplotlib for the experiment tools (make venv)"
      exit 0
    fi
    export NBFFT_PYTHON=$py
    ex=$src/tools/nbfft-experiments md=$src/tools/nbfft-model model=$src/docs/model/model.json
    plain 0 "usage: nbfft-experiments" "$ex" --help
    plain fail "the following arguments are required: cmd" "$ex"
    plain fail "unrecognized arguments: --bogus" "$ex" run --bogus   # was "required: names"
    plain fail "--cluster: expected HOSTSxRANKS@RATE" "$ex" run all --cluster nonsense   # was a traceback
    plain fail "--repeats must be at least 2" "$ex" run all --repeats 0
    plain fail "--lock: No such file or directory" "$ex" run s000_table1 --quick --build "$(dirname "$bin")" --out $tmp/res \
      --lock $missing/l   # each run failed instead
    plain 0 "usage: nbfft-model" "$md" --help
    plain fail "unrecognized arguments: --modle" "$md" predict --modle m.json --grid 8 --ranks 2   # was "required: --model"
    plain fail "--json: cannot write '$missing/p.json'" "$md" predict --model "$model" --grid 64 --ranks 4 --json $missing/p.json
    rocase plain fail "--json: cannot write '$ro/p.json'" "$md" predict --model "$model" --grid 64 --ranks 4 --json $ro/p.json
    plain fail "--out: cannot write '$missing/f.json'" "$md" fit "$src/docs/model/local.json" --out $missing/f.json
    plain fail "every size must be <=" "$md" predict --model "$model" --grid 100000000000 --ranks 4
    plain fail "--fields must be >= 1" "$md" predict --model "$model" --grid 64 --ranks 4 --fields 0
    ;;
  *)
    echo "unknown group $group"
    exit 1
    ;;
esac
echo "$group: $cases cases, $failures failed"
((failures == 0))
