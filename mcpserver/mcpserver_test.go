package mcpserver_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/engine"
	"github.com/mnemo-dev/mnemo/internal/enginetest"
	"github.com/mnemo-dev/mnemo/mcpserver"
	"github.com/mnemo-dev/mnemo/server"
	"github.com/mnemo-dev/mnemo/sqlite"
)

func openService(t testing.TB) (*engine.Service, *sqlite.Store) {
	t.Helper()
	return enginetest.Open(t, nil)
}

// connect runs the server over an in-memory transport and returns a client session.
func connect(t testing.TB, srv *mcp.Server) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func callTool(t testing.TB, cs *mcp.ClientSession, name string, args any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res
}

func text(res *mcp.CallToolResult) string {
	if len(res.Content) == 0 {
		return ""
	}
	if tc, ok := res.Content[0].(*mcp.TextContent); ok {
		return tc.Text
	}
	return ""
}

func count(t testing.TB, st *sqlite.Store) int {
	t.Helper()
	n := 0
	if err := st.EachRecord(context.Background(), func(*mnemo.Record) error { n++; return nil }); err != nil {
		t.Fatal(err)
	}
	return n
}

// undescribed returns the paths of schema properties without a description.
func undescribed(path string, schema map[string]any) []string {
	var out []string
	props, _ := schema["properties"].(map[string]any)
	for name, p := range props {
		ps, _ := p.(map[string]any)
		if d, _ := ps["description"].(string); d == "" {
			out = append(out, path+name)
		}
		out = append(out, undescribed(path+name+".", ps)...)
	}
	return out
}

func TestToolsAreDescribedAndAnnotated(t *testing.T) {
	svc, _ := openService(t)
	cs := connect(t, mcpserver.New(svc, mcpserver.Options{}))
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]struct{ readOnly, destructive bool }{
		mcpserver.ToolQuery: {true, false}, mcpserver.ToolRecall: {true, false},
		mcpserver.ToolRemember: {false, false}, mcpserver.ToolUpdate: {false, true}, mcpserver.ToolForget: {false, true},
		mcpserver.ToolHandoff: {true, false}, mcpserver.ToolConfig: {true, false}, mcpserver.ToolLoopStatus: {true, false},
	}
	if len(res.Tools) != len(want) {
		t.Fatalf("%d tools", len(res.Tools))
	}
	for _, tool := range res.Tools {
		w, ok := want[tool.Name]
		if !ok {
			t.Fatalf("unexpected tool %s", tool.Name)
		}
		a := tool.Annotations
		if a == nil || a.ReadOnlyHint != w.readOnly || (!w.readOnly && (a.DestructiveHint == nil || *a.DestructiveHint != w.destructive)) {
			t.Errorf("%s annotations %+v", tool.Name, a)
		}
		if tool.Description == "" {
			t.Errorf("%s has no description", tool.Name)
		}
		b, _ := json.Marshal(tool.InputSchema)
		var schema map[string]any
		_ = json.Unmarshal(b, &schema)
		if missing := undescribed("", schema); len(missing) > 0 {
			t.Errorf("%s: undescribed fields %v", tool.Name, missing)
		}
		if schema["additionalProperties"] != false {
			t.Errorf("%s accepts unknown arguments", tool.Name)
		}
		if tool.Name == mcpserver.ToolQuery {
			props := schema["properties"].(map[string]any)
			scope := props["scope"].(map[string]any)
			if scope["default"] != "all" || len(scope["enum"].([]any)) != 4 {
				t.Errorf("scope schema %v", scope)
			}
			if props["token_budget"].(map[string]any)["default"] != float64(8000) {
				t.Errorf("token_budget schema %v", props["token_budget"])
			}
			if req := schema["required"].([]any); len(req) != 1 || req[0] != "task_description" {
				t.Errorf("required %v", req)
			}
		}
	}
}

