//go:build !(linux || darwin || freebsd || netbsd || openbsd)

package bench

import "time"

// processCPU reports that the CPU time is not known here.
func processCPU() (time.Duration, bool) { return 0, false }
