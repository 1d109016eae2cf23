// Package pgtest gives tests a PostgreSQL server: the one named by
// MNEMO_TEST_POSTGRES, or a throwaway server started from the local
// PostgreSQL installation (Debian's /usr/lib/postgresql/*/bin) in a
// temporary directory, on a free loopback port.
//
// A test binary starts the server once in TestMain and creates one database
// per test:
//
//	func TestMain(m *testing.M) {
//		var stop func()
//		baseURL, stop, startErr = pgtest.Start()
//		code := m.Run()
//		if stop != nil {
//			stop()
//		}
//		os.Exit(code)
//	}
//
//	func TestX(t *testing.T) {
//		pgtest.SkipIf(t, startErr)
//		u := pgtest.NewDatabase(t, baseURL)
//		...
//	}
package pgtest

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// EnvURL names the environment variable with the URL of an existing server
// (a role allowed to CREATE DATABASE); when set, Start starts nothing.
const EnvURL = "MNEMO_TEST_POSTGRES"

// EnvRequire names the environment variable that, when set to a non-empty
// value other than 0 or false, turns a missing PostgreSQL into a test
// failure instead of a skip (set by scripts/test.sh in CI).
const EnvRequire = "MNEMO_REQUIRE_POSTGRES"

// ErrNoServer is wrapped by the error of Start when no PostgreSQL server
// binaries are installed.
var ErrNoServer = errors.New("no PostgreSQL server found: set " + EnvURL +
	"=postgres://... or install one (apt-get install postgresql)")

// Start returns the URL of a PostgreSQL server for tests and a function
// that stops it. With MNEMO_TEST_POSTGRES set it returns that URL and a stop
// that does nothing. Otherwise it runs initdb and pg_ctl from the newest
// /usr/lib/postgresql/*/bin in a temporary directory (as the postgres OS
// user when running as root: PostgreSQL refuses to run as root), listening
// on a free 127.0.0.1 port with trust authentication. The URL then carries
// a random password, which the server ignores, so tests can check that
// passwords never leak into output.
//
// stop is safe to call more than once: it stops the server (pg_ctl stop,
// then a kill of the server's process group if that fails) and removes the
// directory. A watchdog process also stops the server when the test process
// dies without calling stop (a panic, a -timeout, a kill).
func Start() (baseURL string, stop func(), err error) {
	if u := os.Getenv(EnvURL); u != "" {
		return u, func() {}, nil
	}
	bins, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	if len(bins) == 0 {
		return "", nil, ErrNoServer
	}
	sort.Slice(bins, func(i, j int) bool { return versionOf(bins[i]) < versionOf(bins[j]) })
	bin := filepath.Dir(bins[len(bins)-1])

	dir, err := os.MkdirTemp("", "mnemo-pg-")
	if err != nil {
		return "", nil, err
	}
	s := &server{bin: bin, dir: dir, data: filepath.Join(dir, "data")}
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			os.RemoveAll(dir)
			return "", nil, fmt.Errorf("running as root and no postgres OS user to run the test server (apt-get install postgresql creates it): %v", err)
		}
		// The temporary directory's parents must be searchable by postgres.
		if out, err := exec.Command("chown", u.Username, dir).CombinedOutput(); err != nil {
			os.RemoveAll(dir)
			return "", nil, fmt.Errorf("chown %s: %v: %s", dir, err, out)
		}
		s.prefix = []string{"runuser", "-u", "postgres", "--"}
	}
	if err := s.run("initdb", "-D", s.data, "-A", "trust", "-U", "postgres", "-E", "UTF8",
		"--locale=C.UTF-8", "--no-sync"); err != nil {
		os.RemoveAll(dir)
		return "", nil, err
	}
	// The port is free when chosen but another process may take it before
	// the server binds it: try a few.
	var port int
	for attempt := 0; ; attempt++ {
		if port, err = freePort(); err == nil {
			err = s.start(port)
		}
		if err == nil {
			break
		}
		if attempt == 2 {
			s.stop()
			return "", nil, err
		}
	}
	s.watch()
	pw := make([]byte, 12)
	rand.Read(pw)
	u := url.URL{Scheme: "postgres", User: url.UserPassword("postgres", fmt.Sprintf("pgtest%x", pw)),
		Host: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), Path: "/postgres", RawQuery: "sslmode=disable"}
	return u.String(), s.stop, nil
}

// versionOf returns the major version in /usr/lib/postgresql/VERSION/bin/initdb.
func versionOf(initdb string) int {
	v, _ := strconv.Atoi(filepath.Base(filepath.Dir(filepath.Dir(initdb))))
	return v
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// server is a throwaway PostgreSQL server.
type server struct {
	bin, dir, data string
	prefix         []string // runs a command as the postgres OS user
	once           sync.Once
	watchdog       *exec.Cmd
	watchPipe      *os.File
}

// command returns the command running a server binary, as postgres if need be.
func (s *server) command(name string, args ...string) *exec.Cmd {
	full := append(append(append([]string(nil), s.prefix...), filepath.Join(s.bin, name)), args...)
	return exec.Command(full[0], full[1:]...)
}

func (s *server) run(name string, args ...string) error {
	cmd := s.command(name, args...)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%s: %v\n%s", strings.Join(cmd.Args, " "), err, out)
	}
	return nil
}

func (s *server) start(port int) error {
	opts := fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off"+
		" -c full_page_writes=off -c max_connections=200", port, s.dir)
	logFile := filepath.Join(s.dir, "log")
	if err := s.run("pg_ctl", "-w", "-t", "60", "-D", s.data, "-l", logFile, "-o", opts, "start"); err != nil {
		log, _ := os.ReadFile(logFile)
		s.kill() // pg_ctl may have given up waiting on a server that still runs
		return fmt.Errorf("%v\n%s", err, log)
	}
	return nil
}

