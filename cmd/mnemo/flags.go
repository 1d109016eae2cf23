package main

import (
	"flag"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/mnemo-dev/mnemo"
)

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

// parseTime accepts RFC 3339 timestamps and plain dates (YYYY-MM-DD, UTC).
func parseTime(s string) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t.UTC(), nil
	}
	if t, err := time.Parse("2006-01-02", s); err == nil {
		return t, nil
	}
	return time.Time{}, mnemo.Errorf(mnemo.EINVALID, "%q is not an RFC 3339 time (like 2026-01-02T15:04:05Z) or a date (2026-01-02)", s)
}

// parseFilters turns KEY=VALUE pairs into a Filter. Keys: layer, kind
// (repeatable), scope (prefix), component, mission, thread, tag (repeatable),
// criticality (minimum), since, until, as_of, outcome.
func parseFilters(pairs []string) (mnemo.Filter, error) {
	var f mnemo.Filter
	for _, p := range pairs {
		k, v, ok := strings.Cut(p, "=")
		if !ok || v == "" {
			return f, mnemo.Errorf(mnemo.EINVALID, "filter %q is not KEY=VALUE", p)
		}
		if err := setFilter(&f, strings.TrimSpace(strings.ToLower(k)), strings.TrimSpace(v)); err != nil {
			return f, err
		}
	}
	return f, nil
}

func setFilter(f *mnemo.Filter, k, v string) error {
	switch k {
	case "layer":
		f.Layers = append(f.Layers, mnemo.Layer(v))
	case "kind":
		f.Kinds = append(f.Kinds, mnemo.Kind(v))
	case "scope", "scope_prefix":
		f.ScopePrefix = v
	case "component":
		f.Component = v
	case "mission":
		f.Mission = v
	case "thread":
		f.Thread = v
	case "tag", "tags":
		f.Tags = append(f.Tags, strings.Split(v, ",")...)
	case "criticality", "min_criticality":
		x, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return mnemo.Errorf(mnemo.EINVALID, "criticality %q is not a number", v)
		}
		f.MinCriticality = x
	case "since", "until", "as_of":
		t, err := parseTime(v)
		if err != nil {
			return err
		}
		switch k {
		case "since":
			f.Since = &t
		case "until":
			f.Until = &t
		default:
			f.AsOf = &t
		}
	case "outcome":
		f.Outcome = v
	default:
		return mnemo.Errorf(mnemo.EINVALID, "unknown filter key %q (want layer, kind, scope, component, mission, thread, tag, criticality, since, until, as_of or outcome)", k)
	}
	return nil
}

// filterFlags are the filter flags of recall and list: --layer and --kind
// (repeatable) and any --filter KEY=VALUE.
type filterFlags struct {
	layers, kinds, filters stringList
}

func (ff *filterFlags) register(fs *flag.FlagSet) {
	fs.Var(&ff.layers, "layer", "only this layer (repeatable)")
	fs.Var(&ff.kinds, "kind", "only this kind (repeatable)")
	fs.Var(&ff.filters, "filter", "KEY=VALUE filter (repeatable; see digest -h)")
}

// filter builds the Filter the flags describe.
func (ff *filterFlags) filter() (mnemo.Filter, error) {
	f, err := parseFilters(ff.filters)
	if err != nil {
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
