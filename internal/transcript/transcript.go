// Package transcript measures what Claude Code sessions cost: how many
// tokens the first request carried, how many files were read, and how many
// of those reads were never used again. It reads the JSONL transcripts that
// Claude Code writes under ~/.claude/projects/<project>/<session>.jsonl.
//
// # Transcript lines
//
// Every line is one JSON object with a "type". Lines of type "user" and
// "assistant" carry "sessionId", "uuid", "parentUuid", "isSidechain",
// "timestamp" and a "message"; assistant lines also carry "requestId", and
// their message has "id", "model", "content" (a list of blocks: "text",
// "thinking", "tool_use" with "name" and "input", …) and "usage"
// ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens",
// "output_tokens"). Every other type ("summary", "system",
// "file-history-snapshot", "queue-operation", …) and every line that is not
// valid JSON is skipped.
//
// Claude Code writes one API response as several assistant lines, one per
// content block, each repeating the message id, the request id and the
// usage. Usage is therefore counted once per (message id, request id),
// while every content block of every line is counted (a line repeated
// verbatim, same "uuid", is counted once). Sidechain lines (subagents,
// "isSidechain": true) are ignored, and messages whose model is
// "<synthetic>" (written by the client, not the API) never count as the
// first request. Lines are grouped into sessions by "sessionId" (the file
// name when it is missing), so a session split over several files is one
// session.
package transcript

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/stats"
)

// SyntheticModel is the model name Claude Code gives messages it wrote
// itself.
const SyntheticModel = "<synthetic>"

// ReadTool is the name of the file-read tool.
const ReadTool = "Read"

// editTools are the tools that change a file.
var editTools = []string{"Edit", "MultiEdit", "Write", "NotebookEdit"}

// Session holds the metrics of one session. Only the fields with a JSON
// name are part of the JSON report.
type Session struct {
	SessionID string `json:"session_id"`
	// FirstRequestTokens is T: input + cache creation + cache read tokens
	// of the first non-sidechain, non-synthetic request.
	FirstRequestTokens int `json:"first_request_tokens"`
	// Reads is K: the number of Read tool calls.
	Reads int `json:"reads"`
	// ReadsBeforeFirstEdit is the number of Read calls before the first
	// Edit, MultiEdit, Write or NotebookEdit call (all of them when there is
	// no edit).
	ReadsBeforeFirstEdit int `json:"reads_before_first_edit"`
	// Redundancy is W, in 0..1: the share of distinct files read that were
	// never edited, written, or read again in a later step (a later API
	// response) after their first read; 0 when no file was read.
	Redundancy float64 `json:"redundancy"`

	FilesRead      int       `json:"-"` // distinct files read
	RedundantFiles int       `json:"-"` // files read and never used again
	Requests       int       `json:"-"` // distinct (message id, request id) pairs
	InputTokens    int       `json:"-"` // input + cache tokens over all requests
	OutputTokens   int       `json:"-"` // output tokens over all requests
	ToolCalls      int       `json:"-"` // tool_use blocks
	Start          time.Time `json:"-"` // first line's timestamp
}

// Stats summarises one metric over sessions; see Summarize for the
// percentile method.
type Stats struct {
	Median float64 `json:"median"`
	Mean   float64 `json:"mean"`
	P10    float64 `json:"p10"`
	P90    float64 `json:"p90"`
}

// Summary summarises all sessions.
type Summary struct {
	Sessions           int   `json:"sessions"`
	FirstRequestTokens Stats `json:"first_request_tokens"`
	Reads              Stats `json:"reads"`
	Redundancy         Stats `json:"redundancy"`
}

// Report is the output of `mnemo analyze sessions`:
//
//	{"sessions": [{"session_id", "first_request_tokens", "reads",
//	  "reads_before_first_edit", "redundancy"}],
//	 "summary": {"sessions": N,
//	  "first_request_tokens": {"median", "mean", "p10", "p90"},
//	  "reads": {…}, "redundancy": {…}},
//	 "growth": {…}}   (only with --growth; see Growth)
type Report struct {
	Sessions []Session `json:"sessions"`
	Summary  Summary   `json:"summary"`
	Growth   *Growth   `json:"growth,omitempty"`
}

type line struct {
	Type        string          `json:"type"`
	SessionID   string          `json:"sessionId"`
	UUID        string          `json:"uuid"`
	IsSidechain bool            `json:"isSidechain"`
	Timestamp   string          `json:"timestamp"`
	RequestID   string          `json:"requestId"`
	Message     json.RawMessage `json:"message"`
}

