package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/safefile"
)

// recordFlags are the writable fields of a record, shared by remember and edit.
type recordFlags struct {
	layer, kind, scope, source, component, mission, thread, at, validTo, body, text string
	importance, confidence, criticality                                             optFloat
	refs, tags                                                                      stringList
	accessLevel                                                                     int
}

func (rf *recordFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&rf.layer, "layer", "", "layer: domain, workflow or practitioner (default from kind)")
	fs.StringVar(&rf.kind, "kind", "", "kind: fact, preference, episode, procedure, decision, correction, refresh, event, core")
	fs.StringVar(&rf.scope, "scope", "", "scope path, e.g. /regulations/gdpr (selects the recency half-life)")
	fs.Var(&rf.importance, "importance", "importance 0..1 (default 0.5)")
	fs.Var(&rf.confidence, "confidence", "confidence 0..1 (default by source: user 1.0, llm 0.7, observed 0.5)")
	fs.Var(&rf.criticality, "criticality", "criticality 0..1 (default 0)")
	fs.StringVar(&rf.source, "source", "", "source kind: user, llm, observed, import:git, ... (default user)")
	fs.Var(&rf.refs, "ref", "provenance reference, e.g. commit:abc123 (repeatable)")
	fs.StringVar(&rf.component, "component", "", "component")
	fs.StringVar(&rf.mission, "mission", "", "mission")
	fs.StringVar(&rf.thread, "thread", "", "conversation or session the record is part of; records of one thread lend each other context in semantic search")
	fs.Var(&rf.tags, "tag", "tag (repeatable)")
	fs.StringVar(&rf.at, "at", "", "when it happened or was learned (RFC 3339)")
	fs.StringVar(&rf.validTo, "valid-to", "", "end of validity (RFC 3339)")
	fs.IntVar(&rf.accessLevel, "access-level", 0, "clearance needed to see the record")
	fs.StringVar(&rf.body, "body", "", "structured body as JSON: a decision {title, context, decision, alternatives:[{option, reason}], consequences, principle, status} or a correction {class, category, component, outcome, summary, missing_context}")
}

// decodeBody parses --body for the given kind.
func decodeBody(kind mnemo.Kind, body string) (*mnemo.Decision, *mnemo.Correction, error) {
	if body == "" {
		return nil, nil, nil
	}
	dec := json.NewDecoder(strings.NewReader(body))
	dec.DisallowUnknownFields()
	switch kind {
	case mnemo.KindDecision:
		var d mnemo.Decision
		if err := dec.Decode(&d); err != nil {
			return nil, nil, mnemo.Errorf(mnemo.EINVALID, "--body is not a decision: %v", err)
		}
		return &d, nil, nil
	case mnemo.KindCorrection:
		var c mnemo.Correction
		if err := dec.Decode(&c); err != nil {
			return nil, nil, mnemo.Errorf(mnemo.EINVALID, "--body is not a correction: %v", err)
		}
		return nil, &c, nil
	}
	return nil, nil, mnemo.Errorf(mnemo.EINVALID, "--body needs --kind decision or --kind correction")
}

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

