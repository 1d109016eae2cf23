package main

import (
	"fmt"
	"io"
	"os"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// progress returns a callback that shows done/total on w: a bar on a
// terminal, else one line per call (so logs and tests can follow it).
func progress(w io.Writer, label string) func(done, total int) {
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		var bar *progressbar.ProgressBar
		return func(done, total int) {
			if bar == nil {
				bar = progressbar.NewOptions(total, progressbar.OptionSetWriter(w), progressbar.OptionSetDescription(label),
					progressbar.OptionShowCount(), progressbar.OptionThrottle(100_000_000), progressbar.OptionClearOnFinish())
			}
			_ = bar.Set(done)
			if done >= total {
				_ = bar.Finish()
			}
		}
	}
	return func(done, total int) {
		fmt.Fprintf(w, "%s: %d/%d\n", label, done, total)
	}
}
