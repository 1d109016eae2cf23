//go:build !unix

package capturewrite

import (
	"errors"
	"io/fs"
	"os"
)

// createExcl writes data to a new file name with mode perm; it fails with
// an error matching os.ErrExist when name exists.
func createExcl(name string, data []byte, perm uint32) error {
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, fs.FileMode(perm))
	if err != nil {
		return err
	}
	_, werr := f.Write(data)
	return errors.Join(werr, f.Close())
}

// renameFile renames from to to, replacing a file at to.
func renameFile(from, to string) error { return os.Rename(from, to) }
