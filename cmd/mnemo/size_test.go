package main

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{"0": 0, "4096": 4096, "256MiB": 256 << 20, "1GiB": 1 << 30, "1gib": 1 << 30,
		"1.5GiB": 3 << 29, "512M": 512 << 20, "100MB": 100e6, "2 GiB": 2 << 30, "64k": 64 << 10, "10B": 10} {
		if got, err := parseSize(in); err != nil || got != want {
			t.Errorf("parseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "banana", "-1", "-5MiB", "1.2.3GiB", "12 parsecs", "MiB", "1e30", "99999999999TiB"} {
		if got, err := parseSize(in); err == nil {
			t.Errorf("parseSize(%q) = %d, want an error", in, got)
		}
	}
}

// TestServeIndexMemoryInvalid: a bad --index-memory or MNEMO_INDEX_MEMORY
// stops serve with a usage error naming the value, before it opens
// anything.
func TestServeIndexMemoryInvalid(t *testing.T) {
	db := filepath.Join(t.TempDir(), "m.db")
	for _, bad := range []string{"banana", "-1", "-256MiB"} {
		_, errs, code := cli(t, db, "", "serve", "--addr", "127.0.0.1:0", "--index-memory", bad)
		if code != 2 || !strings.Contains(errs, "--index-memory") || !strings.Contains(errs, bad) {
			t.Errorf("--index-memory %s: exit %d, %q", bad, code, errs)
		}
	}
	t.Setenv("MNEMO_INDEX_MEMORY", "lots")
	if _, errs, code := cli(t, db, "", "serve", "--addr", "127.0.0.1:0"); code != 2 || !strings.Contains(errs, "MNEMO_INDEX_MEMORY") {
		t.Errorf("MNEMO_INDEX_MEMORY=lots: exit %d, %q", code, errs)
	}
}
