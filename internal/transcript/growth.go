package transcript

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mnemo-dev/mnemo"
)

// GrowthPoint is the size of the file at one commit.
type GrowthPoint struct {
	Commit string    `json:"commit"`
	Time   time.Time `json:"time"` // committer date
	Chars  int       `json:"chars"`
}

// Growth is the growth of one file across git history: a least-squares
// line chars = intercept + chars_per_day·days, where days counts from the
// oldest commit, and its coefficient of determination R². JSON shape:
//
//	{"file", "commits", "days", "first_chars", "last_chars",
//	 "chars_per_day", "intercept", "r2",
//	 "points": [{"commit", "time", "chars"}]}   (oldest first)
type Growth struct {
	File        string        `json:"file"`
	Commits     int           `json:"commits"`
	Days        float64       `json:"days"` // from the oldest to the newest commit
	FirstChars  int           `json:"first_chars"`
	LastChars   int           `json:"last_chars"`
	CharsPerDay float64       `json:"chars_per_day"`
	Intercept   float64       `json:"intercept"`
	R2          float64       `json:"r2"`
	Points      []GrowthPoint `json:"points"`
}

// FileGrowth measures the size in characters (Unicode code points) of file
// at every commit that touched it, following renames (`git log --follow`),
// and fits a line through (days, chars). It runs git in the file's
// repository. It returns ENOTFOUND when the file does not exist or no
// commit touches it, and EINVALID when it is not inside a git work tree.
func FileGrowth(ctx context.Context, file string) (*Growth, error) {
	abs, err := filepath.Abs(file)
	if err != nil {
		return nil, mnemo.Errorf(mnemo.EINVALID, "growth: bad path %q", file)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return nil, mnemo.Errorf(mnemo.ENOTFOUND, "growth: no file %s", file)
	}
	if fi.IsDir() {
		return nil, mnemo.Errorf(mnemo.EINVALID, "growth: %s is a directory", file)
	}
	dir := filepath.Dir(abs)
	top, err := git(ctx, dir, "rev-parse", "--show-toplevel")
	if err != nil {
		return nil, mnemo.Errorf(mnemo.EINVALID, "growth: %s is not inside a git work tree", file)
	}
	topDir := strings.TrimSpace(string(top))
	if real, err := filepath.EvalSymlinks(topDir); err == nil {
		topDir = real
	}
	rel, err := filepath.Rel(topDir, abs)
	if err != nil {
		return nil, fmt.Errorf("growth: %w", err)
	}
	rel = filepath.ToSlash(rel)

	const marker = "\x01commit "
	out, err := git(ctx, topDir, "log", "--follow", "--format="+marker+"%H %ct", "--name-status", "--", rel)
	if err != nil {
		return nil, fmt.Errorf("growth: git log: %w", err)
	}
	type entry struct {
		sha     string
		ct      int64
		path    string
		deleted bool
	}
	var entries []entry // newest first
	cur := rel          // the file's path at the commit being read
	for _, ln := range strings.Split(string(out), "\n") {
		if rest, ok := strings.CutPrefix(ln, marker); ok {
			sha, ct, _ := strings.Cut(rest, " ")
			n, err := strconv.ParseInt(strings.TrimSpace(ct), 10, 64)
			if err != nil {
				return nil, fmt.Errorf("growth: bad git log line %q", ln)
			}
			entries = append(entries, entry{sha: sha, ct: n, path: cur})
			continue
		}
		fields := strings.Split(ln, "\t")
		if len(fields) < 2 || len(entries) == 0 {
			continue
		}
		e := &entries[len(entries)-1]
		status := fields[0]
		switch {
		case strings.HasPrefix(status, "R") || strings.HasPrefix(status, "C"):
			if len(fields) >= 3 {
				e.path = fields[2]
				if status[0] == 'R' {
					cur = fields[1] // older commits know the file by its old name
				}
			}
		case status == "D":
			e.path = fields[1]
			e.deleted = true
		default:
			e.path = fields[1]
		}
	}
	if len(entries) == 0 {
		return nil, mnemo.Errorf(mnemo.ENOTFOUND, "growth: no commit touches %s", file)
	}

	g := &Growth{File: rel, Commits: len(entries)}
	for i := len(entries) - 1; i >= 0; i-- {
		e := entries[i]
		chars := 0
		if !e.deleted {
			content, err := git(ctx, topDir, "show", e.sha+":"+e.path)
			if err != nil {
				return nil, fmt.Errorf("growth: git show %s:%s: %w", e.sha, e.path, err)
			}
			chars = utf8.RuneCount(content)
		}
		g.Points = append(g.Points, GrowthPoint{Commit: e.sha, Time: time.Unix(e.ct, 0).UTC(), Chars: chars})
	}
	xs := make([]float64, len(g.Points))
	ys := make([]float64, len(g.Points))
	t0 := g.Points[0].Time
	for i, p := range g.Points {
		xs[i] = p.Time.Sub(t0).Hours() / 24
		ys[i] = float64(p.Chars)
	}
	g.Days = xs[len(xs)-1]
	g.FirstChars = g.Points[0].Chars
	g.LastChars = g.Points[len(g.Points)-1].Chars
	g.CharsPerDay, g.Intercept, g.R2 = Fit(xs, ys)
	return g, nil
}

// Fit returns the ordinary least-squares line y = intercept + slope·x and
// its coefficient of determination R² = 1 - SS_res/SS_tot. With fewer than
// two points, or all x equal, the slope is 0, the intercept the mean of y
// and R² 0; when all y are equal (and the x are not) the fit is exact and
// R² is 1.
func Fit(xs, ys []float64) (slope, intercept, r2 float64) {
	n := float64(len(xs))
	if len(xs) == 0 || len(xs) != len(ys) {
		return 0, 0, 0
	}
	var mx, my float64
	for i := range xs {
		mx += xs[i]
		my += ys[i]
	}
	mx /= n
	my /= n
	var sxx, sxy, syy float64
	for i := range xs {
		dx, dy := xs[i]-mx, ys[i]-my
		sxx += dx * dx
		sxy += dx * dy
		syy += dy * dy
	}
	if len(xs) < 2 || sxx == 0 {
		return 0, my, 0
	}
	slope = sxy / sxx
	intercept = my - slope*mx
	if syy == 0 {
		return slope, intercept, 1
	}
	var ssr float64
	for i := range xs {
		d := ys[i] - (intercept + slope*xs[i])
		ssr += d * d
	}
	return slope, intercept, 1 - ssr/syy
}

func git(ctx context.Context, dir string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir, "-c", "core.quotePath=false"}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return nil, fmt.Errorf("%s", strings.TrimSpace(stderr.String()))
		}
		return nil, err
	}
	return out, nil
}