type message struct {
	ID      string          `json:"id"`
	Model   string          `json:"model"`
	Content json.RawMessage `json:"content"`
	Usage   *usage          `json:"usage"`
}

type usage struct {
	InputTokens              int `json:"input_tokens"`
	CacheCreationInputTokens int `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int `json:"cache_read_input_tokens"`
	OutputTokens             int `json:"output_tokens"`
}

func (u usage) input() int {
	return u.InputTokens + u.CacheCreationInputTokens + u.CacheReadInputTokens
}

type block struct {
	Type  string `json:"type"`
	ID    string `json:"id"`
	Name  string `json:"name"`
	Input struct {
		FilePath     string `json:"file_path"`
		NotebookPath string `json:"notebook_path"`
	} `json:"input"`
}

// event is one kept line, in order.
type event struct {
	ts    time.Time
	seq   int // order of appearance, for a stable sort
	typ   string
	reqID string
	msg   message
}

// Analyzer accumulates transcript lines and computes session metrics.
// The zero value is ready to use.
type Analyzer struct {
	sessions map[string][]event
	seen     map[string]bool // session + uuid
	seq      int
}

// Add reads transcript lines from r. name (a file name) is the session id
// for lines without one. Unknown line types and lines that are not JSON
// are skipped; only a read error is returned.
func (a *Analyzer) Add(r io.Reader, name string) error {
	if a.sessions == nil {
		a.sessions = map[string][]event{}
		a.seen = map[string]bool{}
	}
	br := bufio.NewReaderSize(r, 1<<16)
	for {
		raw, err := br.ReadBytes('\n')
		if len(raw) > 0 {
			a.addLine(raw, name)
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

func (a *Analyzer) addLine(raw []byte, name string) {
	var l line
	if err := json.Unmarshal(raw, &l); err != nil {
		return
	}
	if l.Type != "user" && l.Type != "assistant" {
		return
	}
	if l.IsSidechain {
		return
	}
	sid := l.SessionID
	if sid == "" {
		sid = name
	}
	if l.UUID != "" {
		key := sid + "\x00" + l.UUID
		if a.seen[key] {
			return
		}
		a.seen[key] = true
	}
	ts, _ := time.Parse(time.RFC3339Nano, l.Timestamp) // zero when missing or malformed
	ev := event{ts: ts, seq: a.seq, typ: l.Type, reqID: l.RequestID}
	a.seq++
	if l.Type == "assistant" && len(l.Message) > 0 {
		if err := json.Unmarshal(l.Message, &ev.msg); err != nil {
			return
		}
	}
	a.sessions[sid] = append(a.sessions[sid], ev)
}

// Sessions returns the metrics of every session seen so far that made at
// least one request (has a non-sidechain assistant line), ordered by start
// time, then id.
func (a *Analyzer) Sessions() []Session {
	out := make([]Session, 0, len(a.sessions))
	for id, evs := range a.sessions {
		if !slices.ContainsFunc(evs, func(e event) bool { return e.typ == "assistant" }) {
			continue
		}
		out = append(out, analyze(id, evs))
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].Start.Equal(out[j].Start) {
			return out[i].Start.Before(out[j].Start)
		}
		return out[i].SessionID < out[j].SessionID
	})
	return out
}

func isEdit(name string) bool { return slices.Contains(editTools, name) }

func analyze(id string, evs []event) Session {
	// Files of several transcripts (a resumed session) are merged by
	// timestamp; lines without a timestamp keep their place.
	sort.SliceStable(evs, func(i, j int) bool {
		if evs[i].ts.IsZero() || evs[j].ts.IsZero() {
			return evs[i].seq < evs[j].seq
		}
		return evs[i].ts.Before(evs[j].ts)
	})
	s := Session{SessionID: id}
	if len(evs) > 0 {
		s.Start = evs[0].ts
	}
	type fileUse struct {
		firstRead int  // step of the first read
		used      bool // edited, written, or read again in a later step
	}
	files := map[string]*fileUse{}
	var order []string
	seenReq := map[string]bool{}
	seenTool := map[string]bool{}
	firstDone, edited := false, false
	stepOf := map[string]int{}
	steps := 0
	for _, ev := range evs {
		if ev.typ != "assistant" {
			continue
		}
		m := ev.msg
		// A step is one API response: the lines with the same message id
		// and request id (a line without ids is a step of its own).
		key := m.ID + "\x00" + ev.reqID
		step, ok := stepOf[key]
		if !ok || (m.ID == "" && ev.reqID == "") {
			step = steps
			steps++
			stepOf[key] = step
		}
		if m.Usage != nil && !seenReq[key] {
			if m.ID != "" || ev.reqID != "" {
				seenReq[key] = true
			}
			s.Requests++
			s.InputTokens += m.Usage.input()
			s.OutputTokens += m.Usage.OutputTokens
			if !firstDone && m.Model != SyntheticModel {
				s.FirstRequestTokens = m.Usage.input()
				firstDone = true
			}
		}
		var blocks []block
		if len(m.Content) > 0 && m.Content[0] == '[' {
			if err := json.Unmarshal(m.Content, &blocks); err != nil {
				continue
			}
		}
		for _, b := range blocks {
			if b.Type != "tool_use" {
				continue
			}
			if b.ID != "" {
				if seenTool[b.ID] {
					continue
				}
				seenTool[b.ID] = true
			}
			s.ToolCalls++
			p := b.Input.FilePath
			if p == "" {
				p = b.Input.NotebookPath
			}
			if p != "" {
				p = path.Clean(filepath.ToSlash(p))
			}
			switch {
			case b.Name == ReadTool:
				s.Reads++
				if !edited {
					s.ReadsBeforeFirstEdit++
				}
				if p == "" {
					break
				}
				if f, ok := files[p]; !ok {
					files[p] = &fileUse{firstRead: step}
					order = append(order, p)
				} else if step > f.firstRead {
					f.used = true
				}
			case isEdit(b.Name):
				edited = true
				if f, ok := files[p]; ok && p != "" {
					f.used = true
				}
			}
		}
	}
	s.FilesRead = len(order)
	for _, p := range order {
		if !files[p].used {
			s.RedundantFiles++
		}
	}
	if s.FilesRead > 0 {
		s.Redundancy = float64(s.RedundantFiles) / float64(s.FilesRead)
	}
	return s
}

// Analyze reads every *.jsonl file under dir (recursively; symbolic links
// are not followed) and returns the report. It returns ENOTFOUND when dir
// does not exist and EINVALID when it is not a directory.
func Analyze(ctx context.Context, dir string) (*Report, error) {
	fi, err := os.Stat(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, mnemo.Errorf(mnemo.ENOTFOUND, "transcript: no directory %s", dir)
		}
		return nil, fmt.Errorf("transcript: %w", err)
	}
	if !fi.IsDir() {
		return nil, mnemo.Errorf(mnemo.EINVALID, "transcript: %s is not a directory", dir)
	}
	var a Analyzer
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if d.IsDir() || !strings.HasSuffix(d.Name(), ".jsonl") {
			return nil
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		return a.Add(f, strings.TrimSuffix(d.Name(), ".jsonl"))
	})
	if err != nil {
		return nil, fmt.Errorf("transcript: %w", err)
	}
	sessions := a.Sessions()
	return &Report{Sessions: sessions, Summary: Summarize(sessions)}, nil
}

// Summarize computes the summary statistics of sessions. Percentiles use
// linear interpolation between closest ranks (NumPy's default, Hyndman and
// Fan type 7): for n sorted values x[0..n-1] and p in [0, 1], h = (n-1)·p
// and P = x[⌊h⌋] + (h-⌊h⌋)·(x[⌊h⌋+1] - x[⌊h⌋]). The median is P50. Every
// statistic is 0 when there are no sessions.
func Summarize(sessions []Session) Summary {
	t := make([]float64, len(sessions))
	k := make([]float64, len(sessions))
	w := make([]float64, len(sessions))
	for i, s := range sessions {
		t[i] = float64(s.FirstRequestTokens)
		k[i] = float64(s.Reads)
		w[i] = s.Redundancy
	}
	return Summary{
		Sessions:           len(sessions),
		FirstRequestTokens: Describe(t),
		Reads:              Describe(k),
		Redundancy:         Describe(w),
	}
}

// Describe returns the median, mean, P10 and P90 of xs (see Summarize).
func Describe(xs []float64) Stats {
	if len(xs) == 0 {
		return Stats{}
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	var sum float64
	for _, x := range s {
		sum += x
	}
	return Stats{
		Median: stats.Interpolated(s, 0.5),
		Mean:   sum / float64(len(s)),
		P10:    stats.Interpolated(s, 0.1),
		P90:    stats.Interpolated(s, 0.9),
	}
}