func cmdRecall(ctx context.Context, a *app, args []string) error {
	fs := flag.NewFlagSet("recall", flag.ContinueOnError)
	k := fs.Int("k", 10, "number of hits")
	var ff filterFlags
	ff.register(fs)
	preset := fs.String("preset", "", "scoring preset: default, aura or alma")
	intent := fs.String("intent", "", "override the intent: general, recent, rules, howto, why")
	minRel := minRelevanceFlag(fs)
	pos, err := a.parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("want exactly one QUERY argument")
	}
	f, err := ff.filter()
	if err != nil {
		return err
	}
	ctx, b, err := a.memory(ctx)
	if err != nil {
		return err
	}
	res, err := b.Recall(ctx, mnemo.RecallRequest{Query: pos[0], K: *k, Filter: f, Preset: *preset, Intent: *intent, MinRelevance: *minRel})
	if err != nil {
		return err
	}
	if a.json {
		return a.printJSON(res)
	}
	fmt.Fprintf(a.stdout, "intent %s, preset %s, weights %s\n", res.Intent, res.Preset, formatFactors(res.Weights))
	if res.Triage != nil {
		fmt.Fprintf(a.stdout, "triage: alpha %.3f (%.0f events/min over capacity %.0f)\n", res.Triage.Alpha, res.Triage.Rate, res.Triage.Limit)
	}
	for i, h := range res.Hits {
		fmt.Fprintf(a.stdout, "%2d. %.4f  %s  %s/%s  %s\n      %s\n", i+1, h.Score, h.ID, h.Layer, h.Kind, a.shown(oneLine(h.Text, 100)), formatFactors(h.Factors))
		if w := h.Why; w != nil {
			fmt.Fprintf(a.stdout, "      why: %s\n", a.shown(formatWhy(w)))
		}
	}
	if len(res.Hits) == 0 {
		fmt.Fprintln(a.stdout, "nothing in memory is relevant to this query")
	}
	return nil
}

func cmdDigest(ctx context.Context, a *app, args []string) error {
	fs := flag.NewFlagSet("digest", flag.ContinueOnError)
	scope := fs.String("scope", "all", "all, domain, workflow or practitioner")
	budget := fs.Int("budget", mnemo.DefaultTokenBudget, "token budget (exact tokens, headers included)")
	var filters stringList
	fs.Var(&filters, "filter", filterUsage)
	var kf knownFlags
	kf.register(fs)
	preset := fs.String("preset", "", "scoring preset: default, aura or alma")
	intent := fs.String("intent", "", "override the intent: general, recent, rules, howto, why")
	minRel := minRelevanceFlag(fs)
	minRatio := unitFlag(fs, "min-score-ratio", "once 8 entries are placed, the share of the best entry's score another must reach, 0..1 (default: the namespace's, 0.3; 0 fills the budget)")
	pos, err := a.parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("want exactly one TASK argument")
	}
	f, err := parseFilters(filters)
	if err != nil {
		return err
	}
	if err := kf.apply(&f); err != nil {
		return err
	}
	ctx, b, err := a.memory(ctx)
	if err != nil {
		return err
	}
	a.th.Prefetch(pos[0]) // while the index loads (local only)
	d, err := b.Digest(ctx, mnemo.DigestRequest{Task: pos[0], Scope: *scope, Budget: *budget, Filter: f, Preset: *preset, Intent: *intent,
		MinRelevance: *minRel, MinScoreRatio: *minRatio})
	if err != nil {
		return err
	}
	if a.json {
		return a.printJSON(d)
	}
	fmt.Fprint(a.stdout, a.shown(d.Markdown))
	fmt.Fprintf(a.stderr, "digest: %d entries, %d/%d tokens, %d left out, intent %s\n", len(d.Entries), d.UsedTokens, d.Budget, d.Omitted, d.Intent)
	return nil
}

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

// oneID parses a command that takes one record id.
func (a *app) oneID(name string, args []string) (string, error) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	pos, err := a.parseFlags(fs, args)
	if err != nil {
		return "", err
	}
	if len(pos) != 1 {
		return "", usagef("want exactly one record ID")
	}
	return pos[0], nil
}

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

func cmdHistory(ctx context.Context, a *app, args []string) error {
	id, err := a.oneID("history", args)
	if err != nil {
		return err
	}
	ctx, b, err := a.memory(ctx)
	if err != nil {
		return err
	}
	revs, err := b.History(ctx, id)
	if err != nil {
		return err
	}
	if a.json {
		return a.printJSON(revs)
	}
	for _, r := range revs {
		actor := r.Actor
		if actor == "" {
			actor = "-"
		}
		text := "(redacted: above your clearance)"
		if r.Record != nil {
			text = a.shown(oneLine(r.Record.Text, 80))
		}
		fmt.Fprintf(a.stdout, "%s  %-9s %-6s %s\n", r.At.Format("2006-01-02T15:04:05Z"), r.Action, a.shown(actor), text)
	}
	return nil
}

