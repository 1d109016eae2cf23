// Package gitlog reads a repository's commit history (through the git
// command) into mnemo records: one workflow event per commit, with the
// commit as provenance, its author date as the record time and the part of
// the tree it touched most as the component.
package gitlog

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mnemo-dev/mnemo"
)

// Commit is one commit of the history.
type Commit struct {
	Hash    string
	Author  string
	At      time.Time
	Subject string
	Body    string
	Files   []string // paths changed, slash-separated
}

// The log format: a record separator before each commit, unit separators
// between its fields; git prints the changed files after the body.
const (
	recSep  = "\x1e"
	unitSep = "\x1f"
	format  = recSep + "%H" + unitSep + "%aI" + unitSep + "%an" + unitSep + "%s" + unitSep + "%b" + unitSep
)

// Parse reads the output of `git log --format=<format> --name-only`.
// Commits that do not parse (a bad hash or date) are an error: the output
// is the git command's, not user text.
func Parse(out []byte) ([]Commit, error) {
	if !utf8.Valid(out) {
		out = bytes.ToValidUTF8(out, []byte("\uFFFD"))
	}
	var commits []Commit
	for _, chunk := range strings.Split(string(out), recSep) {
		if strings.TrimSpace(chunk) == "" {
			continue
		}
		f := strings.SplitN(chunk, unitSep, 6)
		if len(f) != 6 {
			return nil, fmt.Errorf("gitlog: malformed commit entry (%d fields)", len(f))
		}
		hash := strings.TrimSpace(f[0])
		if len(hash) < 7 || strings.Trim(hash, "0123456789abcdef") != "" {
			return nil, fmt.Errorf("gitlog: malformed commit hash %q", hash)
		}
		at, err := time.Parse(time.RFC3339, strings.TrimSpace(f[1]))
		if err != nil {
			return nil, fmt.Errorf("gitlog: commit %s: bad date %q", hash, f[1])
		}
		c := Commit{Hash: hash, At: at.UTC(), Author: strings.TrimSpace(f[2]), Subject: strings.TrimSpace(f[3]),
			Body: strings.TrimSpace(f[4])}
		for _, l := range strings.Split(f[5], "\n") {
			if l = strings.TrimSpace(l); l != "" {
				c.Files = append(c.Files, l)
			}
		}
		commits = append(commits, c)
	}
	return commits, nil
}

// Options select the commits Read returns.
type Options struct {
	Rev   string    // revision or range, default HEAD
	Since time.Time // only commits authored at or after it (zero: all)
	Max   int       // at most this many, newest first (0: 1000)
	Paths []string  // only commits touching these paths (none: all)
}

// Read runs `git log` in the repository at dir (merges left out) and parses
// its output. It fails clearly when git is missing or dir is not a
// repository.
func Read(ctx context.Context, dir string, opt Options) ([]Commit, error) {
	if opt.Max <= 0 {
		opt.Max = 1000
	}
	if opt.Rev == "" {
		opt.Rev = "HEAD"
	}
	if strings.HasPrefix(opt.Rev, "-") {
		return nil, mnemo.Errorf(mnemo.EINVALID, "revision %q looks like an option", opt.Rev)
	}
	git, err := exec.LookPath("git")
	if err != nil {
		return nil, mnemo.Errorf(mnemo.EINVALID, "the git command is needed to read history: %v", err)
	}
	args := []string{"-C", dir, "log", "--no-merges", "--no-color", "--format=" + format, "--name-only",
		fmt.Sprintf("--max-count=%d", opt.Max)}
	if !opt.Since.IsZero() {
		args = append(args, "--since="+opt.Since.UTC().Format(time.RFC3339))
	}
	args = append(args, opt.Rev, "--")
	args = append(args, opt.Paths...)
	cmd := exec.CommandContext(ctx, git, args...)
	cmd.Env = append(cmd.Environ(), "LC_ALL=C", "GIT_PAGER=cat")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		var ee *exec.ExitError
		if errors.As(err, &ee) && msg != "" {
			return nil, mnemo.Errorf(mnemo.EINVALID, "git log in %s: %s", dir, firstLine(msg))
		}
		return nil, fmt.Errorf("git log in %s: %w", dir, err)
	}
	return Parse(out)
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// Component returns the part of the tree a commit touched most: the
// deepest directory (at most two levels) holding most of its files, "" when
// the commit touched only top-level files.
func (c Commit) Component() string {
	count := map[string]int{}
	for _, f := range c.Files {
		parts := strings.Split(f, "/")
		if len(parts) < 2 {
			continue
		}
		count[parts[0]]++
		if len(parts) > 2 {
			count[parts[0]+"/"+parts[1]]++
		}
	}
	best, n := "", 0
	keys := make([]string, 0, len(count))
	for k := range count {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		// A subdirectory wins over its parent only when it holds all of
		// the parent's files in the commit.
		if v := count[k]; v > n || (v == n && strings.HasPrefix(k, best+"/")) {
			best, n = k, v
		}
	}
	return best
}

// ID is the record id of a commit imported into namespace ns: a ULID with
// the commit's time and entropy from SHA-256 of the namespace and the hash,
// so importing the history again skips what is there.
func (c Commit) ID(ns string) string {
	return mnemo.DerivedID(c.At, "git", ns, c.Hash)
}

// MaxBody bounds how much of a commit body a record keeps.
const MaxBody = 2000

// Record returns the commit as a record of namespace ns: kind event
// (workflow layer), scope /git/<repo>, "subject — body" as the text,
// "commit:<hash>" and "author:<name>" as provenance, importance 0.3 (a
// history holds many commits), confidence 1 (it is what happened).
func (c Commit) Record(ns, repo string) *mnemo.Record {
	text := c.Subject
	if b := strings.Join(strings.Fields(c.Body), " "); b != "" {
		if len(b) > MaxBody {
			cut := MaxBody
			for cut > 0 && !utf8.RuneStart(b[cut]) {
				cut--
			}
			b = b[:cut] + "…"
		}
		text += " — " + b
	}
	if strings.TrimSpace(text) == "" {
		text = "commit " + c.Hash
	}
	prov := []string{"commit:" + c.Hash}
	if c.Author != "" {
		prov = append(prov, "author:"+c.Author)
	}
	scope := "/git"
	if r := sanitize(filepath.Base(repo)); r != "" {
		scope += "/" + r
	}
	return &mnemo.Record{ID: c.ID(ns), Namespace: ns, Kind: mnemo.KindEvent, Layer: mnemo.LayerWorkflow, Scope: scope,
		Text: text, Importance: 0.3, Confidence: 1, Source: "import:git", Provenance: prov, Component: c.Component(),
		CreatedAt: c.At, UpdatedAt: c.At, ValidFrom: c.At}
}

// sanitize keeps a repository name usable as a scope segment.
func sanitize(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			b.WriteRune(r)
		default:
			b.WriteByte('-')
		}
	}
	return strings.Trim(b.String(), ".-")
}
