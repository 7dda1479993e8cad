#!/usr/bin/env bash
# One bad-input case of a command-line program:
#   cli_case.sh PROG KIND NPRINT TIMEOUT [NEEDLE] -- COMMAND...
# Passes when COMMAND ends within TIMEOUT seconds with a non-zero exit and at least NPRINT
# lines "PROG: [KIND] ..." (one per rank), no line of another kind, and (with NEEDLE) every
# one of those lines, or the output after them, names the problem (contains NEEDLE).
set -u
prog=$1 kind=$2 nprint=$3 limit=$4 needle=
shift 4
[[ $1 != -- ]] && needle=$1 && shift
[[ $1 == -- ]] && shift
out=$(mktemp)
trap 'rm -f "$out"' EXIT
timeout -k 5 "$limit" "$@" >"$out" 2>&1
rc=$?
fail() {
  echo "FAIL: $*"
  echo "--- command: $*"
  echo "--- output:"
  cat "$out"
  exit 1
}
((rc == 124 || rc == 137)) && fail "did not finish within ${limit}s (hang)"
((rc == 0)) && fail "exit code 0 for bad input"
if grep -q "^$prog: \[" "$out"; then
  got=$(grep -c "^$prog: \[$kind\]" "$out")
  other=$(grep "^$prog: \[" "$out" | grep -vc "^$prog: \[$kind\]")
  ((other > 0)) && fail "an error of another kind than [$kind]"
  ((got < nprint)) && fail "$got of the $nprint ranks printed '$prog: [$kind]'"
  if [[ -n $needle ]]; then
    named=$(grep -cF -- "$needle" "$out")
    ((named < nprint)) && fail "$named line(s) name '$needle'; expected one per rank ($nprint)"
  fi
  echo "ok: exit $rc, $got rank(s) printed [$kind]"
  grep -m1 "^$prog: \[" "$out"
else
  fail "no '$prog: [$kind] ...' line"
fi
