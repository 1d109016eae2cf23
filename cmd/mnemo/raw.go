package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/mnemo-dev/mnemo"
)

// exitCode reports err of the raw command name on stderr and returns the
// exit status: 0 for none or a help request, else 1.
func exitCode(stderr io.Writer, name string, err error) int {
	if err == nil || errors.Is(err, flag.ErrHelp) {
		return 0
	}
	fmt.Fprintf(stderr, "mnemo %s: %s\n", name, errText(err))
	return 1
}

// rawSubcommand checks that the arguments of the raw command name start
// with its one subcommand sub, whose flags are fs. Otherwise it returns
// false with the error to report, the command's usage line on stderr; or,
// when help was asked for, the help of sub (its usage line and flags) on
// stdout and no error.
func rawSubcommand(fs *flag.FlagSet, stdout, stderr io.Writer, name, sub string, args []string) (bool, error) {
	if len(args) > 0 && args[0] == sub {
		return true, nil
	}
	if len(args) == 0 {
		fmt.Fprintf(stderr, "usage: %s\n", synopses[name])
		return false, mnemo.Errorf(mnemo.EINVALID, "%s: missing subcommand (%s)", name, sub)
	}
	if args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		writeRawUsage(stdout, fs)
		return false, nil
	}
	fmt.Fprintf(stderr, "usage: %s\n", synopses[name])
	return false, mnemo.Errorf(mnemo.EINVALID, "%s: unknown subcommand %q (want %s)", name, args[0], sub)
}

// writeRawUsage writes the help of a raw command's subcommand: its usage
// line and its flags.
func writeRawUsage(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprintf(w, "usage: %s\n\nflags:\n", synopses[fs.Name()])
	out := fs.Output()
	fs.SetOutput(w)
	fs.PrintDefaults()
	fs.SetOutput(out)
}

// rawFlags parses the flags of a raw command's subcommand with parse. Its
// help goes to stdout when asked for (-h, --help) and to stderr after a
// bad flag.
func rawFlags(fs *flag.FlagSet, stdout, stderr io.Writer, parse func() error) error {
	var help bytes.Buffer
	fs.SetOutput(stderr)
	fs.Usage = func() {
		help.Reset()
		writeRawUsage(&help, fs)
	}
	err := parse()
	if errors.Is(err, flag.ErrHelp) {
		_, _ = help.WriteTo(stdout)
	} else if err != nil {
		_, _ = help.WriteTo(stderr)
	}
	return err
}