func TestToolsWorkAndBadArgumentsChangeNothing(t *testing.T) {
	svc, st := openService(t)
	cs := connect(t, mcpserver.New(svc, mcpserver.Options{Namespace: "mission"}))
	res := callTool(t, cs, mcpserver.ToolRemember, map[string]any{"text": "The reactor coolant pump must be inspected weekly", "scope": "/rules/safety", "importance": 0.9})
	if res.IsError {
		t.Fatalf("remember: %s", text(res))
	}
	var out mcpserver.RememberOutput
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &out); err != nil || out.ID == "" {
		t.Fatalf("remember output %s", b)
	}
	if r, err := svc.Get(mnemo.WithCallerIn(context.Background(), mnemo.Caller{Clearance: 9, Role: mnemo.RoleAdmin}, "mission"), out.ID); err != nil || r.Source != "llm" {
		t.Fatalf("stored record %+v %v", r, err)
	}

	res = callTool(t, cs, mcpserver.ToolQuery, map[string]any{"task_description": "plan the coolant pump inspection"})
	if res.IsError || !strings.Contains(text(res), "reactor coolant pump") || !strings.HasPrefix(text(res), "# Context for:") {
		t.Fatalf("query: %s", text(res))
	}
	var d mnemo.Digest
	b, _ = json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &d); err != nil || d.Budget != 8000 || d.Scope != "all" || len(d.Entries) != 1 || d.Markdown != text(res) {
		t.Fatalf("structured digest %s", b)
	}
	res = callTool(t, cs, mcpserver.ToolQuery, map[string]any{"task_description": "coolant", "scope": "workflow", "token_budget": 100,
		"filters": map[string]any{"tags": []string{"x"}}})
	if res.IsError {
		t.Fatalf("query with filters: %s", text(res))
	}

	res = callTool(t, cs, mcpserver.ToolRecall, map[string]any{"query": "coolant pump", "k": 3})
	if res.IsError || !strings.Contains(text(res), out.ID) {
		t.Fatalf("recall: %s", text(res))
	}
	res = callTool(t, cs, mcpserver.ToolUpdate, map[string]any{"id": out.ID, "importance": 0.99})
	if res.IsError {
		t.Fatalf("update: %s", text(res))
	}

	before := count(t, st)
	bad := []struct {
		tool string
		args map[string]any
		want string
	}{
		{mcpserver.ToolQuery, map[string]any{"task_description": "x", "bogus": 1}, "bogus"},
		{mcpserver.ToolQuery, map[string]any{"task_description": "x", "filters": map[string]any{"colour": "red"}}, "colour"},
		{mcpserver.ToolQuery, map[string]any{}, "task_description"},
		{mcpserver.ToolQuery, map[string]any{"task_description": 42}, "task_description"},
		{mcpserver.ToolQuery, map[string]any{"task_description": "x", "scope": "everything"}, "scope"},
		{mcpserver.ToolQuery, map[string]any{"task_description": "x", "token_budget": "lots"}, "token_budget"},
		{mcpserver.ToolQuery, map[string]any{"task_description": "x", "filters": map[string]any{"since": "yesterday"}}, "invalid"},
		{mcpserver.ToolRemember, map[string]any{"text": "a new fact", "importance": 1.5}, "invalid"},
		{mcpserver.ToolRemember, map[string]any{"text": "a new fact", "colour": "red"}, "colour"},
		{mcpserver.ToolRemember, map[string]any{"text": "   "}, "invalid"},
		{mcpserver.ToolUpdate, map[string]any{"id": out.ID, "text": "changed", "extra": true}, "extra"},
		{mcpserver.ToolUpdate, map[string]any{"id": out.ID}, "invalid"},
		{mcpserver.ToolForget, map[string]any{"id": "no-such-id"}, "not_found"},
		{mcpserver.ToolForget, map[string]any{"id": out.ID, "hard": true}, "hard"},
	}
	for _, c := range bad {
		res := callTool(t, cs, c.tool, c.args)
		if !res.IsError || !strings.Contains(text(res), c.want) {
			t.Errorf("%s %v: isError %v, %q (want %q)", c.tool, c.args, res.IsError, text(res), c.want)
		}
	}
	if after := count(t, st); after != before {
		t.Fatalf("bad calls changed the store: %d → %d", before, after)
	}
	if r, _ := svc.Get(mnemo.WithCallerIn(context.Background(), mnemo.Caller{Clearance: 9, Role: mnemo.RoleAdmin}, "mission"), out.ID); r.Text != "The reactor coolant pump must be inspected weekly" || r.Importance != 0.99 {
		t.Fatalf("record changed by bad calls: %+v", r)
	}

	res = callTool(t, cs, mcpserver.ToolForget, map[string]any{"id": out.ID})
	if res.IsError {
		t.Fatalf("forget: %s", text(res))
	}
	res = callTool(t, cs, mcpserver.ToolQuery, map[string]any{"task_description": "plan the coolant pump inspection"})
	if strings.Contains(text(res), "reactor coolant pump") {
		t.Fatal("forgotten record still in the digest")
	}
}

