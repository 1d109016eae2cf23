package main

import (
	"context"
	"fmt"

	"github.com/mnemo-dev/mnemo"
)

func cmdForget(ctx context.Context, a *app, args []string) error {
	return a.lifecycle(ctx, "forget", args, mnemo.Service.Forget, "forgot %s (restore with: mnemo restore %s)\n")
}

func cmdRestore(ctx context.Context, a *app, args []string) error {
	return a.lifecycle(ctx, "restore", args, mnemo.Service.Restore, "restored %s%.0s\n")
}

func (a *app) lifecycle(ctx context.Context, name string, args []string,
	op func(mnemo.Service, context.Context, string) (*mnemo.Record, error), msg string) error {
	id, err := a.oneID(name, args)
	if err != nil {
		return err
	}
	ctx, b, err := a.memory(ctx)
	if err != nil {
		return err
	}
	r, err := op(b, ctx, id)
	if err != nil {
		return err
	}
	if a.json {
		return a.printJSON(r)
	}
	fmt.Fprintf(a.stdout, msg, r.ID, r.ID)
	return nil
}
