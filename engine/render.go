package engine

import (
	"strconv"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/render"
)

// entryBody renders the part of a digest entry that depends only on the
// record (render.Entry); its token count is stored with the record at
// write time.
func entryBody(r *mnemo.Record) string { return render.Entry(r) }

// oneLine folds whitespace runs into single spaces (render.OneLine).
func oneLine(s string) string { return render.OneLine(s) }

// scorePrefix is what precedes an entry body in a digest line.
func scorePrefix(score float64) string {
	return "- (" + strconv.FormatFloat(score, 'f', 2, 64) + ")"
}

// joinRefs lists the short references of record ids (render.JoinRefs).
func joinRefs(ids []string) string { return render.JoinRefs(ids) }

// clipRunes shortens s to at most n runes (render.ClipRunes).
func clipRunes(s string, n int) string { return render.ClipRunes(s, n) }
