// Package bench is mnemo's own evaluation: the LoCoMo retrieval benchmark
// (RunLoCoMo), the performance suite (RunPerf) and the side-by-side run
// against a peer MCP memory server (RunPeer). Every figure mnemo publishes
// comes from one of these, through `mnemo bench`.
package bench

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mnemo-dev/mnemo"
)

// Conversation is one LoCoMo sample: a long two-person conversation in
// sessions, and the questions asked about it.
type Conversation struct {
	ID        string     `json:"sample_id"`
	SpeakerA  string     `json:"speaker_a"`
	SpeakerB  string     `json:"speaker_b"`
	Sessions  []Session  `json:"sessions"` // in chronological order (by session number)
	Questions []Question `json:"questions"`
}

// Session is one dated session of a conversation.
type Session struct {
	N     int       `json:"n"`
	At    time.Time `json:"at"`
	Turns []Turn    `json:"turns"`
}

// Turn is one utterance.
type Turn struct {
	DiaID   string `json:"dia_id"` // "D<session>:<index>"
	Speaker string `json:"speaker"`
	Text    string `json:"text"`
	Caption string `json:"blip_caption,omitempty"` // caption of a shared image
}

// RecordText is the text a turn is stored as: the speaker, the utterance
// and, when the turn shared an image, its caption.
func (t Turn) RecordText() string {
	s := t.Speaker + ": " + t.Text
	if t.Caption != "" {
		s += " [shares a photo: " + t.Caption + "]"
	}
	return s
}

// Question is one annotated question with the dia_ids of its evidence turns.
type Question struct {
	Text     string   `json:"question"`
	Category int      `json:"category"`
	Evidence []string `json:"evidence"` // normalised, resolved and de-duplicated dia_ids
	// Skipped counts the raw evidence references that did not resolve to a
	// turn of the conversation (malformed or dangling ids).
	Skipped int `json:"skipped_evidence,omitempty"`
}

// Dataset is a loaded LoCoMo file.
type Dataset struct {
	Conversations []Conversation
	// SkippedEvidence counts evidence references that did not resolve.
	SkippedEvidence int
	// RepairedEvidence counts references that resolved only after
	// normalisation ("D:11:26", "D30:05", several ids in one string).
	RepairedEvidence int
}

// Questions returns the number of questions in the data set.
func (d *Dataset) Questions() int {
	n := 0
	for _, c := range d.Conversations {
		n += len(c.Questions)
	}
	return n
}

// LoadLoCoMo reads a LoCoMo file (locomo10.json layout; see the package
// README for where to get it). Errors: ENOTFOUND when the file is missing,
// EINVALID when it is not in the expected shape.
func LoadLoCoMo(path string) (*Dataset, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, mnemo.Errorf(mnemo.ENOTFOUND, "LoCoMo data %s not found: download locomo10.json from github.com/snap-research/locomo (data/locomo10.json)", path)
		}
		return nil, fmt.Errorf("bench: read %s: %w", path, err)
	}
	return ParseLoCoMo(b)
}

type rawSample struct {
	SampleID     string                     `json:"sample_id"`
	Conversation map[string]json.RawMessage `json:"conversation"`
	QA           []struct {
		Question string          `json:"question"`
		Evidence json.RawMessage `json:"evidence"`
		Category int             `json:"category"`
	} `json:"qa"`
}

