#!/usr/bin/env bash
# The whole test suite. Installs what the tests need when it is missing
# (the npm MCP client used by the integration tests, PostgreSQL for the
# PostgreSQL store tests), then runs formatting and vet checks, the race
# detector on the core packages, and every test. With CI=true the
# PostgreSQL tests fail instead of skipping when no server can be started.
set -euo pipefail
cd "$(dirname "$0")/.."

need() { command -v "$1" >/dev/null 2>&1; }
# stage announces a stage, with how long the one before it took.
started=$SECONDS
stage_at=$SECONDS
stage() {
	if [ -n "${stage_name:-}" ]; then
		echo "test: $stage_name took $((SECONDS - stage_at)) s"
	fi
	stage_name=$1
	stage_at=$SECONDS
	echo "test: $1"
}
apt_install() {
	if need apt-get; then
		if [ "$(id -u)" = 0 ]; then
			apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
		else
			sudo apt-get update -qq >/dev/null && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
		fi
	fi
}

need go || { echo "test: Go 1.26 is required (https://go.dev/dl/)" >&2; exit 1; }
need git || apt_install git

# Node.js and the pinned MCP TypeScript SDK client for the MCP integration tests.
for dir in testdata/mcp-client; do
	[ -f "$dir/package-lock.json" ] || continue
	need npm || apt_install nodejs npm
	if [ ! -d "$dir/node_modules" ]; then
		echo "test: installing $dir (npm ci)"
		(cd "$dir" && npm ci --no-audit --no-fund --loglevel=error)
	fi
done

# PostgreSQL server binaries for the PostgreSQL store tests, which start a
# throwaway server (postgres/pgtest), unless MNEMO_TEST_POSTGRES names one.
have_postgres() { [ -n "${MNEMO_TEST_POSTGRES:-}" ] || compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null; }
if ! have_postgres; then
	echo "test: installing PostgreSQL (apt-get install postgresql) for the PostgreSQL store tests"
	apt_install --no-install-recommends postgresql || true
fi
# Thesauri for query expansion (WordNet, LibreOffice MyThes); the thesaurus
# tests use the installed files and skip without them.
have_thesauri() { [ -f /usr/share/wordnet/index.noun ] && for l in en_US ru_RU uk_UA; do compgen -G "/usr/share/mythes/th_${l}*.dat" >/dev/null || return 1; done; }
if ! have_thesauri; then
	echo "test: installing thesauri (apt-get install wordnet-base mythes-en-us mythes-ru mythes-uk)"
	apt_install --no-install-recommends wordnet-base mythes-en-us mythes-ru mythes-uk || true
fi
# In CI the PostgreSQL tests must run: a missing server fails them instead
# of skipping them.
case "${CI:-}" in
true | TRUE | True | 1)
	export MNEMO_REQUIRE_POSTGRES=1
	have_postgres || {
		echo "test: PostgreSQL is required in CI: install it (apt-get install postgresql) or set MNEMO_TEST_POSTGRES=postgres://..." >&2
		exit 1
	}
	;;
esac

stage "gofmt and go vet"
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './testdata/*'))
if [ -n "$unformatted" ]; then
	echo "gofmt would change:" >&2
	echo "$unformatted" >&2
	exit 1
fi
go vet ./...
CGO_ENABLED=0 go build -o /dev/null ./cmd/mnemo

stage "race detector on the core packages"
core=$(go list . ./score/... ./engine/... ./handoff/... ./corrections/... ./tuning/... ./episodes/... ./sqlite/... ./storetest/... ./embed/... ./tokenize/... ./internal/words/... ./memindex/... 2>/dev/null)
go test -race -count=1 $core

stage "mnemo bench perf --quick (the performance suite's smoke run)"
if ! out=$(go run ./cmd/mnemo bench perf --quick 2>&1); then
	echo "$out" >&2
	exit 1
fi

# Chromium for the web console's browser test (console.TestConsoleInABrowser),
# which skips with a message when no browser is found.
if ! command -v chromium >/dev/null 2>&1 && ! command -v chromium-browser >/dev/null 2>&1; then
	echo "test: installing Chromium (apt-get install chromium) for the console's browser test"
	apt_install --no-install-recommends chromium || echo "test: Chromium could not be installed: the console's browser test will be skipped" >&2
fi

# ---- clients: the TypeScript and Python clients ----
# Both suites run every client method against throwaway `mnemo serve`
# processes (a keyed one and a rate-limited one) that clients/with-server.sh
# starts; one binary is built for both.
stage "TypeScript and Python clients against a real server"
need npm || apt_install nodejs npm
need python3 || apt_install python3
if [ ! -d clients/typescript/node_modules ]; then
	echo "test: installing clients/typescript (npm ci)"
	(cd clients/typescript && npm ci --no-audit --no-fund --loglevel=error)
fi
clients_tmp=$(mktemp -d)
go build -o "$clients_tmp/mnemo" ./cmd/mnemo
MNEMO_BIN="$clients_tmp/mnemo" clients/with-server.sh python3 -m unittest discover -s clients/python/tests
(cd clients/typescript && npm run --silent build && MNEMO_BIN="$clients_tmp/mnemo" ../with-server.sh node --test test/)
rm -rf "$clients_tmp"
# ---- end of clients ----

stage "all packages"
go test -count=1 ./...
echo "test: all packages took $((SECONDS - stage_at)) s; everything $((SECONDS - started)) s"
