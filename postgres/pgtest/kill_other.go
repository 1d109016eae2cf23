//go:build !unix

package pgtest

import "os"

// killGroup kills process pid (process groups are a Unix notion).
func killGroup(pid int) {
	if p, err := os.FindProcess(pid); err == nil {
		p.Kill()
	}
}

// alive reports whether process pid may still exist: unknown here.
func alive(pid int) bool { return false }
