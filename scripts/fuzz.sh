#!/usr/bin/env bash
# Runs every Fuzz target in the module for the given time each (default 30s)
# and prints one line per target: package, target, executions, result. The
# full output of a failing target is kept in out/fuzz/; a failing input is
# saved by go test under the package's testdata/fuzz/ (commit it).
set -uo pipefail
cd "$(dirname "$0")/.."
t=${1:-30s}
status=0
for pkg in $(go list ./...); do
  dir=$(go list -f '{{.Dir}}' "$pkg")
  for f in $(grep -ho '^func Fuzz[A-Za-z0-9_]*' "$dir"/*_test.go 2>/dev/null | awk '{print $2}'); do
    out=$(go test -run '^$' -fuzz "^$f\$" -fuzztime "$t" -fuzzminimizetime 200x "$pkg" 2>&1)
    rc=$?
    execs=$(echo "$out" | grep -o 'execs: [0-9]*' | tail -1 | awk '{print $2}')
    if [ $rc -eq 0 ]; then res=ok; else res=FAIL; status=1; fi
    printf '%-45s %-24s execs=%-10s %s\n' "${pkg#github.com/arcport/arcport/}" "$f" "${execs:-?}" "$res"
    if [ $rc -ne 0 ]; then
      mkdir -p out/fuzz
      log="out/fuzz/$(echo "${pkg#github.com/arcport/arcport/}" | tr / _)-$f.log"
      echo "$out" > "$log"
      echo "$out" | grep -E 'Failing input|panic|hung|terminated|--- FAIL' | head -5
      echo "  full output: $log"
    fi
  done
done
exit $status
