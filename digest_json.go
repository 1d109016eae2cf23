package mnemo

import (
	"slices"
	"strconv"

	"github.com/mnemo-dev/mnemo/internal/jsonstr"
)

// AppendJSON appends the digest's JSON to b: byte for byte what
// encoding/json writes with HTML escaping off (json.Encoder.SetEscapeHTML
// false), without its trailing newline, in about half the time and without
// reflection. A digest is the largest answer mnemo serves (every entry's text,
// and the Markdown), on the hot path. It is not a MarshalJSON method on
// purpose: encoding/json re-scans a marshaler's output, which would make
// json.Marshal slower, not faster.
func (d *Digest) AppendJSON(b []byte) []byte {
	if b == nil {
		b = make([]byte, 0, 2*len(d.Markdown)+256*len(d.Entries)+512)
	}
	b = append(b, `{"retrieval_id":`...)
	b = appendJSONString(b, d.RetrievalID)
	b = append(b, `,"task":`...)
	b = appendJSONString(b, d.Task)
	b = append(b, `,"scope":`...)
	b = appendJSONString(b, d.Scope)
	b = append(b, `,"intent":`...)
	b = appendJSONString(b, d.Intent)
	if d.IntentBy != "" {
		b = append(b, `,"intent_by":`...)
		b = appendJSONString(b, d.IntentBy)
	}
	b = append(b, `,"preset":`...)
	b = appendJSONString(b, d.Preset)
	b = append(b, `,"weights":`...)
	b = appendFloatMap(b, d.Weights)
	if t := d.Triage; t != nil {
		b = append(b, `,"triage":{"active":`...)
		b = strconv.AppendBool(b, t.Active)
		b = append(b, `,"alpha":`...)
		b = appendFloat(b, t.Alpha)
		b = append(b, `,"rate":`...)
		b = appendFloat(b, t.Rate)
		b = append(b, `,"capacity":`...)
		b = appendFloat(b, t.Limit)
		b = append(b, '}')
	}
	b = append(b, `,"budget":`...)
	b = strconv.AppendInt(b, int64(d.Budget), 10)
	b = append(b, `,"used_tokens":`...)
	b = strconv.AppendInt(b, int64(d.UsedTokens), 10)
	b = append(b, `,"tokenizer":`...)
	b = appendJSONString(b, d.Tokenizer)
	b = append(b, `,"entries":`...)
	if d.Entries == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i := range d.Entries {
			if i > 0 {
				b = append(b, ',')
			}
			b = d.Entries[i].appendJSON(b)
		}
		b = append(b, ']')
	}
	b = append(b, `,"candidates":`...)
	b = strconv.AppendInt(b, int64(d.Candidates), 10)
	b = append(b, `,"omitted":`...)
	b = strconv.AppendInt(b, int64(d.Omitted), 10)
	b = append(b, `,"weaker":`...)
	b = strconv.AppendInt(b, int64(d.Weaker), 10)
	b = append(b, `,"markdown":`...)
	b = appendJSONString(b, d.Markdown)
	return append(b, '}')
}

func (e *DigestEntry) appendJSON(b []byte) []byte {
	b = append(b, `{"id":`...)
	b = appendJSONString(b, e.ID)
	b = append(b, `,"layer":`...)
	b = appendJSONString(b, string(e.Layer))
	b = append(b, `,"kind":`...)
	b = appendJSONString(b, string(e.Kind))
	b = append(b, `,"scope":`...)
	b = appendJSONString(b, e.Scope)
	b = append(b, `,"score":`...)
	b = appendFloat(b, e.Score)
	b = append(b, `,"factors":`...)
	b = e.Factors.appendJSON(b)
	b = append(b, `,"text":`...)
	b = appendJSONString(b, e.Text)
	b = append(b, `,"provenance":`...)
	if e.Provenance == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, p := range e.Provenance {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, p)
		}
		b = append(b, ']')
	}
	b = append(b, `,"tokens":`...)
	b = strconv.AppendInt(b, int64(e.Tokens), 10)
	b = append(b, `,"section":`...)
	b = appendJSONString(b, e.Section)
	if e.Why != nil {
		b = append(b, `,"why":`...)
		b = e.Why.appendJSON(b)
	}
	if len(e.Covers) > 0 {
		b = append(b, `,"covers":[`...)
		for i, id := range e.Covers {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, id)
		}
		b = append(b, ']')
	}
	return append(b, '}')
}

// appendJSON writes w as encoding/json does (HTML escaping off), field
// by field in the struct's order, omitempty where the struct says so.
func (w *Why) appendJSON(b []byte) []byte {
	strs := func(b []byte, key string, xs []string) []byte {
		if len(xs) == 0 {
			return b
		}
		b = append(b, key...)
		b = append(b, '[')
		for i, x := range xs {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, x)
		}
		return append(b, ']')
	}
	b = append(b, `{"evidence":`...)
	b = appendJSONString(b, w.Evidence)
	b = append(b, `,"relevance":`...)
	b = appendFloat(b, w.Relevance)
	b = append(b, `,"floor":`...)
	b = appendFloat(b, w.Floor)
	b = append(b, `,"keyword_share":`...)
	b = appendFloat(b, w.KeywordShare)
	if w.ExpansionShare != 0 {
		b = append(b, `,"expansion_share":`...)
		b = appendFloat(b, w.ExpansionShare)
	}
	b = strs(b, `,"matched":`, w.Matched)
	b = strs(b, `,"expanded":`, w.Expanded)
	b = append(b, `,"semantic":`...)
	b = appendFloat(b, w.Semantic)
	b = append(b, `,"semantic_null":`...)
	b = appendFloat(b, w.SemanticNull)
	b = append(b, `,"semantic_strength":`...)
	b = appendFloat(b, w.SemanticStrength)
	if w.Learned != 0 {
		b = append(b, `,"learned":`...)
		b = appendFloat(b, w.Learned)
	}
	if w.LearnedNull != 0 {
		b = append(b, `,"learned_null":`...)
		b = appendFloat(b, w.LearnedNull)
	}
	if w.Interval != "" {
		b = append(b, `,"interval":`...)
		b = appendJSONString(b, w.Interval)
	}
	return append(b, '}')
}

// appendFloatMap writes a map with its keys sorted, as encoding/json does.
func appendFloatMap(b []byte, m map[string]float64) []byte {
	if m == nil {
		return append(b, "null"...)
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, k)
		b = append(b, ':')
		b = appendFloat(b, m[k])
	}
	return append(b, '}')
}

// appendJSONString quotes s as encoding/json does without HTML escaping.
func appendJSONString(b []byte, s string) []byte { return jsonstr.Append(b, s, false) }
