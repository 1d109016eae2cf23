package mcpserver_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/mcpserver"
)

// TestFilterSpellings: the tools take mnemo.Filter in its JSON spelling,
// the one REST uses, and still the older one (layer, kind, scope,
// criticality); both give the same hits.
func TestFilterSpellings(t *testing.T) {
	svc, _ := openService(t)
	cs := connect(t, mcpserver.New(svc, mcpserver.Options{Namespace: "mission"}))
	for _, r := range []map[string]any{
		{"text": "The coolant pump rule: inspect weekly", "scope": "/rules/safety", "criticality": 0.9},
		{"text": "The coolant pump was inspected on Monday", "scope": "/log", "kind": "event"},
	} {
		if res := callTool(t, cs, mcpserver.ToolRemember, r); res.IsError {
			t.Fatalf("remember: %s", text(res))
		}
	}
	hits := func(tool string, args map[string]any) []string {
		t.Helper()
		res := callTool(t, cs, tool, args)
		if res.IsError {
			t.Fatalf("%s %v: %s", tool, args, text(res))
		}
		b, _ := json.Marshal(res.StructuredContent)
		var out struct {
			Hits    []struct{ Text string } `json:"hits"`
			Entries []struct{ Text string } `json:"entries"`
		}
		_ = json.Unmarshal(b, &out)
		var texts []string
		for _, h := range append(out.Hits, out.Entries...) {
			texts = append(texts, h.Text)
		}
		return texts
	}
	for _, c := range []struct {
		canonical, older map[string]any
		want             string
	}{
		{map[string]any{"scope_prefix": "/rules"}, map[string]any{"scope": "/rules"}, "inspect weekly"},
		{map[string]any{"layers": []string{"workflow"}}, map[string]any{"layer": []string{"workflow"}}, "on Monday"},
		{map[string]any{"kinds": []string{"event"}}, map[string]any{"kind": []string{"event"}}, "on Monday"},
		{map[string]any{"min_criticality": 0.5}, map[string]any{"criticality": 0.5}, "inspect weekly"},
		{map[string]any{"since": "2000-01-01", "until": "2100-01-01T00:00:00Z"}, map[string]any{"since": "2000-01-01T00:00:00Z", "until": "2100-01-01"}, ""},
	} {
		for _, tool := range []string{mcpserver.ToolRecall, mcpserver.ToolQuery} {
			var got [2][]string
			for i, f := range []map[string]any{c.canonical, c.older} {
				args := map[string]any{"query": "coolant pump", "filters": f}
				if tool == mcpserver.ToolQuery {
					args = map[string]any{"task_description": "coolant pump", "filters": f}
				}
				got[i] = hits(tool, args)
			}
			if strings.Join(got[0], "|") != strings.Join(got[1], "|") {
				t.Errorf("%s: %v gives %v, %v gives %v", tool, c.canonical, got[0], c.older, got[1])
			}
			if c.want != "" && (len(got[0]) != 1 || !strings.Contains(got[0][0], c.want)) {
				t.Errorf("%s %v: %v, want only %q", tool, c.canonical, got[0], c.want)
			}
			if c.want == "" && len(got[0]) != 2 {
				t.Errorf("%s %v: %v, want both records", tool, c.canonical, got[0])
			}
		}
	}
	// The schema names the canonical keys, describes the older ones, and
	// refuses others.
	tools, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools.Tools {
		if tool.Name != mcpserver.ToolRecall && tool.Name != mcpserver.ToolQuery {
			continue
		}
		b, _ := json.Marshal(tool.InputSchema)
		var sc struct {
			Properties map[string]struct {
				Properties           map[string]json.RawMessage `json:"properties"`
				AdditionalProperties *bool                      `json:"additionalProperties"`
			} `json:"properties"`
		}
		_ = json.Unmarshal(b, &sc)
		f := sc.Properties["filters"]
		for _, k := range append(append([]string{}, mnemo.FilterKeys...), "layer", "kind", "scope", "tag", "criticality") {
			if _, ok := f.Properties[k]; !ok {
				t.Errorf("%s: filters schema lacks %s", tool.Name, k)
			}
		}
		if f.AdditionalProperties == nil || *f.AdditionalProperties {
			t.Errorf("%s: filters accept unknown keys", tool.Name)
		}
	}
}
