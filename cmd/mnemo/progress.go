package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"golang.org/x/term"
)

// progress returns a callback that shows done/total on w: a bar redrawn in
// place (at most ten times a second, cleared when done) on a terminal,
// else one line per call (so logs and tests can follow it).
func progress(w io.Writer, label string) func(done, total int) {
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		var last time.Time
		return func(done, total int) {
			if done >= total {
				fmt.Fprint(w, "\r\x1b[K")
				return
			}
			if now := time.Now(); now.Sub(last) >= 100*time.Millisecond {
				last = now
				fmt.Fprint(w, "\r"+progressLine(label, done, total)+"\x1b[K")
			}
		}
	}
	return func(done, total int) {
		fmt.Fprintf(w, "%s: %d/%d\n", label, done, total)
	}
}

// progressLine renders "label  45% [=========>          ] (450/1000)".
func progressLine(label string, done, total int) string {
	const width = 30
	frac := 0.0
	if total > 0 {
		frac = min(max(float64(done)/float64(total), 0), 1)
	}
	fill := int(frac * width)
	bar := strings.Repeat("=", fill)
	if fill < width {
		bar += ">" + strings.Repeat(" ", width-fill-1)
	}
	return fmt.Sprintf("%s %3.0f%% [%s] (%d/%d)", label, 100*frac, bar, done, total)
}
