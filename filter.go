package mnemo

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"time"
)

// Filter narrows which records a read sees. Zero values mean "no constraint".
// Every read is also bounded by Namespace and Clearance.
//
// Its JSON spelling is the one every surface uses: REST bodies, MCP tool
// arguments, and (as KEY=VALUE, see Set) the CLI's --filter and the query
// parameters of GET /v1/records. The older spellings layer, kind, scope, tag
// and criticality are accepted on input.
type Filter struct {
	Layers         []Layer    `json:"layers,omitempty" jsonschema:"only these layers: domain, workflow, practitioner"`
	Kinds          []Kind     `json:"kinds,omitempty" jsonschema:"only these kinds: fact, preference, episode, procedure, decision, correction, refresh, event, core, principle"`
	ScopePrefix    string     `json:"scope_prefix,omitempty" jsonschema:"scope path prefix, e.g. /regulations"`
	Component      string     `json:"component,omitempty" jsonschema:"only records of this component"`
	Mission        string     `json:"mission,omitempty" jsonschema:"only records of this mission"`
	Thread         string     `json:"thread,omitempty" jsonschema:"only records of this conversation or session"`
	Tags           []string   `json:"tags,omitempty" jsonschema:"only records that carry every one of these tags"` // a record must carry every tag
	MinCriticality float64    `json:"min_criticality,omitempty" jsonschema:"minimum criticality 0..1"`
	Since          *time.Time `json:"since,omitempty" jsonschema:"only records created at or after this time (RFC 3339 or YYYY-MM-DD)"` // created_at >= Since
	Until          *time.Time `json:"until,omitempty" jsonschema:"only records created before this time (RFC 3339 or YYYY-MM-DD)"`      // created_at < Until
	Outcome        string     `json:"outcome,omitempty" jsonschema:"correction outcome: accepted, rejected or modified"`                // correction outcome
	// AsOf selects the records valid at that instant (bi-temporal read);
	// nil means "now": superseded and expired records are hidden.
	AsOf *time.Time `json:"as_of,omitempty" jsonschema:"answer as of this time (RFC 3339 or YYYY-MM-DD): superseded facts valid then are included"`
	// AsKnownAt answers from what the memory held at that instant
	// (transaction time): each record as its latest revision at or before
	// it, records written later or forgotten by then left out. It is read
	// from the revisions, not the in-memory index: a slower path.
	AsKnownAt *time.Time `json:"as_known_at,omitempty" jsonschema:"answer from the records as they were known at this time (RFC 3339 or YYYY-MM-DD): each record's latest revision then; records written later or forgotten by then are absent"`
	// Operator selects the records of one operator: those tagged or
	// referenced (provenance) "operator:<name>" (see Record.Operators).
	Operator string `json:"operator,omitempty" jsonschema:"only records of this operator (tag or provenance operator:NAME), e.g. an operator's corrections and practitioner patterns"`
}

// FilterKeys lists the filter keys in their canonical spelling, the JSON
// names of Filter's fields.
var FilterKeys = []string{"layers", "kinds", "scope_prefix", "component", "mission", "thread", "tags",
	"min_criticality", "since", "until", "as_of", "as_known_at", "outcome", "operator"}

// FilterAliases maps the older spellings of filter keys, still accepted on
// input, to the canonical ones.
var FilterAliases = map[string]string{"layer": "layers", "kind": "kinds", "scope": "scope_prefix",
	"tag": "tags", "criticality": "min_criticality"}

// CanonicalFilterKey returns the canonical spelling of a filter key (either
// spelling, any case) and whether the key is known.
func CanonicalFilterKey(key string) (string, bool) {
	k := strings.ToLower(strings.TrimSpace(key))
	if c, ok := FilterAliases[k]; ok {
		return c, true
	}
	for _, c := range FilterKeys {
		if k == c {
			return c, true
		}
	}
	return "", false
}

func unknownFilterKey(key string) error {
	return Errorf(EINVALID, "unknown filter %q (want %s)", key, strings.Join(FilterKeys, ", "))
}