// sessionKey matches the keys of the sessions (compiled on first use).
var sessionKey = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^session_(\d+)$`) })

// ParseLoCoMo parses the contents of a LoCoMo file.
func ParseLoCoMo(b []byte) (*Dataset, error) {
	var raw []rawSample
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, mnemo.Errorf(mnemo.EINVALID, "LoCoMo data is not a JSON array of samples: %v", err)
	}
	if len(raw) == 0 {
		return nil, mnemo.Errorf(mnemo.EINVALID, "LoCoMo data holds no samples")
	}
	ds := &Dataset{}
	for si, s := range raw {
		c := Conversation{ID: s.SampleID}
		if c.ID == "" {
			c.ID = "sample-" + strconv.Itoa(si+1)
		}
		_ = json.Unmarshal(s.Conversation["speaker_a"], &c.SpeakerA)
		_ = json.Unmarshal(s.Conversation["speaker_b"], &c.SpeakerB)
		turns := map[string]bool{}
		for key, v := range s.Conversation {
			m := sessionKey().FindStringSubmatch(key)
			if m == nil {
				continue
			}
			n, _ := strconv.Atoi(m[1])
			var ss Session
			ss.N = n
			if err := json.Unmarshal(v, &ss.Turns); err != nil {
				return nil, mnemo.Errorf(mnemo.EINVALID, "%s: %s is not a list of turns: %v", c.ID, key, err)
			}
			var when string
			if err := json.Unmarshal(s.Conversation[key+"_date_time"], &when); err != nil {
				return nil, mnemo.Errorf(mnemo.EINVALID, "%s: %s has no %s_date_time", c.ID, key, key)
			}
			t, err := ParseSessionTime(when)
			if err != nil {
				return nil, mnemo.Errorf(mnemo.EINVALID, "%s: %s_date_time: %s", c.ID, key, mnemo.ErrorMessage(err))
			}
			ss.At = t
			for i, tu := range ss.Turns {
				if tu.DiaID == "" || strings.TrimSpace(tu.Text+tu.Caption) == "" {
					return nil, mnemo.Errorf(mnemo.EINVALID, "%s: %s turn %d has no dia_id or text", c.ID, key, i+1)
				}
				turns[tu.DiaID] = true
			}
			c.Sessions = append(c.Sessions, ss)
		}
		if len(c.Sessions) == 0 {
			return nil, mnemo.Errorf(mnemo.EINVALID, "%s: no sessions", c.ID)
		}
		sort.Slice(c.Sessions, func(i, j int) bool { return c.Sessions[i].N < c.Sessions[j].N })
		for _, q := range s.QA {
			var refs []string
			if len(q.Evidence) > 0 && string(q.Evidence) != "null" {
				if err := json.Unmarshal(q.Evidence, &refs); err != nil {
					return nil, mnemo.Errorf(mnemo.EINVALID, "%s: evidence of %q is not a list of strings", c.ID, q.Question)
				}
			}
			ids, skipped, repaired := NormalizeEvidence(refs, turns)
			ds.SkippedEvidence += skipped
			ds.RepairedEvidence += repaired
			c.Questions = append(c.Questions, Question{Text: q.Question, Category: q.Category, Evidence: ids, Skipped: skipped})
		}
		ds.Conversations = append(ds.Conversations, c)
	}
	return ds, nil
}

// ParseSessionTime parses a LoCoMo session time such as "1:56 pm on 8 May,
// 2023" (read as UTC).
func ParseSessionTime(s string) (time.Time, error) {
	s = strings.Join(strings.Fields(s), " ")
	for _, layout := range []string{"3:04 pm on 2 January, 2006", "3:04 pm on 2 Jan, 2006", "3:04 PM on 2 January, 2006"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, mnemo.Errorf(mnemo.EINVALID, "%q is not a session time like \"1:56 pm on 8 May, 2023\"", s)
}

var (
	refSplit = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[;,\s]+`) })
	refShape = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^D:?(\d+):(\d+)$`) })
)

// NormalizeEvidence resolves raw evidence references against the dia_ids of
// a conversation. It splits strings holding several ids ("D8:6; D9:17"),
// strips a stray colon ("D:11:26"), drops zero padding ("D30:05") and
// de-duplicates. It returns the resolved ids in first-seen order, the number
// of references that did not resolve (malformed, or no such turn), and the
// number that resolved only after repair.
func NormalizeEvidence(refs []string, turns map[string]bool) (ids []string, skipped, repaired int) {
	seen := map[string]bool{}
	for _, ref := range refs {
		parts := refSplit().Split(strings.TrimSpace(ref), -1)
		multi := len(parts) > 1
		for _, p := range parts {
			if p == "" {
				continue
			}
			id, ok := canonicalDiaID(p)
			if !ok || !turns[id] {
				skipped++
				continue
			}
			if multi || id != p {
				repaired++
			}
			if !seen[id] {
				seen[id] = true
				ids = append(ids, id)
			}
		}
	}
	return ids, skipped, repaired
}

func canonicalDiaID(s string) (string, bool) {
	m := refShape().FindStringSubmatch(s)
	if m == nil {
		return "", false
	}
	sess, err1 := strconv.Atoi(m[1])
	turn, err2 := strconv.Atoi(m[2])
	if err1 != nil || err2 != nil || sess <= 0 || turn <= 0 {
		return "", false
	}
	return "D" + strconv.Itoa(sess) + ":" + strconv.Itoa(turn), true
}
