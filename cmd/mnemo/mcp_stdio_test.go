package main

import (
	"bufio"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestMCPStdioSurvivesAMalformedLine: `mnemo mcp` answers a line that is
// not JSON with a JSON-RPC parse error and goes on serving; it exits 0 when
// stdin ends.
func TestMCPStdioSurvivesAMalformedLine(t *testing.T) {
	cmd := exec.Command(mnemoBin, "--db", filepath.Join(t.TempDir(), "m.db"), "mcp")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	out := bufio.NewReader(stdout)
	exchange := func(line, want string) {
		t.Helper()
		if _, err := io.WriteString(stdin, line+"\n"); err != nil {
			t.Fatal(err)
		}
		if want == "" {
			return
		}
		got, err := out.ReadString('\n')
		if err != nil || !strings.Contains(got, want) {
			t.Fatalf("after %q: got %q (%v), want %q", line, got, err, want)
		}
	}
	exchange(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`, `"id":1,"result"`)
	exchange(`{"jsonrpc":"2.0","method":"notifications/initialized"}`, "")
	exchange(`{"jsonrpc":"2.0","id":2,"method":"tools/list"`, `"code":-32700`)
	exchange(`{"jsonrpc":"2.0","id":3,"method":"tools/list"}`, `"id":3,"result"`)
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("mnemo mcp: %v", err)
	}
}