// TestHTTPIsolation drives /mcp of a real server with API keys.
func TestHTTPIsolation(t *testing.T) {
	svc, st := openService(t)
	srv, err := server.New(server.Config{Service: svc, Keys: st})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()
	newKey := func(role mnemo.Role, clearance int, nss ...string) string {
		id, secret, hash := mnemo.NewAPIKeySecret()
		if err := st.CreateKey(context.Background(), &mnemo.APIKey{ID: id, Hash: hash, Namespaces: nss, Role: role, Clearance: clearance}); err != nil {
			t.Fatal(err)
		}
		return secret
	}
	keyA := newKey(mnemo.RoleWrite, 1, "a")
	readA := newKey(mnemo.RoleRead, 1, "a")
	ctx := context.Background()
	caller := mnemo.Caller{Clearance: 5, Role: mnemo.RoleAdmin}
	wb, err := svc.Remember(mnemo.WithCallerIn(ctx, caller, "b"), []mnemo.NewRecord{{Text: "namespace b holds the satellite launch window"}}, mnemo.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	wa2, err := svc.Remember(mnemo.WithCallerIn(ctx, caller, "a"), []mnemo.NewRecord{{Text: "classified satellite launch window for a", AccessLevel: 2}}, mnemo.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}

	session := func(key, ns string) (*mcp.ClientSession, error) {
		hc := &http.Client{Transport: headerTransport{key: key, ns: ns}}
		return mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).
			Connect(ctx, &mcp.StreamableClientTransport{Endpoint: ts.URL + "/mcp", HTTPClient: hc}, nil)
	}
	if cs, err := session("", ""); err == nil {
		cs.Close()
		t.Fatal("connected without a key")
	}
	csB, err := session(keyA, "b")
	if err == nil {
		csB.Close()
		t.Fatal("key A connected to namespace b")
	}
	cs, err := session(keyA, "")
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res := callTool(t, cs, mcpserver.ToolQuery, map[string]any{"task_description": "satellite launch window"})
	if res.IsError || strings.Contains(text(res), wb[0].ID) || strings.Contains(text(res), wa2[0].ID) {
		t.Fatalf("query leaks: %s", text(res))
	}
	res = callTool(t, cs, mcpserver.ToolRecall, map[string]any{"query": "satellite launch window", "k": 50})
	if res.IsError || strings.Contains(text(res), wb[0].ID) || strings.Contains(text(res), wa2[0].ID) {
		t.Fatalf("recall leaks: %s", text(res))
	}
	for _, id := range []string{wb[0].ID, wa2[0].ID} {
		res = callTool(t, cs, mcpserver.ToolForget, map[string]any{"id": id})
		if !res.IsError || !strings.Contains(text(res), "not_found") {
			t.Fatalf("forget invisible record: %s", text(res))
		}
		res = callTool(t, cs, mcpserver.ToolUpdate, map[string]any{"id": id, "text": "pwned"})
		if !res.IsError || !strings.Contains(text(res), "not_found") {
			t.Fatalf("update invisible record: %s", text(res))
		}
	}
	res = callTool(t, cs, mcpserver.ToolRemember, map[string]any{"text": "too secret for key a", "access_level": 3})
	if !res.IsError || !strings.Contains(text(res), "forbidden") {
		t.Fatalf("write above clearance: %s", text(res))
	}
	csR, err := session(readA, "a")
	if err != nil {
		t.Fatal(err)
	}
	defer csR.Close()
	res = callTool(t, csR, mcpserver.ToolRemember, map[string]any{"text": "a read key tries to write"})
	if !res.IsError || !strings.Contains(text(res), "forbidden") {
		t.Fatalf("read key wrote: %s", text(res))
	}
	if r, err := svc.Get(mnemo.WithCallerIn(ctx, caller, "b"), wb[0].ID); err != nil || r.DeletedAt != nil || r.Text != "namespace b holds the satellite launch window" {
		t.Fatalf("namespace b changed: %+v %v", r, err)
	}
}

