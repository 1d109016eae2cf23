// Command mnemo is persistent memory for long-horizon AI agents and the
// operators who supervise them. See `mnemo help`.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"runtime/debug"
	"runtime/pprof"
	"syscall"
	"time"

	"github.com/mnemo-dev/mnemo"
)

// cancelOnSignals makes run cancel a command's context on SIGINT and
// SIGTERM; main sets it, tests calling run leave the test process's
// signals alone.
var cancelOnSignals bool

// ownCollector lets run set the garbage collector for the command it
// runs; main sets it, tests calling run leave the test process's alone.
var ownCollector bool

// shortCollector keeps the garbage collector of a short command off for
// its first second, with a memory limit in case it allocates much more
// than usual: a one-shot digest or hook reads an index of 100,000
// records in about 50 ms and exits, and the one collection that runs
// meanwhile scans every decoded entry (~15 ms of its CPU, and the wall
// time of the mark phase on two cores). A command still running after a
// second is collected as usual. GOGC or GOMEMLIMIT, when set, win.
func shortCollector() {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	debug.SetMemoryLimit(shortHeapLimit)
	debug.SetGCPercent(-1)
	time.AfterFunc(time.Second, func() {
		debug.SetGCPercent(100)
		debug.SetMemoryLimit(math.MaxInt64)
	})
}

// shortHeapLimit is where a short command's collector runs anyway.
const shortHeapLimit = 1 << 30

func main() {
	cancelOnSignals, ownCollector = true, true
	if path := os.Getenv("MNEMO_CPUPROFILE"); path != "" {
		// Profiling a whole command, e.g. a hook's start-up cost.
		if f, err := os.Create(path); err == nil && pprof.StartCPUProfile(f) == nil {
			defer f.Close()
		}
	}
	code := run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	pprof.StopCPUProfile()
	os.Exit(code)
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	a := &app{stdin: stdin, stdout: stdout, stderr: stderr, env: os.Getenv, helpOut: stdout}
	gfs := flag.NewFlagSet("mnemo", flag.ContinueOnError)
	gfs.SetOutput(stderr)
	a.globalFlags(gfs)
	showVersion := gfs.Bool("version", false, "print the version")
	var gusage bytes.Buffer
	gfs.Usage = func() { usage(&gusage) }
	if err := gfs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) { // asked for: the answer goes to stdout
			_, _ = gusage.WriteTo(stdout)
			return 0
		}
		_, _ = gusage.WriteTo(stderr)
		return 2
	}
	if *showVersion {
		fmt.Fprintln(stdout, "mnemo", version)
		return 0
	}
	rest := gfs.Args()
	if len(rest) > 1 && rest[0] == "help" {
		rest = []string{rest[1], "--help"}
	}
	if len(rest) == 0 || rest[0] == "help" {
		usage(stdout)
		if len(rest) == 0 {
			return 2
		}
		return 0
	}
	cmd, ok := commands[rest[0]]
	if !ok {
		fmt.Fprintf(stderr, "mnemo: unknown command %q (run 'mnemo help')\n", rest[0])
		return 2
	}
	if len(rest) > 1 && isHelpFlag(rest[1]) {
		return a.commandHelp(ctx, rest[0], cmd)
	}
	if cancelOnSignals && !cmd.noSignals {
		var stop context.CancelFunc
		ctx, stop = signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
		defer stop()
	}
	if cmd.short && ownCollector {
		shortCollector()
	}
	if cmd.raw != nil {
		args := rest[1:]
		if a.json && rest[0] != "capture" { // hooks print nothing but what their caller reads
			args = append(args, "--json")
		}
		return cmd.raw(ctx, args, stdin, stdout, stderr)
	}
	a.readOnly = cmd.read
	a.name, a.summary = rest[0], cmd.summary
	if cmd.longRunning && os.Getenv("GOGC") == "" {
		// Long-running servers trade memory for CPU: collecting half as
		// often gives about 15% more digests per second on two cores.
		// GOGC, when set, wins.
		debug.SetGCPercent(200)
	}
	err := cmd.run(ctx, a, rest[1:])
	if cerr := a.close(); err == nil {
		err = cerr
	}
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		var ue usageError
		if errors.As(err, &ue) {
			fmt.Fprintf(stderr, "mnemo %s: %s\n", a.name, ue.msg)
			return 2
		}
		fmt.Fprintf(stderr, "mnemo %s: %s\n", a.name, errText(err))
		return 1
	}
	return 0
}

// errText is the message of err for a CLI user: coded messages as they are,
// other errors in full (the local user owns the machine).
func errText(err error) string {
	var e *mnemo.Error
	if errors.As(err, &e) {
		return e.Message
	}
	return err.Error()
}

type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }
