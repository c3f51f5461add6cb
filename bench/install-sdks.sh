#!/usr/bin/env bash
# Installs the SDKs the bench compares against into git-ignored folders next to this script:
#   bench/.venv          Python claude-agent-sdk (pinned)
#   bench/node_modules   TypeScript @anthropic-ai/claude-agent-sdk (pinned; the optional native CLI
#                        packages are skipped: the bench points the SDK at its own fake CLI)
# Idempotent: a folder whose stamp matches the pinned versions is left alone.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
PY_SDK_VERSION="0.2.189"
TS_SDK_VERSION="0.3.332"
ZOD_VERSION="4.6.7"
MCP_TS_VERSION="1.32.2"
ANTHROPIC_TS_VERSION="1.14.0"

py_stamp="claude-agent-sdk==${PY_SDK_VERSION}"
if [[ "$(cat "$here/.venv/.bench-stamp" 2>/dev/null)" != "$py_stamp" ]]; then
    echo "bench: installing Python $py_stamp into bench/.venv" >&2
    rm -rf "$here/.venv"
    python3 -m venv "$here/.venv"
    "$here/.venv/bin/pip" install --quiet --disable-pip-version-check "$py_stamp"
    echo "$py_stamp" > "$here/.venv/.bench-stamp"
fi

ts_stamp="@anthropic-ai/claude-agent-sdk@${TS_SDK_VERSION} zod@${ZOD_VERSION} @modelcontextprotocol/sdk@${MCP_TS_VERSION} @anthropic-ai/sdk@${ANTHROPIC_TS_VERSION}"
if [[ "$(cat "$here/node_modules/.bench-stamp" 2>/dev/null)" != "$ts_stamp" ]]; then
    echo "bench: installing TypeScript $ts_stamp into bench/node_modules" >&2
    rm -rf "$here/node_modules"
    (cd "$here" && npm install --silent --no-save --no-package-lock --no-audit --no-fund --omit=optional \
        --prefix "$here" $ts_stamp)
    echo "$ts_stamp" > "$here/node_modules/.bench-stamp"
fi