// watch starts a process that stops the server when the test process exits
// without calling stop: it waits for the end of a pipe whose only writer is
// this process, which the kernel closes however the process ends. It
// ignores the terminal's signals and does nothing if stop already ran.
func (s *server) watch() {
	r, w, err := os.Pipe()
	if err != nil {
		return
	}
	script := `trap '' INT TERM HUP QUIT
cat >/dev/null
dir=$1; shift
[ -d "$dir" ] || exit 0
"$@" >/dev/null 2>&1
rm -rf "$dir"`
	stopCmd := s.command("pg_ctl", "-w", "-D", s.data, "-m", "immediate", "stop")
	cmd := exec.Command("sh", append([]string{"-c", script, "pgtest-watchdog", s.dir}, stopCmd.Args...)...)
	cmd.Stdin = r
	if err := cmd.Start(); err != nil {
		r.Close()
		w.Close()
		return
	}
	r.Close()
	s.watchdog, s.watchPipe = cmd, w
}

// stop stops the server, removes its directory and ends the watchdog.
func (s *server) stop() {
	s.once.Do(func() {
		if _, err := os.Stat(filepath.Join(s.data, "postmaster.pid")); err == nil {
			if err := s.run("pg_ctl", "-w", "-t", "30", "-D", s.data, "-m", "immediate", "stop"); err != nil {
				fmt.Fprintln(os.Stderr, "pgtest:", err)
				s.kill()
			}
		}
		os.RemoveAll(s.dir)
		if s.watchdog != nil {
			s.watchPipe.Close()
			s.watchdog.Wait()
		}
	})
}

// kill kills the process group of the server named in postmaster.pid:
// pg_ctl starts the postmaster as the leader of a new session, with its
// backends in its group.
func (s *server) kill() {
	b, err := os.ReadFile(filepath.Join(s.data, "postmaster.pid"))
	if err != nil {
		return
	}
	first, _, _ := strings.Cut(string(b), "\n")
	pid, err := strconv.Atoi(strings.TrimSpace(first))
	if err != nil || pid <= 1 {
		return
	}
	killGroup(pid)
	for range 50 { // wait for the postmaster to go before the directory is removed
		if !alive(pid) {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// Required reports whether MNEMO_REQUIRE_POSTGRES asks for PostgreSQL tests
// to fail rather than skip when no server is available.
func Required() bool {
	v := strings.TrimSpace(os.Getenv(EnvRequire))
	return v != "" && v != "0" && !strings.EqualFold(v, "false")
}

// SkipIf ends the test when err (from Start) is not nil: with t.Skip, or
// with t.Fatal when Required.
func SkipIf(tb testing.TB, err error) {
	tb.Helper()
	if err == nil {
		return
	}
	if Required() {
		tb.Fatalf("PostgreSQL is required (%s is set) but unavailable: %v", EnvRequire, err)
	}
	tb.Skipf("PostgreSQL unavailable: %v", err)
}

// NewDatabase creates an empty UTF8 database on the server at baseURL and
// returns its URL; it is dropped when the test ends.
func NewDatabase(tb testing.TB, baseURL string) string {
	tb.Helper()
	return NewDatabaseWith(tb, baseURL, "")
}

// NewDatabaseWith is NewDatabase with CREATE DATABASE options, e.g.
// "ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'" (default "ENCODING 'UTF8'").
func NewDatabaseWith(tb testing.TB, baseURL, options string) string {
	tb.Helper()
	ctx := context.Background()
	name, u, err := CreateDatabase(ctx, baseURL, options)
	if err != nil {
		SkipIf(tb, err)
	}
	tb.Cleanup(func() {
		if err := DropDatabase(context.Background(), baseURL, name); err != nil {
			tb.Error(err)
		}
	})
	return u
}

var dbCounter atomic.Int64

// CreateDatabase creates an empty database with a new name on the server
// at baseURL and returns its name and URL. The caller drops it with
// DropDatabase.
func CreateDatabase(ctx context.Context, baseURL, options string) (name, dbURL string, err error) {
	if baseURL == "" {
		return "", "", errors.New("no PostgreSQL server URL")
	}
	u, err := url.Parse(baseURL)
	if err != nil {
		return "", "", errors.New("the PostgreSQL server URL does not parse")
	}
	conn, err := pgx.Connect(ctx, baseURL)
	if err != nil {
		return "", "", fmt.Errorf("connect to the test server %s: %w", u.Redacted(), err)
	}
	defer conn.Close(ctx)
	name = fmt.Sprintf("mnemo_test_%d_%d", os.Getpid(), dbCounter.Add(1))
	if options == "" {
		options = "ENCODING 'UTF8'"
	}
	if _, err := conn.Exec(ctx, `CREATE DATABASE `+name+` TEMPLATE template0 `+options); err != nil {
		return "", "", fmt.Errorf("create database: %w", err)
	}
	u.Path = "/" + name
	return name, u.String(), nil
}

var validName = regexp.MustCompile(`^[a-z_][a-z0-9_]*$`)

// DropDatabase drops a database made by CreateDatabase, closing the
// connections still open on it.
func DropDatabase(ctx context.Context, baseURL, name string) error {
	if !validName.MatchString(name) {
		return fmt.Errorf("drop database: invalid name %q", name)
	}
	conn, err := pgx.Connect(ctx, baseURL)
	if err != nil {
		return fmt.Errorf("drop database %s: %w", name, err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `DROP DATABASE IF EXISTS `+name+` WITH (FORCE)`); err != nil {
		return fmt.Errorf("drop database %s: %w", name, err)
	}
	return nil
}