func cmdList(ctx context.Context, a *app, args []string) error {
	fs := flag.NewFlagSet("list", flag.ContinueOnError)
	var ff filterFlags
	ff.register(fs)
	limit := fs.Int("limit", 100, "page size")
	after := fs.String("after", "", "continue after this id (the last of the previous page)")
	all := fs.Bool("all", false, "include forgotten and superseded records")
	pos, err := a.parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		return usagef("list takes no arguments")
	}
	f, err := ff.filter()
	if err != nil {
		return err
	}
	ctx, b, err := a.memory(ctx)
	if err != nil {
		return err
	}
	recs, err := b.List(ctx, mnemo.ListOptions{Filter: f, Limit: *limit, After: *after, IncludeDeleted: *all, IncludeHistory: *all})
	if err != nil {
		return err
	}
	if a.json {
		if recs == nil {
			recs = []*mnemo.Record{}
		}
		return a.printJSON(recs)
	}
	for _, r := range recs {
		mark := ""
		if r.DeletedAt != nil {
			mark = " (forgotten)"
		} else if r.SupersededBy != "" {
			mark = " (superseded)"
		}
		fmt.Fprintf(a.stdout, "%s  %-12s %-10s %s%s\n", r.ID, r.Layer, r.Kind, a.shown(oneLine(r.Text, 80)), mark)
	}
	return nil
}

func cmdExport(ctx context.Context, a *app, args []string) error {
	fs := flag.NewFlagSet("export", flag.ContinueOnError)
	pos, err := a.parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 1 {
		return usagef("want at most one FILE argument")
	}
	ctx, b, err := a.memory(ctx)
	if err != nil {
		return err
	}
	w := a.stdout
	var f *os.File
	if len(pos) == 1 && pos[0] != "-" {
		tmp := pos[0] + ".tmp"
		if f, err = os.Create(tmp); err != nil {
			return err
		}
		defer os.Remove(tmp)
		w = f
	}
	n, err := b.Export(ctx, w)
	if err != nil {
		if f != nil {
			f.Close()
		}
		return err
	}
	if f != nil {
		if err := f.Sync(); err != nil {
			f.Close()
			return err
		}
		if err := f.Close(); err != nil {
			return err
		}
		if err := os.Rename(pos[0]+".tmp", pos[0]); err != nil {
			return err
		}
	}
	fmt.Fprintf(a.stderr, "exported %d records from namespace %s\n", n, a.ns())
	return nil
}

func cmdImport(ctx context.Context, a *app, args []string) error {
	fs := flag.NewFlagSet("import", flag.ContinueOnError)
	pos, err := a.parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("want exactly one FILE argument (- for stdin)")
	}
	var r io.Reader = a.stdin
	if pos[0] != "-" {
		f, err := safefile.Open(pos[0])
		if err != nil {
			return err
		}
		defer f.Close()
		r = f
	}
	ctx, b, err := a.memory(ctx)
	if err != nil {
		return err
	}
	res, err := b.Import(ctx, r, progress(a.stderr, "written"))
	if err != nil {
		return err
	}
	if a.json {
		return a.printJSON(res)
	}
	fmt.Fprintf(a.stdout, "imported %d records into %s (%d already present)\n", res.Imported, a.ns(), res.Skipped)
	return nil
}

func cmdReembed(ctx context.Context, a *app, args []string) error {
	fs := flag.NewFlagSet("reembed", flag.ContinueOnError)
	if _, err := a.parseFlags(fs, args); err != nil {
		return err
	}
	if a.serverURL() != "" {
		return usagef("reembed works on the database file: run it where the server runs, without --server")
	}
	svc, err := a.openService(ctx, true)
	if err != nil {
		return err
	}
	n, err := svc.Reembed(ctx, progress(a.stderr, "re-embedded"))
	if err != nil {
		return err
	}
	info := svc.Embedder().Info()
	fmt.Fprintf(a.stdout, "re-embedded %d records with %s (dim %d)\n", n, info.Name, info.Dim)
	learnt, err := svc.RefreshSemantic(ctx, true)
	if err != nil {
		return err
	}
	for _, ns := range slices.Sorted(maps.Keys(learnt)) {
		if learnt[ns] == 0 {
			fmt.Fprintf(a.stdout, "semantic model of %s: too few records to learn from\n", ns)
		} else {
			fmt.Fprintf(a.stdout, "semantic model of %s: learnt from %d records\n", ns, learnt[ns])
		}
	}
	return nil
}

