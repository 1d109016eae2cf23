package safefile_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/safefile"
)

// hostile returns a folder holding one good file and every kind of name
// that must not be read through it.
func hostile(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(filepath.Join(dir, "good.md"), []byte("# 1. Good\n"), 0o644))
	must(os.WriteFile(filepath.Join(dir, "big.md"), []byte(strings.Repeat("x", 2000)), 0o644))
	must(os.Symlink("/etc/passwd", filepath.Join(dir, "passwd.md")))
	must(os.Symlink("/dev/zero", filepath.Join(dir, "zero.md")))
	must(os.Symlink("good.md", filepath.Join(dir, "inside.md")))
	must(syscall.Mkfifo(filepath.Join(dir, "fifo.md"), 0o644))
	return dir
}

// TestDirReadsRegularFilesInsideOnly: through a Dir, only regular files
// of the folder are read, within the limit; links (in or out of the
// folder), FIFOs and devices are refused without blocking.
func TestDirReadsRegularFilesInsideOnly(t *testing.T) {
	d, err := safefile.Dir(hostile(t), 1000)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if b, err := d.ReadFile("good.md"); err != nil || string(b) != "# 1. Good\n" {
		t.Errorf("good.md: %q %v", b, err)
	}
	if _, err := d.ReadFile("big.md"); mnemo.ErrorCode(err) != mnemo.ETOOLARGE {
		t.Errorf("big.md: %v, want %s", err, mnemo.ETOOLARGE)
	}
	if f, err := d.Open("big.md"); err == nil {
		_, err := fs.ReadFile(struct{ fs.FS }{d}, "big.md")
		f.Close()
		if mnemo.ErrorCode(err) != mnemo.ETOOLARGE {
			t.Errorf("reading big.md through Open: %v, want %s", err, mnemo.ETOOLARGE)
		}
	}
	for _, name := range []string{"passwd.md", "zero.md", "inside.md", "fifo.md", "../x", "/etc/passwd"} {
		if b, err := d.ReadFile(name); err == nil {
			t.Errorf("%s was read: %.40q", name, b)
		}
		if f, err := d.Open(name); err == nil {
			f.Close()
			t.Errorf("%s was opened", name)
		}
	}
	ents, err := d.ReadDir(".")
	if err != nil || len(ents) != 6 {
		t.Errorf("ReadDir: %d entries, %v", len(ents), err)
	}
}

// TestReadFileRefusesFIFOsAndDevices: a file named on the command line is
// read only when it is a regular file, and within the limit.
func TestReadFileRefusesFIFOsAndDevices(t *testing.T) {
	dir := hostile(t)
	for _, name := range []string{"fifo.md", "zero.md"} {
		if _, err := safefile.ReadFile(filepath.Join(dir, name), 1000); mnemo.ErrorCode(err) != mnemo.EINVALID {
			t.Errorf("%s: %v, want %s", name, err, mnemo.EINVALID)
		}
		if f, err := safefile.Open(filepath.Join(dir, name)); err == nil {
			f.Close()
			t.Errorf("%s was opened", name)
		}
	}
	if _, err := safefile.ReadFile(dir, 1000); mnemo.ErrorCode(err) != mnemo.EINVALID {
		t.Errorf("a folder: %v, want %s", err, mnemo.EINVALID)
	}
	if _, err := safefile.ReadFile(filepath.Join(dir, "big.md"), 1000); mnemo.ErrorCode(err) != mnemo.ETOOLARGE {
		t.Errorf("big.md: %v, want %s", err, mnemo.ETOOLARGE)
	}
	if b, err := safefile.ReadFile(filepath.Join(dir, "inside.md"), 1000); err != nil || string(b) != "# 1. Good\n" {
		t.Errorf("a link named by the user to a regular file: %q %v", b, err)
	}
	if _, err := safefile.Dir(filepath.Join(dir, "good.md"), 1000); mnemo.ErrorCode(err) != mnemo.EINVALID {
		t.Errorf("Dir of a file: %v", err)
	}
}
