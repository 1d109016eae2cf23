#!/bin/sh
# Installs the peer MCP memory server (version pinned in internal/bench/peer/package-lock.json)
# when missing, builds mnemo, and runs the side-by-side comparison:
#   scripts/bench-peer.sh [mnemo bench peer flags...]
# e.g. scripts/bench-peer.sh --data ../shared/data/locomo/locomo10.json
set -eu
cd "$(dirname "$0")/.."
if [ ! -f internal/bench/peer/node_modules/@modelcontextprotocol/server-memory/dist/index.js ]; then
	command -v npm >/dev/null || { echo "bench-peer: npm is needed to install the peer server" >&2; exit 1; }
	(cd internal/bench/peer && npm ci --no-audit --no-fund)
fi
CGO_ENABLED=0 go build -o internal/bench/peer/mnemo ./cmd/mnemo
exec internal/bench/peer/mnemo bench peer --peer-dir internal/bench/peer "$@"
