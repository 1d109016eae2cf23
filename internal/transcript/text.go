package transcript

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// WriteText renders the report as plain-text tables: one row per session,
// the summary, and the growth fit when present.
func (r *Report) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "SESSION\tSTART\tFIRST REQUEST TOKENS\tREADS\tREADS BEFORE EDIT\tFILES READ\tREDUNDANCY\tREQUESTS\t")
	for _, s := range r.Sessions {
		start := "-"
		if !s.Start.IsZero() {
			start = s.Start.UTC().Format("2006-01-02 15:04")
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%.2f\t%d\t\n", s.SessionID, start, s.FirstRequestTokens,
			s.Reads, s.ReadsBeforeFirstEdit, s.FilesRead, s.Redundancy, s.Requests)
	}
	if err := tw.Flush(); err != nil {
		return err
	}

	sm := r.Summary
	fmt.Fprintf(w, "\n%d sessions\n", sm.Sessions)
	tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "METRIC\tMEDIAN\tMEAN\tP10\tP90\t")
	for _, m := range []struct {
		name string
		st   Stats
		f    string
	}{
		{"T first request tokens", sm.FirstRequestTokens, "%.0f"},
		{"K reads", sm.Reads, "%.1f"},
		{"W redundancy", sm.Redundancy, "%.2f"},
	} {
		fmt.Fprintf(tw, "%s\t"+m.f+"\t"+m.f+"\t"+m.f+"\t"+m.f+"\t\n", m.name, m.st.Median, m.st.Mean, m.st.P10, m.st.P90)
	}
	if err := tw.Flush(); err != nil {
		return err
	}

	if g := r.Growth; g != nil {
		fmt.Fprintf(w, "\ngrowth of %s: %d commits over %.1f days, %d -> %d chars, %.1f chars/day (R² %.3f)\n",
			g.File, g.Commits, g.Days, g.FirstChars, g.LastChars, g.CharsPerDay, g.R2)
	}
	return nil
}
