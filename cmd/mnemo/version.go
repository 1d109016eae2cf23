package main

import (
	"context"
	"flag"
	"fmt"
)

// version is mnemo's version, the same on every surface: mnemo version,
// mnemo --version, the MCP server and the REST server. A release build may
// set it with -ldflags "-X main.version=...".
var version = "0.1.0"

func cmdVersion(ctx context.Context, a *app, args []string) error {
	fs := flag.NewFlagSet("version", flag.ContinueOnError)
	verbose := fs.Bool("verbose", false, "also list the active lexical resources (thesauri)")
	if _, err := a.parseFlags(fs, args); err != nil {
		return err
	}
	if *verbose {
		return a.printLexicalResources(version)
	}
	fmt.Fprintln(a.stdout, "mnemo", version)
	return nil
}
