package main

import (
	"context"
	"flag"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/mnemo-dev/mnemo"
)

// keyCreated is the --json output of keys create: the only time the secret is shown.
type keyCreated struct {
	*mnemo.APIKey
	Key string `json:"key"`
}

func cmdKeys(ctx context.Context, a *app, args []string) error {
	if len(args) == 0 {
		return usagef("want a subcommand: create, list or revoke")
	}
	if a.server != "" {
		return usagef("keys are managed on the server's database file: run this where the server runs, without --server")
	}
	switch args[0] {
	case "create":
		return keysCreate(ctx, a, args[1:])
	case "list":
		return keysList(ctx, a, args[1:])
	case "revoke":
		return keysRevoke(ctx, a, args[1:])
	}
	return usagef("unknown keys subcommand %q (want create, list or revoke)", args[0])
}

func keysCreate(ctx context.Context, a *app, args []string) error {
	fs := flag.NewFlagSet("keys create", flag.ContinueOnError)
	nss := fs.String("namespaces", "", "comma-separated namespaces the key may use (required, except for role metrics)")
	role := fs.String("role", "", "read, write, admin, or metrics (reads /metrics only) (required)")
	clearance := fs.Int("clearance", 0, "highest access level of records the key may see")
	name := fs.String("name", "", "a label for the key")
	pos, err := a.parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		return usagef("keys create takes no arguments")
	}
	if *role == "" || (*nss == "" && mnemo.Role(*role) != mnemo.RoleMetrics) {
		return usagef("keys create needs --namespaces and --role")
	}
	list := splitList(*nss)
	id, secret, hash := mnemo.NewAPIKeySecret()
	k := &mnemo.APIKey{ID: id, Name: *name, Hash: hash, Namespaces: list, Role: mnemo.Role(*role), Clearance: *clearance}
	if err := k.Validate(); err != nil {
		return err
	}
	if _, err := a.service(ctx); err != nil {
		return err
	}
	if err := a.store.CreateKey(ctx, k); err != nil {
		return err
	}
	if a.json {
		return a.printJSON(keyCreated{APIKey: k, Key: secret})
	}
	fmt.Fprintln(a.stdout, secret)
	fmt.Fprintf(a.stderr, "created key %s (role %s, namespaces %s, clearance %d): store it now, it is not shown again\n",
		k.ID, k.Role, strings.Join(k.Namespaces, ","), k.Clearance)
	return nil
}

func keysList(ctx context.Context, a *app, args []string) error {
	fs := flag.NewFlagSet("keys list", flag.ContinueOnError)
	if _, err := a.parseFlags(fs, args); err != nil {
		return err
	}
	a.readOnly = true
	if _, err := a.service(ctx); err != nil {
		return err
	}
	keys, err := a.store.ListKeys(ctx)
	if err != nil {
		return err
	}
	if a.json {
		if keys == nil {
			keys = []*mnemo.APIKey{}
		}
		return a.printJSON(keys)
	}
	if len(keys) == 0 {
		fmt.Fprintln(a.stdout, "no API keys: the server accepts local requests without a key")
		return nil
	}
	tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tNAME\tROLE\tCLEARANCE\tNAMESPACES\tCREATED\tSTATUS")
	for _, k := range keys {
		status := "active"
		if k.RevokedAt != nil {
			status = "revoked " + k.RevokedAt.Format("2006-01-02")
		}
		name := k.Name
		if name == "" {
			name = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\t%s\n", k.ID, name, k.Role, k.Clearance, strings.Join(k.Namespaces, ","),
			k.CreatedAt.Format("2006-01-02T15:04:05Z"), status)
	}
	return tw.Flush()
}

func keysRevoke(ctx context.Context, a *app, args []string) error {
	fs := flag.NewFlagSet("keys revoke", flag.ContinueOnError)
	pos, err := a.parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("want exactly one key ID")
	}
	if _, err := a.service(ctx); err != nil {
		return err
	}
	if err := a.store.RevokeKey(ctx, pos[0]); err != nil {
		return err
	}
	if n, err := a.store.ActiveKeys(ctx); err == nil && n == 0 {
		fmt.Fprintln(a.stderr, "that was the last active key: a server started with keys now refuses every request until a key is created; "+
			"started again without keys, it serves loopback clients only")
	}
	if a.json {
		return a.printJSON(map[string]any{"id": pos[0], "revoked": true})
	}
	fmt.Fprintf(a.stdout, "revoked %s\n", pos[0])
	return nil
}
