//go:build !(linux || darwin || freebsd)

package sqlite

import (
	"io"
	"os"

	"github.com/mnemo-dev/mnemo/memindex"
)

// mapSnapshot reads size bytes of f into memory (no mapping here).
func mapSnapshot(f *os.File, size int) (data []byte, grow memindex.SnapshotGrow, release func(), err error) {
	data = make([]byte, size)
	if _, err := io.ReadFull(f, data); err != nil {
		return nil, nil, nil, err
	}
	return data, nil, func() {}, nil
}
