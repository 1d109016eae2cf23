package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"strconv"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/score"
)

// scoreRow is one input line of `mnemo score`. Missing fields take the
// preset's values (alpha = semantic weight, beta = recency weight, gamma =
// importance weight, floor, half_life = the preset's default).
type scoreRow struct {
	Semantic   *float64 `json:"semantic"`
	Days       *float64 `json:"days"`
	Importance *float64 `json:"importance"`
	HalfLife   *float64 `json:"half_life"`
	Alpha      *float64 `json:"alpha"`
	Beta       *float64 `json:"beta"`
	Gamma      *float64 `json:"gamma"`
	Floor      *float64 `json:"floor"`
	Scope      *string  `json:"scope"` // resolves half_life when it is not given
	Score      *float64 `json:"score"` // ignored: lets golden files be piped in as they are
}

func cmdScore(ctx context.Context, a *app, args []string) error {
	fs := flag.NewFlagSet("score", flag.ContinueOnError)
	presetName := fs.String("preset", "aura", "preset whose formula and defaults apply")
	pos, err := a.parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		return usagef("score reads JSONL rows on stdin and takes no arguments")
	}
	p, err := score.Lookup(*presetName)
	if err != nil {
		return err
	}
	val := func(v *float64, def float64) float64 {
		if v == nil {
			return def
		}
		return *v
	}
	sc := bufio.NewScanner(a.stdin)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	out := bufio.NewWriter(a.stdout)
	defer out.Flush()
	line := 0
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		var r scoreRow
		if err := dec.Decode(&r); err != nil {
			return mnemo.Errorf(mnemo.EINVALID, "line %d: %v", line, err)
		}
		if r.Semantic == nil || r.Days == nil || r.Importance == nil {
			return mnemo.Errorf(mnemo.EINVALID, "line %d: semantic, days and importance are required", line)
		}
		half := p.DefaultHalfLife
		if r.Scope != nil {
			half = p.HalfLife(*r.Scope)
		}
		s := score.ComputeScore(*r.Semantic, *r.Days, *r.Importance, val(r.HalfLife, half),
			val(r.Alpha, p.Weights.Semantic), val(r.Beta, p.Weights.Recency), val(r.Gamma, p.Weights.Importance), val(r.Floor, p.Floor))
		fmt.Fprintf(out, "{\"score\": %s}\n", strconv.FormatFloat(s, 'f', -1, 64))
	}
	if err := sc.Err(); err != nil {
		return mnemo.Errorf(mnemo.EINVALID, "line %d: %v", line+1, err)
	}
	return nil
}
