package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/mnemo-dev/mnemo"
)

func cmdRemember(ctx context.Context, a *app, args []string) error {
	fs := flag.NewFlagSet("remember", flag.ContinueOnError)
	var rf recordFlags
	rf.register(fs)
	supersedes := fs.String("supersedes", "", "id of a record this one replaces (closes its validity)")
	noDedup := fs.Bool("no-dedup", false, "store even if a near-duplicate exists")
	pos, err := a.parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("want exactly one TEXT argument, or - to read it from stdin")
	}
	text := pos[0]
	if text == "-" {
		b, err := io.ReadAll(io.LimitReader(a.stdin, 16<<20))
		if err != nil {
			return err
		}
		text = strings.TrimRight(string(b), "\n")
	}
	n := mnemo.NewRecord{Layer: mnemo.Layer(rf.layer), Kind: mnemo.Kind(rf.kind), Scope: rf.scope, Text: text,
		Importance: rf.importance.ptr(), Confidence: rf.confidence.ptr(), Criticality: rf.criticality.ptr(),
		Source: rf.source, Provenance: rf.refs, Component: rf.component, Tags: rf.tags, Mission: rf.mission, Thread: rf.thread,
		AccessLevel: rf.accessLevel, Supersedes: *supersedes}
	if n.Decision, n.Correction, err = decodeBody(n.Kind, rf.body); err != nil {
		return err
	}
	if rf.at != "" {
		t, err := parseTime(rf.at)
		if err != nil {
			return err
		}
		n.At = &t
	}
	if rf.validTo != "" {
		t, err := parseTime(rf.validTo)
		if err != nil {
			return err
		}
		n.ValidTo = &t
	}
	ctx, b, err := a.memory(ctx)
	if err != nil {
		return err
	}
	out, err := b.Remember(ctx, []mnemo.NewRecord{n}, mnemo.WriteOptions{Dedup: !*noDedup})
	if err != nil {
		return err
	}
	w := out[0]
	if a.json {
		return a.printJSON(w)
	}
	if w.Merged {
		fmt.Fprintf(a.stdout, "merged into %s (%s/%s, %d tokens)\n", w.ID, w.Layer, w.Kind, w.Tokens)
	} else {
		fmt.Fprintf(a.stdout, "remembered %s (%s/%s, %d tokens)\n", w.ID, w.Layer, w.Kind, w.Tokens)
	}
	return nil
}
