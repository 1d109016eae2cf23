package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/mnemo-dev/mnemo"
)

// parseFlags parses flags and positional arguments in any order. -h or
// --help prints the command's usage and flags on stdout and returns
// flag.ErrHelp (exit status 0).
func (a *app) parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	fs.SetOutput(a.stderr)
	a.globalFlags(fs)
	if a.helpOnly {
		return nil, a.showFlagsHelp(fs)
	}
	if a.helpOut == nil {
		a.helpOut = a.stdout
	}
	var help bytes.Buffer // the usage: on stdout when asked for, on stderr after a parse error
	fs.Usage = func() { help.Reset(); writeUsage(&help, fs.Name(), a.summary, fs) }
	pos, err := parseInterleaved(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		_, _ = help.WriteTo(a.helpOut)
		a.helpShown = true
	} else if err != nil {
		_, _ = help.WriteTo(a.stderr)
	}
	return pos, err
}

// parseInterleaved parses flags and positional arguments in any order
// ("--" ends the flags) and returns the positional arguments.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		if args[0] == "--" {
			return append(pos, args[1:]...), nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

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

// stringList is a repeatable string flag.
type stringList []string

func (s *stringList) String() string { return strings.Join(*s, ",") }

func (s *stringList) Set(v string) error {
	*s = append(*s, v)
	return nil
}

// optFloat is a float flag that knows whether it was set.
type optFloat struct {
	v   float64
	set bool
}

func (o *optFloat) String() string {
	if !o.set {
		return ""
	}
	return strconv.FormatFloat(o.v, 'g', -1, 64)
}

func (o *optFloat) Set(s string) error {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return fmt.Errorf("%q is not a number", s)
	}
	o.v, o.set = f, true
	return nil
}

func (o *optFloat) ptr() *float64 {
	if !o.set {
		return nil
	}
	v := o.v
	return &v
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

// minRelevanceFlag registers --min-relevance: unset leaves the adaptive
// relevance floor, 0 turns it off.
func minRelevanceFlag(fs *flag.FlagSet) **float64 {
	return unitFlag(fs, "min-relevance", "evidence of relevance every entry must reach, 0..1 (default: adaptive; 0 turns the floor off)")
}

// parseTime reads a time flag: RFC 3339, or a date (YYYY-MM-DD, UTC).
var parseTime = mnemo.ParseTime

// parseDays reads a period as days ("120", "120d") or a Go duration ("36h").
func parseDays(s string) (time.Duration, error) {
	if d, err := strconv.ParseFloat(strings.TrimSuffix(s, "d"), 64); err == nil {
		return time.Duration(d * float64(24*time.Hour)), nil
	}
	if d, err := time.ParseDuration(s); err == nil {
		return d, nil
	}
	return 0, mnemo.Errorf(mnemo.EINVALID, "%q is not a number of days (120, 120d) or a duration (36h)", s)
}

// splitList splits a comma-separated flag value, dropping empty items.
func splitList(s string) []string {
	var out []string
	for _, x := range strings.Split(s, ",") {
		if x = strings.TrimSpace(x); x != "" {
			out = append(out, x)
		}
	}
	return out
}

// filterUsage describes the --filter flag.
const filterUsage = "KEY=VALUE filter (repeatable): layers, kinds, scope_prefix, component, mission, thread, tags, " +
	"min_criticality, since, until, as_of, as_known_at, outcome, operator (the keys of REST's filters; layer, kind, scope, tag and criticality also work)"

// parseFilters turns KEY=VALUE pairs into a Filter. The keys are the JSON
// names of mnemo.Filter (layers, kinds, scope_prefix, component, mission,
// thread, tags, min_criticality, since, until, as_of, as_known_at, outcome,
// operator) or their
// shorter spellings (layer, kind, scope, tag, criticality); list keys repeat.
func parseFilters(pairs []string) (mnemo.Filter, error) {
	var f mnemo.Filter
	for _, p := range pairs {
		k, v, ok := strings.Cut(p, "=")
		if !ok || strings.TrimSpace(v) == "" {
			return f, mnemo.Errorf(mnemo.EINVALID, "filter %q is not KEY=VALUE", p)
		}
		if err := f.Set(k, v); err != nil {
			return f, err
		}
	}
	return f, nil
}

// filterFlags are the filter flags of recall and list: --layer and --kind
// (repeatable), --operator, --as-known-at and any --filter KEY=VALUE.
type filterFlags struct {
	layers, kinds, filters stringList
	knownFlags
}

func (ff *filterFlags) register(fs *flag.FlagSet) {
	fs.Var(&ff.layers, "layer", "only this layer (repeatable)")
	fs.Var(&ff.kinds, "kind", "only this kind (repeatable)")
	fs.Var(&ff.filters, "filter", filterUsage)
	ff.knownFlags.register(fs)
}

// knownFlags are --operator and --as-known-at, the flags of recall, list
// and digest for the filter keys operator and as_known_at.
type knownFlags struct {
	operator, asKnownAt string
}

func (kf *knownFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&kf.operator, "operator", "", "only records of this operator (tag or provenance operator:NAME)")
	fs.StringVar(&kf.asKnownAt, "as-known-at", "", "answer from the records as they were known at this time (RFC 3339 or YYYY-MM-DD; read from the revisions, slower)")
}

// apply sets the filter keys the flags name.
func (kf *knownFlags) apply(f *mnemo.Filter) error {
	if kf.operator != "" {
		if err := f.Set("operator", kf.operator); err != nil {
			return err
		}
	}
	if kf.asKnownAt != "" {
		return f.Set("as_known_at", kf.asKnownAt)
	}
	return nil
}

// filter builds the Filter the flags describe.
func (ff *filterFlags) filter() (mnemo.Filter, error) {
	f, err := parseFilters(ff.filters)
	if err != nil {
		return f, err
	}
	if err := ff.knownFlags.apply(&f); err != nil {
		return f, err
	}
	for _, l := range ff.layers {
		f.Layers = append(f.Layers, mnemo.Layer(l))
	}
	for _, k := range ff.kinds {
		f.Kinds = append(f.Kinds, mnemo.Kind(k))
	}
	return f, nil
}

// filtered parses the flags of a filtered read (recall, list), checks
// that there are want positional arguments (else a usage error saying
// usage), builds the filter and opens the memory.
func (a *app) filtered(ctx context.Context, fs *flag.FlagSet, ff *filterFlags, args []string, want int, usage string) (context.Context, mnemo.Service, mnemo.Filter, []string, error) {
	pos, err := a.parseFlags(fs, args)
	if err != nil {
		return ctx, nil, mnemo.Filter{}, nil, err
	}
	if len(pos) != want {
		return ctx, nil, mnemo.Filter{}, nil, usagef("%s", usage)
	}
	f, err := ff.filter()
	if err != nil {
		return ctx, nil, f, nil, err
	}
	ctx, b, err := a.memory(ctx)
	return ctx, b, f, pos, err
}

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

// newLogger builds the structured logger of serve and mcp.
func newLogger(w io.Writer, format, level string) (*slog.Logger, error) {
	var lv slog.Level
	if err := lv.UnmarshalText([]byte(level)); err != nil {
		return nil, usagef("--log-level %q is not debug, info, warn or error", level)
	}
	opts := &slog.HandlerOptions{Level: lv}
	switch format {
	case "text":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	}
	return nil, usagef("--log-format %q is not text or json", format)
}
