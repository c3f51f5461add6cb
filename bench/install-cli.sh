#!/usr/bin/env bash
# The CLI installer's cost (issue 23): installs the pinned Claude Code CLI from the npm registry
# into a fresh directory with `claude-tools install-cli` and reports the bytes downloaded (the
# tarball's Content-Length from the registry's version document), the bytes unpacked, and the
# wall time, CPU and peak memory of the install (GNU time).
#   bench/install-cli.sh [claude-tools binary, default target/release/claude-tools]
# Build it first: cargo build --release -p claude-tools-cli
# The one address contacted besides loopback is the npm registry.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
bin="${1:-$here/../target/release/claude-tools}"
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
/usr/bin/time -f 'wall %e s, user %U s, system %S s, peak memory %M KiB' \
  "$bin" install-cli --dir "$dir/cli" 2> "$dir/time" >&2 || { cat "$dir/time" >&2; exit 1; }
tail -1 "$dir/time"
echo "unpacked: $(du -sb "$dir/cli" | cut -f1) bytes"
version="$(sed -n 's/^pub const CLI_VERSION: &str = "\(.*\)";/\1/p' "$here/../claude-tools-runtime/src/cli.rs")"
url="$(npm view --loglevel=error "@anthropic-ai/claude-code-linux-x64@$version" dist.tarball)"
echo "downloaded: $(curl -sI "$url" | tr -d '\r' | sed -n 's/^[Cc]ontent-[Ll]ength: //p') bytes ($url)"
