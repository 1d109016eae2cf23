package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestMetricsKeyAndLastRevocation: a metrics key needs no namespace, and
// revoking the last active key says what the server does next.
func TestMetricsKeyAndLastRevocation(t *testing.T) {
	db := filepath.Join(t.TempDir(), "m.db")
	var k struct {
		ID   string `json:"id"`
		Role string `json:"role"`
	}
	if err := json.Unmarshal([]byte(mustCLI(t, db, "", "--json", "keys", "create", "--role", "metrics", "--name", "prometheus")), &k); err != nil || k.Role != "metrics" {
		t.Fatalf("metrics key: %+v %v", k, err)
	}
	if _, errs, code := cli(t, db, "", "keys", "create", "--role", "read"); code == 0 || !strings.Contains(errs, "--namespaces") {
		t.Fatalf("a read key without namespaces: %d %s", code, errs)
	}
	_, errs, code := cli(t, db, "", "keys", "revoke", k.ID)
	if code != 0 || !strings.Contains(errs, "last active key") {
		t.Fatalf("revoking the last key: %d %s", code, errs)
	}
}
