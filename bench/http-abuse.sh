#!/usr/bin/env bash
# Runs every ct-http-abuse scenario (issue 20) against a fresh copy of an HTTP MCP server binary
# each time (the http_server example by default), on 127.0.0.1 only:
#   bench/http-abuse.sh <server binary> [after seconds, default 30]
# e.g. bench/http-abuse.sh target/release/examples/http_server
# Environment: SCENARIOS (default: all five), N (each scenario's --n), ULIMIT_N (run the server
# under `ulimit -n $ULIMIT_N`, to see the file-descriptor limit reached).
# Build the tool first: cargo build --release -p claude-tools-bench --bin ct-http-abuse
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
server="$1"
after="${2:-30}"
abuse="${CT_HTTP_ABUSE:-$here/../target/release/ct-http-abuse}"
n_flag=()
[[ -n "${N:-}" ]] && n_flag=(--n "$N")
for scenario in ${SCENARIOS:-unread slow-upload slow-headers sessions oversize}; do
    flags=()
    [[ "$scenario" == sessions ]] && flags=(--sessions)
    exec {out}< <(
        [[ -n "${ULIMIT_N:-}" ]] && ulimit -n "$ULIMIT_N"
        "$server" --listen 127.0.0.1:0 "${flags[@]}" 2>/dev/null & echo "pid $!"; wait)
    read -r _ pid <&"$out"
    read -r url <&"$out"
    echo "== $scenario: $server ${flags[*]:-} ($url)${ULIMIT_N:+ ulimit -n $ULIMIT_N}"
    "$abuse" "$scenario" --url "$url" --pid "$pid" --after "$after" "${n_flag[@]}" || true
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    exec {out}<&-
done
