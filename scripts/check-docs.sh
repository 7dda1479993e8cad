#!/usr/bin/env bash
# Checks that the registry tables in docs/algorithms.md (between the GENERATED markers)
# are what `nbfft-bench algorithms --markdown` prints. With --fix, rewrites them.
set -euo pipefail
bench="$1"; doc="$2"; fix="${3:-}"
generated=$("$bench" algorithms --markdown)
current=$(sed -n '/<!-- GENERATED:registry -->/,/<!-- END:registry -->/p' "$doc" | sed '1d;$d')
if [ "$generated" == "$current" ]; then echo "PASS: $doc matches the registry"; exit 0; fi
if [ "$fix" == "--fix" ]; then
  python3 - "$doc" "$generated" <<'PY'
import sys, re
path, table = sys.argv[1], sys.argv[2]
text = open(path).read()
text = re.sub(r"(<!-- GENERATED:registry -->\n).*?(<!-- END:registry -->)", lambda m: m.group(1) + table + "\n" + m.group(2), text, flags=re.S)
open(path, "w").write(text)
PY
  echo "updated $doc"; exit 0
fi
echo "FAIL: $doc differs from the registry; run: make docs"
diff <(echo "$current") <(echo "$generated") || true
exit 1
