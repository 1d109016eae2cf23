package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/mnemo-dev/mnemo"
)

func cmdShow(ctx context.Context, a *app, args []string) error {
	id, err := a.oneID("show", args)
	if err != nil {
		return err
	}
	ctx, b, err := a.memory(ctx)
	if err != nil {
		return err
	}
	r, err := b.Get(ctx, id)
	if err != nil {
		return err
	}
	if a.json || r.Decision == nil {
		return a.printRecord(r)
	}
	return a.printRecordLinks(r, func(id string) string {
		l, err := b.Get(ctx, id)
		if err != nil {
			return "(not found)"
		}
		desc := l.Text
		if l.Decision != nil && l.Decision.Title != "" {
			desc = l.Decision.Title
		}
		switch {
		case l.DeletedAt != nil:
			desc += " (forgotten)"
		case l.SupersededBy != "":
			desc += " (superseded by " + l.SupersededBy + ")"
		}
		return desc
	})
}

// maxShownLinks bounds the linked decisions show looks up.
const maxShownLinks = 20

func (a *app) printRecord(r *mnemo.Record) error { return a.printRecordLinks(r, nil) }

// printRecordLinks prints r; for a decision, with describe it lists the
// decisions it depends on and constrains, one a line, each "ID — title"
// (or its text, or "(not found)" when the caller may not see it).
func (a *app) printRecordLinks(r *mnemo.Record, describe func(id string) string) error {
	if a.json {
		return a.printJSON(r)
	}
	tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
	row := func(k, v string) {
		if v != "" {
			fmt.Fprintf(tw, "%s\t%s\n", k, a.shown(v))
		}
	}
	row("id", r.ID)
	row("namespace", r.Namespace)
	row("layer/kind", string(r.Layer)+"/"+string(r.Kind))
	row("scope", r.Scope)
	row("text", r.Text)
	if r.Decision != nil {
		b, _ := json.Marshal(r.Decision)
		row("decision", string(b))
	}
	if d := r.Decision; d != nil && describe != nil {
		n := 0
		for _, l := range []struct {
			name string
			ids  []string
		}{{"depends on", d.DependsOn}, {"constrains", d.Constrains}} {
			for i, id := range l.ids {
				name := l.name
				if i > 0 {
					name = ""
				}
				if n++; n > maxShownLinks {
					fmt.Fprintf(tw, "%s\t%s\n", name, a.shown(id))
					continue
				}
				fmt.Fprintf(tw, "%s\t%s — %s\n", name, a.shown(id), a.shown(oneLine(describe(id), 120)))
			}
		}
	}
	if r.Correction != nil {
		b, _ := json.Marshal(r.Correction)
		row("correction", string(b))
	}
	row("importance", fmt.Sprint(r.Importance))
	row("confidence", fmt.Sprint(r.Confidence))
	row("criticality", fmt.Sprint(r.Criticality))
	row("source", r.Source)
	row("provenance", strings.Join(r.Provenance, ", "))
	row("component", r.Component)
	row("mission", r.Mission)
	row("thread", r.Thread)
	row("tags", strings.Join(r.Tags, ", "))
	row("access level", fmt.Sprint(r.AccessLevel))
	row("created", r.CreatedAt.Format("2006-01-02T15:04:05Z07:00"))
	row("updated", r.UpdatedAt.Format("2006-01-02T15:04:05Z07:00"))
	row("valid from", r.ValidFrom.Format("2006-01-02T15:04:05Z07:00"))
	if r.ValidTo != nil {
		row("valid to", r.ValidTo.Format("2006-01-02T15:04:05Z07:00"))
	}
	row("superseded by", r.SupersededBy)
	if r.DeletedAt != nil {
		row("forgotten", r.DeletedAt.Format("2006-01-02T15:04:05Z07:00"))
	}
	row("accessed", fmt.Sprintf("%d times", r.AccessCount))
	row("tokens", fmt.Sprint(r.Tokens))
	return tw.Flush()
}
