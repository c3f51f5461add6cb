#!/usr/bin/env bash
# Instructions per `tools/call` of an HTTP bench server, counted by callgrind (load-independent):
#   bench/callgrind-http.sh BINARY REV CONC N1 N2 [OUT_PREFIX]
# Runs BINARY under callgrind twice, sends it N1 then N2 calls (bench/wrk.py count: REV 2025 or
# 2026, CONC keep-alive connections, every answer checked; REV `mrtr`: MRTR round trips of
# `add_confirmed`, two requests each, on one connection), stops it with SIGTERM, and prints
# (instructions of the N2 run - those of the N1 run) / (N2 - N1): start-up and shutdown cancel.
# With OUT_PREFIX, the N2 run's profile is kept as OUT_PREFIX.callgrind for callgrind_annotate.
set -euo pipefail
binary=$1 rev=$2 conc=$3 n1=$4 n2=$5 keep=${6:-}
here="$(cd "$(dirname "$0")" && pwd)"
measure() {
  local n=$1 out=$2 log
  log=$(mktemp)
  valgrind --tool=callgrind --callgrind-out-file="$out" "$binary" >"$log.url" 2>"$log" &
  local pid=$!
  for _ in $(seq 1 600); do [ -s "$log.url" ] && break; sleep 0.1; done
  if [ "$rev" = mrtr ]; then
    python3 "$here/wrk.py" count --url "$(head -1 "$log.url")" --mrtr --calls "$n" >/dev/null
  else
    python3 "$here/wrk.py" count --url "$(head -1 "$log.url")" --rev "$rev" --calls "$n" --conc "$conc" >/dev/null
  fi
  kill -TERM "$pid"; wait "$pid" || true
  # The totals line of the profile: "summary: <instructions>" (or "totals:").
  grep -E '^(summary|totals):' "$out" | head -1 | awk '{print $2}'
  rm -f "$log" "$log.url"
}
tmp=$(mktemp -d)
i1=$(measure "$n1" "$tmp/n1.out")
i2=$(measure "$n2" "$tmp/n2.out")
if [ -n "$keep" ]; then cp "$tmp/n2.out" "$keep.callgrind"; fi
rm -rf "$tmp"
echo "$binary $rev C=$conc: $n1 calls $i1, $n2 calls $i2 instructions; per call: $(( (i2 - i1) / (n2 - n1) ))"
