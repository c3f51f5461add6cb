#!/usr/bin/env bash
# Installs wrk (Debian's package `wrk`), the outside HTTP load generator of bench/wrk.sh
# (issue 28's figures). Does nothing when `wrk` is already on the PATH. Installs with apt-get,
# non-interactively, running `apt-get update` only when the install fails without it.
set -euo pipefail
if command -v wrk >/dev/null 2>&1; then
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "install-wrk: wrk missing, and installing needs root (run as root, or apt-get install wrk)" >&2
  exit 1
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "install-wrk: wrk missing, and there is no apt-get to install it with" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
if ! apt-get install -y -q wrk >/dev/null 2>&1; then
  apt-get update -q >/dev/null
  apt-get install -y -q wrk >/dev/null
fi
command -v wrk >/dev/null 2>&1 || { echo "install-wrk: wrk still not on the PATH" >&2; exit 1; }
