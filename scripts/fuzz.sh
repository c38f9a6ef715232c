#!/usr/bin/env bash
# Runs every Fuzz target in the module for the given time each (default 30s)
# and prints one line per target: package, target, executions, result.
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
    [ $rc -eq 0 ] || echo "$out" | grep -E 'Failing input|panic|--- FAIL' | head -5
  done
done
exit $status