// Set sets one field of f from its text form, as the CLI's --filter
// KEY=VALUE and the query parameters of GET /v1/records give it. The key
// may use either spelling (see FilterAliases). Layers and kinds add to the
// list; tags add too and may be comma-separated; the other keys replace.
func (f *Filter) Set(key, value string) error {
	k, ok := CanonicalFilterKey(key)
	if !ok {
		return unknownFilterKey(key)
	}
	value = strings.TrimSpace(value)
	switch k {
	case "layers":
		f.Layers = append(f.Layers, Layer(value))
	case "kinds":
		f.Kinds = append(f.Kinds, Kind(value))
	case "scope_prefix":
		f.ScopePrefix = value
	case "component":
		f.Component = value
	case "mission":
		f.Mission = value
	case "thread":
		f.Thread = value
	case "tags":
		f.Tags = append(f.Tags, strings.Split(value, ",")...)
	case "min_criticality":
		x, err := strconv.ParseFloat(value, 64)
		if err != nil {
			return Errorf(EINVALID, "criticality %q is not a number", value)
		}
		f.MinCriticality = x
	case "since", "until", "as_of", "as_known_at":
		t, err := ParseTime(value)
		if err != nil {
			return Errorf(EINVALID, "filter %s: %s", k, ErrorMessage(err))
		}
		*f.timeField(k) = &t
	case "outcome":
		f.Outcome = value
	case "operator":
		f.Operator = value
	}
	return nil
}

func (f *Filter) timeField(k string) **time.Time {
	switch k {
	case "since":
		return &f.Since
	case "until":
		return &f.Until
	case "as_known_at":
		return &f.AsKnownAt
	}
	return &f.AsOf
}

// filterWire is Filter as read from JSON: both spellings, times as text.
type filterWire struct {
	Layers         []Layer  `json:"layers"`
	Layer          []Layer  `json:"layer"`
	Kinds          []Kind   `json:"kinds"`
	Kind           []Kind   `json:"kind"`
	ScopePrefix    string   `json:"scope_prefix"`
	Scope          string   `json:"scope"`
	Component      string   `json:"component"`
	Mission        string   `json:"mission"`
	Thread         string   `json:"thread"`
	Tags           []string `json:"tags"`
	Tag            []string `json:"tag"`
	MinCriticality *float64 `json:"min_criticality"`
	Criticality    *float64 `json:"criticality"`
	Since          *string  `json:"since"`
	Until          *string  `json:"until"`
	AsOf           *string  `json:"as_of"`
	AsKnownAt      *string  `json:"as_known_at"`
	Outcome        string   `json:"outcome"`
	Operator       string   `json:"operator"`
}

// UnmarshalJSON reads a filter in the canonical spelling or the older one,
// with times in RFC 3339 or as dates (YYYY-MM-DD, UTC). Unknown keys are an
// error.
func (f *Filter) UnmarshalJSON(b []byte) error {
	if string(bytes.TrimSpace(b)) == "null" {
		return nil
	}
	var w filterWire
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&w); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			te.Field = "filters." + te.Field
		}
		return err
	}
	out := Filter{Layers: append(w.Layers, w.Layer...), Kinds: append(w.Kinds, w.Kind...),
		ScopePrefix: firstNonEmpty(w.ScopePrefix, w.Scope), Component: w.Component, Mission: w.Mission, Thread: w.Thread,
		Tags: append(w.Tags, w.Tag...), Outcome: w.Outcome, Operator: w.Operator}
	switch {
	case w.MinCriticality != nil:
		out.MinCriticality = *w.MinCriticality
	case w.Criticality != nil:
		out.MinCriticality = *w.Criticality
	}
	for _, x := range []struct {
		k string
		v *string
	}{{"since", w.Since}, {"until", w.Until}, {"as_of", w.AsOf}, {"as_known_at", w.AsKnownAt}} {
		if x.v == nil || *x.v == "" {
			continue
		}
		t, err := ParseTime(*x.v)
		if err != nil {
			return Errorf(EINVALID, "filter %s: %s", x.k, ErrorMessage(err))
		}
		*out.timeField(x.k) = &t
	}
	*f = out
	return nil
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

// ParseTime reads a time as every surface accepts it: an RFC 3339
// timestamp (converted to UTC) or a date, YYYY-MM-DD, meaning its midnight
// UTC. Anything else is EINVALID.
func ParseTime(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t.UTC(), nil
	}
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t, nil
	}
	return time.Time{}, Errorf(EINVALID, "%q is an invalid time: want RFC 3339 (like 2026-01-02T15:04:05Z) or a date (2026-01-02)", s)
}
