package main

import (
	"flag"
	"fmt"
	"strconv"
	"strings"

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

// parseTime reads a time flag: RFC 3339, or a date (YYYY-MM-DD, UTC).
var parseTime = mnemo.ParseTime

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
