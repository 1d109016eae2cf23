package main

import (
	"context"
	"flag"
	"time"

	"github.com/mnemo-dev/mnemo/mcpserver"
)

func cmdMCP(ctx context.Context, a *app, args []string) error {
	fs := flag.NewFlagSet("mcp", flag.ContinueOnError)
	logFormat := fs.String("log-format", "text", "log format on stderr: text or json")
	logLevel := fs.String("log-level", "warn", "log level: debug, info, warn, error")
	pos, err := a.parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		return usagef("mcp takes no arguments")
	}
	if a.server != "" {
		return usagef("mcp serves the database file over stdio: drop --server (or point the MCP client at SERVER/mcp)")
	}
	log, err := newLogger(a.stderr, *logFormat, *logLevel)
	if err != nil {
		return err
	}
	a.intentModel = true
	svc, err := a.service(ctx)
	if err != nil {
		return err
	}
	srv := mcpserver.New(svc, mcpserver.Options{Namespace: a.ns(), Logger: log, Version: version})
	log.Info("mnemo mcp on stdio", "db", a.dbLabel, "namespace", a.ns())
	start := time.Now()
	err = mcpserver.ServeStdio(ctx, srv)
	log.Info("mnemo mcp done", "after", time.Since(start).Round(time.Millisecond))
	return err
}
