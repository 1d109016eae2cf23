// Package safefile reads the files and folders a user names on the command
// line (an ADR folder, a task list, an export to import) without letting a
// name lead anywhere else: only regular files, only inside the named
// folder, never more than a size limit, and without blocking on a FIFO or
// a device. A symbolic link is not followed: it is reported as not a
// regular file.
package safefile

import (
	"io"
	"io/fs"
	"os"

	"github.com/mnemo-dev/mnemo"
)

// DefaultMax is the size limit of a file read whole (ADRs, task lists).
const DefaultMax = 4 << 20

// ReadFile reads the regular file at path whole. A path that is not a
// regular file (a FIFO, a device, a directory) is EINVALID; a file larger
// than max bytes is ETOOLARGE. A symbolic link named on the command line
// is followed only to a regular file.
func ReadFile(path string, max int64) ([]byte, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readAll(f, path, max)
}

// Open opens the regular file at path for reading, for a stream that is
// read in pieces (an import). It never blocks on a FIFO: the file is
// opened non-blocking (which changes nothing for a regular file) and
// refused unless it is regular.
func Open(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|nonBlock, 0)
	if err != nil {
		return nil, err
	}
	if err := regular(f, path); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// regular checks that the open file is a regular file.
func regular(f *os.File, name string) error {
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if !st.Mode().IsRegular() {
		return mnemo.Errorf(mnemo.EINVALID, "%s is not a regular file", name)
	}
	return nil
}

// readAll reads f to its end, refusing more than max bytes.
func readAll(r io.Reader, name string, max int64) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, mnemo.Errorf(mnemo.ETOOLARGE, "%s is larger than %d bytes", name, max)
	}
	return b, nil
}

// FS is a folder whose files are read safely: it implements fs.FS,
// fs.ReadDirFS, fs.ReadFileFS and fs.StatFS for fs.WalkDir and friends.
// Names cannot leave the folder, symbolic links are never followed (Open
// and ReadFile refuse them, as they refuse FIFOs and devices), and a file
// larger than the limit is ETOOLARGE.
type FS struct {
	root *os.Root
	max  int64
}

// Dir opens the folder dir; files read through it are limited to max
// bytes. Close releases it.
func Dir(dir string, max int64) (*FS, error) {
	st, err := os.Stat(dir)
	if err != nil || !st.IsDir() {
		return nil, mnemo.Errorf(mnemo.EINVALID, "%s is not a folder", dir)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	return &FS{root: root, max: max}, nil
}

// Close releases the folder.
func (d *FS) Close() error { return d.root.Close() }

// check refuses names that are not regular files or directories, by their
// own type (a symbolic link is not followed).
func (d *FS) check(op, name string) (fs.FileInfo, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	st, err := d.root.Lstat(name)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() && !st.IsDir() {
		return nil, mnemo.Errorf(mnemo.EINVALID, "%s is not a regular file", name)
	}
	return st, nil
}

// Open opens a regular file or a directory of the folder.
func (d *FS) Open(name string) (fs.File, error) {
	st, err := d.check("open", name)
	if err != nil {
		return nil, err
	}
	f, err := d.root.OpenFile(name, os.O_RDONLY|nonBlock, 0)
	if err != nil {
		return nil, err
	}
	// The name may have been replaced since check: judge what was opened.
	got, err := f.Stat()
	if err != nil || got.IsDir() != st.IsDir() || !(got.IsDir() || got.Mode().IsRegular()) || !os.SameFile(st, got) {
		f.Close()
		return nil, mnemo.Errorf(mnemo.EINVALID, "%s changed while being opened", name)
	}
	if got.IsDir() {
		return f, nil
	}
	return &limited{File: f, name: name, left: d.max}, nil
}

// ReadFile reads a regular file of the folder whole.
func (d *FS) ReadFile(name string) ([]byte, error) {
	f, err := d.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.IsDir() {
		return nil, mnemo.Errorf(mnemo.EINVALID, "%s is a folder", name)
	}
	return readAll(f, name, d.max)
}

// ReadDir lists a directory of the folder, sorted by name. Entries keep
// their own type: a symbolic link is listed as one.
func (d *FS) ReadDir(name string) ([]fs.DirEntry, error) {
	if _, err := d.check("readdir", name); err != nil {
		return nil, err
	}
	return fs.ReadDir(d.root.FS(), name)
}

// Stat describes a name of the folder without following a symbolic link.
func (d *FS) Stat(name string) (fs.FileInfo, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrInvalid}
	}
	return d.root.Lstat(name)
}

// limited is an open regular file that refuses to read past the limit.
type limited struct {
	*os.File
	name string
	left int64
}

func (l *limited) Read(p []byte) (int, error) {
	if l.left < 0 {
		return 0, mnemo.Errorf(mnemo.ETOOLARGE, "%s is too large", l.name)
	}
	if int64(len(p)) > l.left+1 {
		p = p[:l.left+1]
	}
	n, err := l.File.Read(p)
	l.left -= int64(n)
	if l.left < 0 {
		return n, mnemo.Errorf(mnemo.ETOOLARGE, "%s is too large", l.name)
	}
	return n, err
}

// IsTooLarge reports whether err says a file was over its limit.
func IsTooLarge(err error) bool { return mnemo.ErrorCode(err) == mnemo.ETOOLARGE }
