#!/usr/bin/env bash
# Smoke test of tools/netcluster: a 2-host job over 100 Mbit/s shaped links must run,
# see two hosts, move intact data at a shaped (not shared-memory) speed, and leave no
# namespace behind; a failing job must return non-zero and leave nothing behind either.
#
# Usage: netcluster_smoke.sh [PROBE]
#   PROBE: a built tools/netcluster/netcluster_probe.c (ctest passes the CMake target);
#          without it the probe is compiled with mpicc into a temporary directory.
# Exit: 0 PASS, 1 FAIL, 77 SKIP (not root, or the kernel/container cannot make network
# namespaces, veth pairs or tbf qdiscs).

set -uo pipefail

readonly NAME=netcluster.smoke
readonly RATE=100mbit
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
readonly NC=$here/../../tools/netcluster/netcluster
readonly PROBE_SRC=$here/../../tools/netcluster/netcluster_probe.c

pass() { echo "PASS: $NAME: $*"; exit 0; }
fail() { echo "FAIL: $NAME: $*"; exit 1; }
skip() { echo "SKIP: $NAME: $*"; exit 77; }

# Names netcluster creates; the test checks none is left (and touches nothing itself).
leftovers() {
  { ip netns list 2>/dev/null | awk '{print $1}' | grep -E '^nbfft-(sw|h[0-9]+)$'
    ip link show nbfft-root >/dev/null 2>&1 && echo nbfft-root; } | tr '\n' ' '
}

# ---- can this machine do it at all?
[[ $EUID -eq 0 ]] || skip "needs root to create network namespaces"
for cmd in ip tc mpirun flock unshare; do
  command -v "$cmd" >/dev/null 2>&1 || skip "'$cmd' not found"
done
[[ -x $NC ]] || fail "$NC missing or not executable"
# Try namespace + veth + tbf in a throw-away anonymous namespace: it vanishes on exit.
if ! err=$(unshare --net sh -c 'ip link add nc0 type veth peer name nc1 &&
      tc qdisc add dev nc0 root tbf rate 1mbit burst 32kb latency 50ms' 2>&1); then
  skip "cannot create a network namespace with a veth pair and a tbf qdisc here: $err"
fi

# ---- the probe
tmp=$(mktemp -d "${TMPDIR:-/tmp}/netcluster-smoke.XXXXXX") || fail "mktemp failed"
trap 'rm -rf "$tmp"' EXIT
if (($# >= 1)); then
  probe=$1
  [[ -x $probe ]] || fail "probe '$probe' is not an executable"
else
  command -v mpicc >/dev/null 2>&1 || skip "no probe given and no mpicc to build one"
  probe=$tmp/netcluster_probe
  mpicc -O2 -o "$probe" "$PROBE_SRC" || fail "could not compile $PROBE_SRC"
fi

# ---- 1: a good job. Bounds: TCP goodput is ~95% of the rate; above 120% the link is not
# shaped (shared memory or unshaped veth run at GB/s); the low bound only catches a
# broken path (the bidirectional figure of Open MPI's TCP btl can sit near half the rate).
out=$("$NC" run --wait 60 --hosts 2 --rate "$RATE" -- "$probe" --iters 2 --min-mbit 10 --max-mbit 120 2>&1)
rc=$?
echo "$out"
left=$(leftovers)
((rc == 0)) || fail "netcluster run returned $rc (leftovers: ${left:-none})"
[[ -z $left ]] || fail "left behind after a good run: $left"
grep -q '^probe: OK' <<<"$out" || fail "probe did not report OK"
grep -q 'rank 0/2 host nbfft-h0 addr 198.18.0.1 node_ranks 1' <<<"$out" || fail "rank 0 not on host nbfft-h0 (198.18.0.1)"
grep -q 'rank 1/2 host nbfft-h1 addr 198.18.0.2 node_ranks 1' <<<"$out" || fail "rank 1 not on host nbfft-h1 (198.18.0.2)"
bw=$(grep -o 'ping-pong [0-9.]* Mbit/s, sendrecv [0-9.]* Mbit/s' <<<"$out")
[[ -n $bw ]] || fail "no bandwidth reported"

# ---- 2: a failing job must fail and clean up too.
out=$("$NC" run --wait 60 --hosts 2 --rate "$RATE" -- /bin/sh -c 'exit 3' 2>&1)
rc=$?
left=$(leftovers)
((rc != 0)) || { echo "$out"; fail "a job exiting 3 made netcluster return 0"; }
[[ -z $left ]] || fail "left behind after a failing run: $left"

pass "2 hosts at $RATE: $bw; failing job returned $rc; nothing left behind"
