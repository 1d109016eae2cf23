#!/usr/bin/env bash
# Runs a command against two throwaway mnemo servers, for the client test
# suites:
#   - a keyed server (temporary database, API keys made with `mnemo keys
#     create`), at $MNEMO_TEST_URL;
#   - a keyless, rate-limited server (--rate 1/s --burst 1), at
#     $MNEMO_TEST_RATE_URL, for the 429 retry tests.
# Keys, each printed once by `mnemo keys create`:
#   MNEMO_TEST_ADMIN_KEY  role admin, namespaces client-a,client-b, clearance 2
#   MNEMO_TEST_READ_KEY   role read,  namespace  client-a
#   MNEMO_TEST_OTHER_KEY  role write, namespace  client-c
# MNEMO_BIN names a prebuilt mnemo binary; without it the binary is built
# from this repository (go build ./cmd/mnemo).
#
#   clients/with-server.sh node --test test/
set -euo pipefail
[ $# -gt 0 ] || { echo "usage: clients/with-server.sh COMMAND [ARG...]" >&2; exit 2; }
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mnemo-clients.XXXXXX")
pids=()
cleanup() {
	for pid in "${pids[@]}"; do
		kill "$pid" 2>/dev/null || true
	done
	for pid in "${pids[@]}"; do
		wait "$pid" 2>/dev/null || true
	done
	rm -rf "$tmp"
}
trap cleanup EXIT

bin=${MNEMO_BIN:-}
if [ -z "$bin" ]; then
	bin=$tmp/mnemo
	(cd "$root" && go build -o "$bin" ./cmd/mnemo)
fi
# The server's version, which the clients are versioned with.
MNEMO_SERVER_VERSION=$("$bin" --version | awk '{print $2}')
export MNEMO_SERVER_VERSION

# start NAME ARGS...: starts `mnemo serve` on a free loopback port and sets
# url to its base URL once it listens.
start() {
	local name=$1
	shift
	local log=$tmp/$name.log
	MNEMO_EMBEDDER=hash "$bin" --db "$tmp/$name.db" serve --addr 127.0.0.1:0 --log-format json \
		--expire-every 0 --semantic-every 0 --episodes-every 0 "$@" >/dev/null 2>"$log" &
	pids+=($!)
	local addr=""
	for _ in $(seq 1 200); do
		addr=$(sed -n 's/.*"msg":"mnemo serving".*"addr":"\([^"]*\)".*/\1/p' "$log" | head -n 1)
		[ -n "$addr" ] && break
		kill -0 "${pids[-1]}" 2>/dev/null || break
		sleep 0.05
	done
	if [ -z "$addr" ]; then
		echo "with-server: mnemo serve ($name) did not start:" >&2
		cat "$log" >&2
		exit 1
	fi
	url="http://$addr"
}

key() { MNEMO_EMBEDDER=hash "$bin" --db "$tmp/keyed.db" keys create "$@" 2>/dev/null; }
MNEMO_TEST_ADMIN_KEY=$(key --namespaces client-a,client-b --role admin --clearance 2 --name test-admin)
MNEMO_TEST_READ_KEY=$(key --namespaces client-a --role read --name test-read)
MNEMO_TEST_OTHER_KEY=$(key --namespaces client-c --role write --name test-other)
export MNEMO_TEST_ADMIN_KEY MNEMO_TEST_READ_KEY MNEMO_TEST_OTHER_KEY

start keyed
MNEMO_TEST_URL=$url
start rate --rate 1/s --burst 1
MNEMO_TEST_RATE_URL=$url
export MNEMO_TEST_URL MNEMO_TEST_RATE_URL

set +e
"$@"
rc=$?
set -e
if [ "$rc" != 0 ] && [ -n "${MNEMO_TEST_SHOW_LOGS:-}" ]; then
	tail -n 50 "$tmp"/*.log >&2
fi
exit "$rc"
