package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseMix(t *testing.T) {
	for _, c := range []struct {
		in     string
		r, w   int
		failed bool
	}{
		{"90:10", 90, 10, false}, {"100:0", 100, 0, false}, {" 1 : 3 ", 1, 3, false}, {"0:1", 0, 1, false},
		{"90", 0, 0, true}, {"0:0", 0, 0, true}, {"-1:2", 0, 0, true}, {"a:b", 0, 0, true},
	} {
		r, w, err := parseMix(c.in)
		if (err != nil) != c.failed || r != c.r || w != c.w {
			t.Errorf("parseMix(%q) = %d, %d, %v", c.in, r, w, err)
		}
	}
}

func TestLoadtestMix(t *testing.T) {
	var out, errb bytes.Buffer
	db := filepath.Join(t.TempDir(), "load.db")
	code := run(context.Background(), []string{"--db", db, "loadtest", "--records", "40", "--clients", "1,3", "--requests", "20", "--mix", "75:25"},
		strings.NewReader(""), &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var digests, writes int
	for _, line := range strings.Split(out.String(), "\n") {
		f := strings.Fields(line)
		if len(f) == 8 && f[1] == "digest" && f[2] == "15" {
			digests++
		}
		if len(f) == 8 && f[1] == "write" && f[2] == "5" {
			writes++
		}
	}
	if digests != 2 || writes != 2 {
		t.Errorf("want a digest and a write row (15 and 5 requests) per client count:\n%s", out.String())
	}
	if code := run(context.Background(), []string{"--db", db, "loadtest", "--mix", "9"}, strings.NewReader(""), &out, &errb); code != 2 {
		t.Errorf("bad --mix: exit %d", code)
	}
}
