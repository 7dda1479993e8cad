#!/usr/bin/env bash
# netcluster started in the background (as a script or a batch system starts it, where
# SIGINT arrives ignored) must tear down on kill -INT and on kill -TERM; a SIGKILLed
# run's leftovers must go with `netcluster down`; option errors name the option the user
# gave. Exit: 0 PASS, 1 FAIL, 77 SKIP (not root / no namespaces).
set -uo pipefail
readonly NAME=netcluster.signals
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
readonly NC=$here/../../tools/netcluster/netcluster
fail() { echo "FAIL: $NAME: $*"; "$NC" down --force >/dev/null 2>&1; exit 1; }
skip() { echo "SKIP: $NAME: $*"; exit 77; }
leftovers() {
  { ip netns list 2>/dev/null | awk '{print $1}' | grep -E '^nbfft-(sw|h[0-9]+)$'
    ip link show nbfft-root >/dev/null 2>&1 && echo nbfft-root; } | tr '\n' ' '
}

# ---- option messages (checked before anything is touched; no root needed)
out=$("$NC" run --hosts=0 -- true 2>&1) && fail "--hosts=0 accepted"
grep -q -- "--hosts" <<<"$out" || fail "message for --hosts=0 does not name --hosts: $out"
out=$("$NC" run --hosts 250 --ranks-per-host 100000 -- true 2>&1) && fail "25M ranks accepted"
grep -q -- "--ranks-per-host" <<<"$out" || fail "message does not name --ranks-per-host: $out"
grep -q -- "--np" <<<"$out" && fail "message names --np, which was not given: $out"
out=$("$NC" run --hosts 2 --rate 100mbit --mtu 40000 -- true 2>&1) && fail "mtu above the automatic burst accepted"
grep -q -- "--mtu" <<<"$out" || fail "message does not name --mtu: $out"

[[ $EUID -eq 0 ]] || skip "needs root to create network namespaces"
for cmd in ip tc mpirun flock unshare; do command -v "$cmd" >/dev/null 2>&1 || skip "'$cmd' not found"; done
unshare --net sh -c 'ip link add nc0 type veth peer name nc1' 2>/dev/null || skip "no network namespaces here"

# Starts a cluster running `sleep` in the background of this (non-interactive) shell,
# waits until its hosts run the job; sets pid.
start_bg() {
  "$NC" run --wait 60 --hosts 2 --rate 100mbit -q -- sleep 120 >/dev/null 2>&1 &
  pid=$!
  local i
  for ((i = 0; i < 300; i++)); do
    ip netns pids nbfft-h1 2>/dev/null | grep -q . && return 0
    kill -0 "$pid" 2>/dev/null || return 1
    sleep 0.1
  done
  return 1
}
for sig in INT TERM; do
  start_bg || fail "the background cluster did not come up"
  kill -s "$sig" "$pid"
  for ((i = 0; i < 200; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -0 "$pid" 2>/dev/null && fail "still running 20 s after SIG$sig"
  wait "$pid"
  rc=$?
  left=$(leftovers)
  [[ -z $left ]] || fail "SIG$sig left behind: $left"
  ((rc != 0)) || fail "SIG$sig: exit 0"
  echo "SIG$sig: torn down, exit $rc"
done
# SIGKILL: nothing can run; `netcluster down` removes what is left.
start_bg || fail "the background cluster did not come up"
kill -s KILL "$pid"
wait "$pid" 2>/dev/null
sleep 0.5
"$NC" down >/dev/null 2>&1 || fail "netcluster down failed after a SIGKILLed run"
left=$(leftovers)
[[ -z $left ]] || fail "netcluster down left: $left"
echo "PASS: $NAME: INT and TERM tear down a background run; down cleans up after SIGKILL"
