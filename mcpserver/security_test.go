package mcpserver_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/mcpserver"
	"github.com/mnemo-dev/mnemo/server"
)

// TestStdioAnswersMalformedLines: a line that is not JSON-RPC gets an error
// answer and the session goes on; every answer owed is still given.
func TestStdioAnswersMalformedLines(t *testing.T) {
	svc, _ := openService(t)
	srv := mcpserver.New(svc, mcpserver.Options{})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- mcpserver.ServeIO(context.Background(), srv, inR, outW); outW.Close() }()
	lines := bufio.NewReader(outR)
	send := func(s string) {
		t.Helper()
		if _, err := io.WriteString(inW, s+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	type answer struct {
		ID     json.RawMessage `json:"id"`
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code int `json:"code"`
		} `json:"error"`
	}
	recv := func() answer {
		t.Helper()
		l, err := lines.ReadString('\n')
		if err != nil {
			t.Fatalf("reading an answer: %v", err)
		}
		var a answer
		if err := json.Unmarshal([]byte(l), &a); err != nil {
			t.Fatalf("answer %q: %v", l, err)
		}
		return a
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if a := recv(); string(a.ID) != "1" || a.Result == nil {
		t.Fatalf("initialize: %+v", a)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"`) // cut short
	if a := recv(); a.Error == nil || a.Error.Code != -32700 || string(a.ID) != "null" {
		t.Fatalf("malformed line: %+v", a)
	}
	send(`{"jsonrpc":"1.0","id":3,"method":"tools/list"}`)
	if a := recv(); a.Error == nil || a.Error.Code != -32600 || string(a.ID) != "3" {
		t.Fatalf("not JSON-RPC 2.0: %+v", a)
	}
	send(`[{"jsonrpc":"2.0","id":4,"method":"ping"}]`)
	if a := recv(); a.Error == nil || a.Error.Code != -32600 {
		t.Fatalf("batch: %+v", a)
	}
	send(`{"jsonrpc":"2.0","id":5,"method":"tools/list"}`)
	if a := recv(); string(a.ID) != "5" || !strings.Contains(string(a.Result), mcpserver.ToolQuery) {
		t.Fatalf("tools/list after bad lines: %+v", a)
	}
	inW.Close()
	if err := <-done; err != nil {
		t.Fatalf("serve: %v", err)
	}
}

// TestHTTPSessionsAreBoundToTheirKey: knowing another key's MCP session id
// is not enough to use it or end it.
func TestHTTPSessionsAreBoundToTheirKey(t *testing.T) {
	svc, st := openService(t)
	newKey := func() string {
		id, secret, hash := mnemo.NewAPIKeySecret()
		if err := st.CreateKey(context.Background(), &mnemo.APIKey{ID: id, Hash: hash, Namespaces: []string{"a"}, Role: mnemo.RoleWrite}); err != nil {
			t.Fatal(err)
		}
		return secret
	}
	keyA, keyB := newKey(), newKey()
	srv, err := server.New(server.Config{Service: svc, Keys: st})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()
	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: ts.URL + "/mcp", HTTPClient: &http.Client{Transport: headerTransport{key: keyA}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	sid := cs.ID()
	if sid == "" {
		t.Fatal("no session id")
	}
	as := func(key, method, body string) int {
		req, _ := http.NewRequest(method, ts.URL+"/mcp", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("Mcp-Session-Id", sid)
		req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
	if got := as(keyB, "POST", `{"jsonrpc":"2.0","id":99,"method":"tools/list"}`); got != http.StatusForbidden {
		t.Fatalf("key B used key A's session: %d", got)
	}
	if got := as(keyB, "DELETE", ""); got != http.StatusForbidden {
		t.Fatalf("key B ended key A's session: %d", got)
	}
	res := callTool(t, cs, mcpserver.ToolRemember, map[string]any{"text": "key A's session still works"})
	if res.IsError {
		t.Fatalf("key A after the attempts: %s", text(res))
	}
	if got := as(keyA, "DELETE", ""); got != http.StatusNoContent {
		t.Fatalf("key A ends its own session: %d", got)
	}
}
