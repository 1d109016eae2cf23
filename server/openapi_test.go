package server_test

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/server"
)

// jsonNames returns the JSON property names of a struct type, as
// encoding/json writes them: embedded structs flattened, "-" left out.
func jsonNames(t reflect.Type) []string {
	var out []string
	for f := range t.Fields() {
		tag := f.Tag.Get("json")
		name, _, _ := strings.Cut(tag, ",")
		if name == "-" || !f.IsExported() && !f.Anonymous {
			continue
		}
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				out = append(out, jsonNames(ft)...)
				continue
			}
		}
		if name == "" {
			name = f.Name
		}
		out = append(out, name)
	}
	slices.Sort(out)
	return out
}

// TestOpenAPISchemasMatchTypes: every schema of openapi.json that stands
// for a Go type has exactly the properties that type reads and writes.
func TestOpenAPISchemasMatchTypes(t *testing.T) {
	var doc struct {
		Components struct {
			Schemas map[string]struct {
				Properties map[string]json.RawMessage `json:"properties"`
				AllOf      []struct {
					Ref        string                     `json:"$ref"`
					Properties map[string]json.RawMessage `json:"properties"`
				} `json:"allOf"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(server.OpenAPI, &doc); err != nil {
		t.Fatal(err)
	}
	types := map[string]reflect.Type{
		"Filter":            reflect.TypeFor[mnemo.Filter](),
		"RecallRequest":     reflect.TypeFor[mnemo.RecallRequest](),
		"DigestRequest":     reflect.TypeFor[mnemo.DigestRequest](),
		"RecallHit":         reflect.TypeFor[mnemo.RecallHit](),
		"RecallResult":      reflect.TypeFor[mnemo.RecallResult](),
		"DigestEntry":       reflect.TypeFor[mnemo.DigestEntry](),
		"Digest":            reflect.TypeFor[mnemo.Digest](),
		"Record":            reflect.TypeFor[mnemo.Record](),
		"NewRecord":         reflect.TypeFor[mnemo.NewRecord](),
		"RecordPatch":       reflect.TypeFor[mnemo.RecordPatch](),
		"Decision":          reflect.TypeFor[mnemo.Decision](),
		"Correction":        reflect.TypeFor[mnemo.Correction](),
		"Revision":          reflect.TypeFor[mnemo.Revision](),
		"Triage":            reflect.TypeFor[mnemo.Triage](),
		"Why":               reflect.TypeFor[mnemo.Why](),
		"Principle":         reflect.TypeFor[mnemo.Principle](),
		"PrincipleDecision": reflect.TypeFor[mnemo.PrincipleDecision](),
		"RememberRequest":   reflect.TypeFor[server.RememberRequest](),
		"BatchRequest":      reflect.TypeFor[server.BatchRequest](),
		"BatchResponse":     reflect.TypeFor[server.BatchResponse](),
		"ListResponse":      reflect.TypeFor[server.ListResponse](),
		"ExpireRequest":     reflect.TypeFor[server.ExpireRequest](),
		"HandoffRequest":    reflect.TypeFor[mnemo.HandoffRequest](),
		"Error":             reflect.TypeFor[server.ErrorBody](),
	}
	for name, typ := range types {
		sc, ok := doc.Components.Schemas[name]
		if !ok {
			t.Errorf("openapi.json has no schema %s", name)
			continue
		}
		props := propNames(sc.Properties)
		for _, part := range sc.AllOf { // RememberRequest: NewRecord and its own fields
			if ref, ok := strings.CutPrefix(part.Ref, "#/components/schemas/"); ok {
				props = append(props, propNames(doc.Components.Schemas[ref].Properties)...)
			}
			props = append(props, propNames(part.Properties)...)
		}
		slices.Sort(props)
		want := jsonNames(typ)
		for _, p := range want {
			if !slices.Contains(props, p) {
				t.Errorf("schema %s lacks property %s of %s", name, p, typ)
			}
		}
		for _, p := range props {
			if !slices.Contains(want, p) {
				t.Errorf("schema %s has property %s, which %s does not have", name, p, typ)
			}
		}
	}
}

func propNames(m map[string]json.RawMessage) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
