// Package locomotest finds the real LoCoMo data (locomo10.json, from
// github.com/snap-research/locomo; not shipped here) for the tests that run
// on it. Those runs are benchmarks: they take minutes, so they run only when
// MNEMO_LOCOMO asks for them, never in a plain `go test ./...`.
//
// MNEMO_LOCOMO is a path to locomo10.json or to the folder that holds it
// (a relative path is taken from the repository's root, since tests run in
// their package's folder), or 1 for the copy beside the repository,
// ../shared/data/locomo/locomo10.json from its root:
//
//	MNEMO_LOCOMO=1 go test ./bench/ -run LoCoMoReal -v
package locomotest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// Env is the environment variable that asks for the LoCoMo runs.
const Env = "MNEMO_LOCOMO"

// File returns the LoCoMo file MNEMO_LOCOMO names, and skips t when it is
// not set. A file that is named but missing fails t: the run was asked for.
func File(t testing.TB) string {
	t.Helper()
	path, err := Resolve(os.Getenv(Env))
	if err != nil {
		t.Fatal(err)
	}
	if path == "" {
		t.Skipf("%s is not set: a benchmark on the real LoCoMo data (set it to locomo10.json, or 1 for ../shared/data/locomo/locomo10.json beside the repository)", Env)
	}
	return path
}

// Resolve turns a value of MNEMO_LOCOMO into the path of the file: "" for
// an empty value, an error when the file it names does not exist.
func Resolve(v string) (string, error) {
	if v == "" {
		return "", nil
	}
	path := v
	if !filepath.IsAbs(path) {
		root, err := repoRoot()
		if err != nil {
			return "", err
		}
		if v == "1" {
			path = filepath.Join(root, "..", "shared", "data", "locomo", "locomo10.json")
		} else {
			path = filepath.Join(root, path)
		}
	}
	fi, err := os.Stat(path)
	if err == nil && fi.IsDir() {
		path = filepath.Join(path, "locomo10.json")
		_, err = os.Stat(path)
	}
	if err != nil {
		return "", fmt.Errorf("%s=%s: LoCoMo data not found: %w", Env, v, err)
	}
	return path, nil
}

// repoRoot is the nearest folder at or above the working directory that
// holds go.mod.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod at or above the working directory: cannot place a relative " + Env)
		}
		dir = parent
	}
}
