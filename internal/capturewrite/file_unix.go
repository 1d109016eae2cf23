//go:build unix

package capturewrite

import (
	"os"
	"syscall"
)

// Files are written with plain system calls: os.OpenFile would also try
// to register each file with the runtime's network poller (four fcntl
// calls and an epoll_ctl per file, and the poller's own set-up on the
// first), and os.Rename would stat the target first. For a capture
// process that writes four small files, that is most of its system calls.

// createExcl writes data to a new file name with mode perm; it fails with
// an error matching os.ErrExist when name exists.
func createExcl(name string, data []byte, perm uint32) error {
	var fd int
	var err error
	for {
		fd, err = syscall.Open(name, syscall.O_WRONLY|syscall.O_CREAT|syscall.O_EXCL|syscall.O_CLOEXEC, perm)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return &os.PathError{Op: "open", Path: name, Err: err}
	}
	for len(data) > 0 {
		n, werr := syscall.Write(fd, data)
		if werr == syscall.EINTR {
			continue
		}
		if werr != nil {
			syscall.Close(fd)
			return &os.PathError{Op: "write", Path: name, Err: werr}
		}
		data = data[n:]
	}
	if err := syscall.Close(fd); err != nil {
		return &os.PathError{Op: "close", Path: name, Err: err}
	}
	return nil
}

// renameFile renames from to to, replacing a file at to.
func renameFile(from, to string) error {
	if err := syscall.Rename(from, to); err != nil {
		return &os.LinkError{Op: "rename", Old: from, New: to, Err: err}
	}
	return nil
}