type headerTransport struct{ key, ns string }

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	if h.key != "" {
		r.Header.Set("Authorization", "Bearer "+h.key)
	}
	if h.ns != "" {
		r.Header.Set("Mnemo-Namespace", h.ns)
	}
	return http.DefaultTransport.RoundTrip(r)
}

func TestRememberStructuredBodies(t *testing.T) {
	svc, _ := openService(t)
	cs := connect(t, mcpserver.New(svc, mcpserver.Options{Namespace: "mission"}))
	res := callTool(t, cs, mcpserver.ToolRemember, map[string]any{
		"text": "Night passes go through Svalbard", "kind": "decision",
		"decision": map[string]any{"title": "Route via Svalbard", "context": "Inuvik is in maintenance",
			"alternatives": []any{map[string]any{"option": "Wait for Inuvik", "reason": "misses three days of telemetry"}}},
	})
	if res.IsError {
		t.Fatalf("remember decision: %s", text(res))
	}
	res = callTool(t, cs, mcpserver.ToolRemember, map[string]any{
		"text": "Operator corrects pass briefs that omit the backup link", "kind": "correction",
		"correction": map[string]any{"outcome": "modified", "missing_context": true, "category": "pass-planning"},
	})
	if res.IsError {
		t.Fatalf("remember correction: %s", text(res))
	}
	res = callTool(t, cs, mcpserver.ToolQuery, map[string]any{"task_description": "plan the Svalbard night pass"})
	for _, want := range []string{"rejected: Wait for Inuvik (misses three days of telemetry)", "why: Inuvik is in maintenance", "missing context"} {
		if !strings.Contains(text(res), want) {
			t.Errorf("digest lacks %q:\n%s", want, text(res))
		}
	}
	// The handoff carries the decision and the correction pattern.
	res = callTool(t, cs, mcpserver.ToolHandoff, map[string]any{"token_budget": 500})
	for _, want := range []string{"# Handoff: mission", "pass-planning: 1 correction, 1 from missing context", "rejected: Wait for Inuvik"} {
		if res.IsError || !strings.Contains(text(res), want) {
			t.Errorf("handoff lacks %q:\n%s", want, text(res))
		}
	}
	if res := callTool(t, cs, mcpserver.ToolHandoff, map[string]any{"since": "last week"}); !res.IsError {
		t.Error("a handoff with a bad since was accepted")
	}
	// A body that does not match the kind is refused.
	res = callTool(t, cs, mcpserver.ToolRemember, map[string]any{"text": "x", "kind": "fact", "decision": map[string]any{"title": "t"}})
	if !res.IsError {
		t.Error("a decision body on a fact was accepted")
	}
}
