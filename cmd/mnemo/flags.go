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
	"min_criticality, since, until, as_of, outcome (the keys of REST's filters; layer, kind, scope, tag and criticality also work)"

// parseFilters turns KEY=VALUE pairs into a Filter. The keys are the JSON
// names of mnemo.Filter (layers, kinds, scope_prefix, component, mission,
// thread, tags, min_criticality, since, until, as_of, outcome) or their
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
// (repeatable) and any --filter KEY=VALUE.
type filterFlags struct {
	layers, kinds, filters stringList
}

func (ff *filterFlags) register(fs *flag.FlagSet) {
	fs.Var(&ff.layers, "layer", "only this layer (repeatable)")
	fs.Var(&ff.kinds, "kind", "only this kind (repeatable)")
	fs.Var(&ff.filters, "filter", filterUsage)
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
