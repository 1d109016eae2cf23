package locomotest

import (
	"os"
	"path/filepath"
	"testing"
)

func TestResolve(t *testing.T) {
	if p, err := Resolve(""); p != "" || err != nil {
		t.Errorf("empty: %q %v", p, err)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "locomo10.json")
	if err := os.WriteFile(file, []byte("[]"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{file, dir} {
		if p, err := Resolve(v); p != file || err != nil {
			t.Errorf("%s: %q %v, want %s", v, p, err, file)
		}
	}
	if _, err := Resolve(filepath.Join(dir, "nothing.json")); err == nil {
		t.Error("a missing file: no error")
	}
	// Relative paths are taken from the repository's root, wherever the
	// test runs.
	if p, err := Resolve("internal/locomotest/locomotest.go"); err != nil || filepath.Base(p) != "locomotest.go" {
		t.Errorf("relative: %q %v", p, err)
	}
	root, err := repoRoot()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Errorf("root %s holds no go.mod", root)
	}
}
