package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// mcpClientDir holds the Node script that drives the official MCP
// TypeScript SDK client (versions pinned by its package-lock.json).
const mcpClientDir = "../../testdata/mcp-client"

// nodeResult is what testdata/mcp-client/client.mjs prints.
type nodeResult struct {
	Transport string `json:"transport"`
	Tools     []struct {
		Name        string         `json:"name"`
		Annotations map[string]any `json:"annotations"`
		InputSchema map[string]any `json:"inputSchema"`
	} `json:"tools"`
	Query struct {
		IsError    bool           `json:"isError"`
		Text       string         `json:"text"`
		Structured map[string]any `json:"structured"`
	} `json:"query"`
	UnknownArgument struct {
		IsError bool   `json:"isError"`
		Text    string `json:"text"`
	} `json:"unknownArgument"`
	Bench *struct {
		Calls int     `json:"calls"`
		P50   float64 `json:"p50_ms"`
		P95   float64 `json:"p95_ms"`
		P99   float64 `json:"p99_ms"`
	} `json:"bench"`
}

func nodeClient(t *testing.T) (node string) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(mcpClientDir, "node_modules", "@modelcontextprotocol", "sdk")); err != nil {
		t.Skip("the MCP TypeScript SDK is not installed: run `npm ci --prefix testdata/mcp-client` first")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not on PATH")
	}
	return node
}

func runNode(t *testing.T, node string, args ...string) nodeResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, append([]string{filepath.Join(mcpClientDir, "client.mjs")}, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("node client %v: %v\n%s\n%s", args, err, stdout.String(), stderr.String())
	}
	var res nodeResult
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
		t.Fatalf("node client output: %v\n%s", err, stdout.String())
	}
	return res
}

func checkNodeResult(t *testing.T, res nodeResult, want string) {
	t.Helper()
	names := map[string]bool{}
	for _, tool := range res.Tools {
		names[tool.Name] = true
		if tool.InputSchema["additionalProperties"] != false {
			t.Errorf("%s: %s accepts unknown arguments", res.Transport, tool.Name)
		}
	}
	for _, n := range []string{"workflow_memory_query", "memory_remember", "memory_recall", "memory_update", "memory_forget"} {
		if !names[n] {
			t.Errorf("%s: tool %s missing", res.Transport, n)
		}
	}
	if res.Query.IsError || !strings.HasPrefix(res.Query.Text, "# Context for:") || !strings.Contains(res.Query.Text, want) {
		t.Errorf("%s: digest text %q", res.Transport, res.Query.Text)
	}
	if res.Query.Structured["markdown"] != res.Query.Text || res.Query.Structured["budget"] != float64(2000) {
		t.Errorf("%s: structured digest %v", res.Transport, res.Query.Structured)
	}
	if !res.UnknownArgument.IsError || !strings.Contains(res.UnknownArgument.Text, "no_such_argument") {
		t.Errorf("%s: unknown argument accepted: %+v", res.Transport, res.UnknownArgument)
	}
}

// TestOfficialMCPClient connects the official TypeScript SDK client to
// `mnemo mcp` (stdio) and `mnemo serve` (streamable HTTP).
func TestOfficialMCPClient(t *testing.T) {
	node := nodeClient(t)
	db := filepath.Join(t.TempDir(), "m.db")
	mustCLI(t, db, "", "remember", "--scope", "/rules/safety", "--importance", "0.9", "Reactor coolant pumps are inspected every Monday")
	mustCLI(t, db, "", "remember", "--kind", "decision", "We chose weekly inspections over monthly ones after the 2025 incident")
	bench := os.Getenv("MNEMO_MCP_BENCH") // e.g. 200: also time workflow_memory_query round trips

	t.Run("stdio", func(t *testing.T) {
		args := []string{"--stdio", mnemoBin, "--db", db, "--task", "plan the coolant pump inspection"}
		if bench != "" {
			args = append(args, "--bench", bench)
		}
		res := runNode(t, node, args...)
		checkNodeResult(t, res, "Reactor coolant pumps")
		if res.Bench != nil {
			t.Logf("stdio workflow_memory_query: %d calls, p50 %.2f ms, p95 %.2f ms, p99 %.2f ms", res.Bench.Calls, res.Bench.P50, res.Bench.P95, res.Bench.P99)
		}
	})
	t.Run("http", func(t *testing.T) {
		addr := freeAddr(t)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		cmd := exec.CommandContext(ctx, mnemoBin, "--db", db, "serve", "--addr", addr, "--log-level", "warn")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		defer func() {
			cancel()
			if err := cmd.Wait(); err != nil && ctx.Err() == nil {
				t.Errorf("serve: %v\n%s", err, stderr.String())
			}
		}()
		waitReady(t, "http://"+addr)
		args := []string{"--http", "http://" + addr + "/mcp", "--task", "plan the coolant pump inspection"}
		if bench != "" {
			args = append(args, "--bench", bench)
		}
		res := runNode(t, node, args...)
		checkNodeResult(t, res, "Reactor coolant pumps")
		if res.Bench != nil {
			t.Logf("http workflow_memory_query: %d calls, p50 %.2f ms, p95 %.2f ms, p99 %.2f ms", res.Bench.Calls, res.Bench.P50, res.Bench.P95, res.Bench.P99)
		}
	})
}

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

func waitReady(t *testing.T, base string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		resp, err := http.Get(base + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatal(fmt.Sprintf("server at %s not ready", base))
}
