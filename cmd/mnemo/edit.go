package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/mnemo-dev/mnemo"
)

func cmdEdit(ctx context.Context, a *app, args []string) error {
	fs := flag.NewFlagSet("edit", flag.ContinueOnError)
	var rf recordFlags
	rf.register(fs)
	fs.StringVar(&rf.text, "text", "", "new text")
	pos, err := a.parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("want exactly one record ID")
	}
	var p mnemo.RecordPatch
	var bodyErr error
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "text":
			p.Text = &rf.text
		case "layer":
			l := mnemo.Layer(rf.layer)
			p.Layer = &l
		case "kind":
			k := mnemo.Kind(rf.kind)
			p.Kind = &k
		case "scope":
			p.Scope = &rf.scope
		case "importance":
			p.Importance = rf.importance.ptr()
		case "confidence":
			p.Confidence = rf.confidence.ptr()
		case "criticality":
			p.Criticality = rf.criticality.ptr()
		case "source":
			p.Source = &rf.source
		case "ref":
			refs := []string(rf.refs)
			p.Provenance = &refs
		case "component":
			p.Component = &rf.component
		case "mission":
			p.Mission = &rf.mission
		case "thread":
			p.Thread = &rf.thread
		case "tag":
			tags := []string(rf.tags)
			p.Tags = &tags
		case "access-level":
			p.AccessLevel = &rf.accessLevel
		case "valid-to":
			t, err := parseTime(rf.validTo)
			if err != nil {
				bodyErr = err
			}
			p.ValidTo = &t
		case "at":
			bodyErr = usagef("--at cannot be edited: the time a memory was learned is history")
		}
	})
	if bodyErr != nil {
		return bodyErr
	}
	ctx, b, err := a.memory(ctx)
	if err != nil {
		return err
	}
	if rf.body != "" {
		kind := mnemo.Kind(rf.kind)
		if kind == "" {
			cur, err := b.Get(ctx, pos[0])
			if err != nil {
				return err
			}
			kind = cur.Kind
		}
		if p.Decision, p.Correction, err = decodeBody(kind, rf.body); err != nil {
			return err
		}
	}
	r, err := b.Update(ctx, pos[0], p)
	if err != nil {
		return err
	}
	if a.json {
		return a.printJSON(r)
	}
	fmt.Fprintf(a.stdout, "updated %s\n", r.ID)
	return nil
}
