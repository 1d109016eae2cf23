package mcpserver_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/loops"
	"github.com/mnemo-dev/mnemo/mcpserver"
	"github.com/mnemo-dev/mnemo/server"
)

// The configuration and loop tools read the key's namespace only, for any
// role; bad arguments are refused with a code.
func TestConfigAndLoopTools(t *testing.T) {
	svc, st := openService(t)
	ctx := context.Background()
	admin := mnemo.Caller{Name: "ops", Clearance: mnemo.MaxAccessLevel, Role: mnemo.RoleAdmin}
	cv, err := svc.Config(mnemo.WithCallerIn(ctx, admin, "b"), -1)
	if err != nil {
		t.Fatal(err)
	}
	cfg := cv.Config.Clone()
	cfg.RecencyFloor = 0.1
	if _, err := loops.New(svc).Apply(ctx, admin, "b", cfg, loops.ApplyOptions{Reason: "b's own floor"}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Remember(mnemo.WithCallerIn(ctx, admin, "b"), []mnemo.NewRecord{{Text: "namespace b's record"}}, mnemo.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := loops.New(svc).Warm(ctx, admin, "b"); err != nil {
		t.Fatal(err)
	}

	srv, err := server.New(server.Config{Service: svc, Keys: st})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()
	id, secret, hash := mnemo.NewAPIKeySecret()
	if err := st.CreateKey(ctx, &mnemo.APIKey{ID: id, Hash: hash, Namespaces: []string{"a"}, Role: mnemo.RoleRead}); err != nil {
		t.Fatal(err)
	}
	hc := &http.Client{Transport: headerTransport{key: secret}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).
		Connect(ctx, &mcp.StreamableClientTransport{Endpoint: ts.URL + "/mcp", HTTPClient: hc}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	res := callTool(t, cs, mcpserver.ToolConfig, map[string]any{})
	if res.IsError || !strings.Contains(text(res), "configuration version 0 of a (active)") || strings.Contains(text(res), "b's own floor") {
		t.Fatalf("config of a: %s", text(res))
	}
	res = callTool(t, cs, mcpserver.ToolConfig, map[string]any{"version": 1})
	if !res.IsError || !strings.Contains(text(res), "not_found") {
		t.Fatalf("a read b's version 1: %s", text(res))
	}
	for _, args := range []map[string]any{{"version": -1}, {"version": "one"}, {"namespace": "b"}} {
		if res := callTool(t, cs, mcpserver.ToolConfig, args); !res.IsError {
			t.Errorf("config %v: %s", args, text(res))
		}
	}
	res = callTool(t, cs, mcpserver.ToolLoopStatus, map[string]any{})
	if res.IsError || !strings.Contains(text(res), "a: configuration version 0") || !strings.Contains(text(res), "no warm run yet") {
		t.Fatalf("status of a: %s", text(res))
	}
	if res := callTool(t, cs, mcpserver.ToolLoopStatus, map[string]any{"namespace": "b"}); !res.IsError {
		t.Fatalf("status took a namespace: %s", text(res))
	}

	// The local user over an in-memory transport sees b as it is.
	local := connect(t, mcpserver.New(svc, mcpserver.Options{Namespace: "b"}))
	res = callTool(t, local, mcpserver.ToolConfig, map[string]any{})
	if res.IsError || !strings.Contains(text(res), "configuration version 1 of b (active) by ops: b's own floor") || !strings.Contains(text(res), `"recency_floor": 0.1`) {
		t.Fatalf("config of b: %s", text(res))
	}
	res = callTool(t, local, mcpserver.ToolLoopStatus, map[string]any{})
	if res.IsError || !strings.Contains(text(res), "b: configuration version 1") || !strings.Contains(text(res), "validation") {
		t.Fatalf("status of b: %s", text(res))
	}
}
