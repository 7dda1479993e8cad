#!/usr/bin/env bash
# Checks that the registry tables in docs/algorithms.md (between the GENERATED markers)
# are what `nbfft-bench algorithms --markdown` prints. With --fix, rewrites them.
# TABLE=options checks docs/fft.md's option table (`nbfft-bench options --markdown`,
# markers GENERATED:options) instead.
set -euo pipefail
bench="$1"; doc="$2"; fix="${3:-}"
table="${TABLE:-algorithms}"
marker=registry
[ "$table" == "algorithms" ] || marker="$table"
generated=$("$bench" "$table" --markdown)
current=$(sed -n "/<!-- GENERATED:$marker -->/,/<!-- END:$marker -->/p" "$doc" | sed '1d;$d')
if [ "$generated" == "$current" ]; then echo "PASS: $doc matches the registry"; exit 0; fi
if [ "$fix" == "--fix" ]; then
  python3 - "$doc" "$generated" "$marker" <<'PY'
import sys, re
path, table, marker = sys.argv[1], sys.argv[2], sys.argv[3]
text = open(path).read()
text = re.sub(r"(<!-- GENERATED:" + marker + r" -->\n).*?(<!-- END:" + marker + r" -->)", lambda m: m.group(1) + table + "\n" + m.group(2), text, flags=re.S)
open(path, "w").write(text)
PY
  echo "updated $doc"; exit 0
fi
echo "FAIL: $doc differs from the $table table; run: make docs"
diff <(echo "$current") <(echo "$generated") || true
exit 1