func formatFactors(m map[string]float64) string {
	keys := []string{mnemo.FactorSemantic, mnemo.FactorKeyword, mnemo.FactorRecency, mnemo.FactorImportance,
		mnemo.FactorConfidence, mnemo.FactorFrequency, mnemo.FactorCriticality, mnemo.FactorThread, "gate", "kind_boost"}
	var rest []string
	for k := range m {
		if !slices.Contains(keys, k) {
			rest = append(rest, k)
		}
	}
	slices.Sort(rest)
	var parts []string
	for _, k := range append(keys, rest...) {
		if v, ok := m[k]; ok {
			parts = append(parts, fmt.Sprintf("%s=%.3f", k, v))
		}
	}
	return strings.Join(parts, " ")
}

func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	r := []rune(s)
	if len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// shown returns s as it may be written to the standard output: on a
// terminal, control characters other than newline and tab (escape
// sequences, carriage returns, C1 controls) and bidirectional overrides
// are escaped, so that stored text cannot move the cursor, rewrite the
// screen or the title, or hide what it says. Elsewhere (a pipe, a file)
// s is written as it is.
func (a *app) shown(s string) string {
	if !isTerminal(a.stdout) {
		return s
	}
	return escapeControls(s)
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// escapeControls escapes every control character of s but newline and
// tab, every bidirectional formatting character and every invalid UTF-8
// byte, as \xHH or \uHHHH.
func escapeControls(s string) string {
	clean := true
	for _, r := range s {
		if needsEscape(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case needsEscape(r) && r < 0x80:
			fmt.Fprintf(&b, `\x%02x`, r)
		case needsEscape(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

func needsEscape(r rune) bool {
	switch {
	case r == '\n' || r == '\t':
		return false
	case r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) || r == utf8.RuneError:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e, r == 0x200f, r == 0x061c:
		return true
	}
	return false
}

// minRelevanceFlag registers --min-relevance: unset leaves the adaptive
// relevance floor, 0 turns it off.
func minRelevanceFlag(fs *flag.FlagSet) **float64 {
	return unitFlag(fs, "min-relevance", "evidence of relevance every entry must reach, 0..1 (default: adaptive; 0 turns the floor off)")
}

// unitFlag is an optional number in 0..1.
func unitFlag(fs *flag.FlagSet, name, usage string) **float64 {
	v := new(*float64)
	fs.Func(name, usage, func(s string) error {
		x, err := strconv.ParseFloat(s, 64)
		if err != nil || x < 0 || x > 1 || math.IsNaN(x) {
			return fmt.Errorf("want a number in 0..1, got %q", s)
		}
		*v = &x
		return nil
	})
	return v
}

// formatWhy says in one line why a hit passed the relevance floor.
func formatWhy(w *mnemo.Why) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %.2f (floor %.2f)", w.Evidence, w.Relevance, w.Floor)
	if len(w.Matched) > 0 {
		fmt.Fprintf(&b, "; matched %s", strings.Join(w.Matched, ", "))
	}
	if len(w.Expanded) > 0 {
		fmt.Fprintf(&b, "; related %s", strings.Join(w.Expanded, ", "))
	}
	if w.SemanticStrength > 0 {
		fmt.Fprintf(&b, "; semantic %.2f over null %.2f", w.Semantic, w.SemanticNull)
	}
	if w.Learned > 0 {
		fmt.Fprintf(&b, "; learned %.2f over null %.2f", w.Learned, w.LearnedNull)
	}
	if w.Interval != "" {
		fmt.Fprintf(&b, "; time %s", w.Interval)
	}
	return b.String()
}
