package mnemo

import "strings"

// OperatorRef prefixes the tag or provenance reference that names the
// operator a record belongs to: "operator:<name>". Corrections name their
// operator in provenance; the practitioner patterns distilled from them
// carry it as a tag and in provenance.
const OperatorRef = "operator:"

// Operators returns the operators a record belongs to: the names of its
// "operator:<name>" tags and provenance references, each once, in order.
// The operator filter (Filter.Operator) selects the records whose list
// holds the name.
func (r *Record) Operators() []string { return Operators(r.Tags, r.Provenance) }

// Operators returns the operator names of tags and provenance references
// (see Record.Operators); nil when there is none.
func Operators(tags, provenance []string) []string {
	var out []string
	for _, list := range [][]string{tags, provenance} {
		for _, s := range list {
			name, ok := strings.CutPrefix(s, OperatorRef)
			if !ok || name == "" || containsString(out, name) {
				continue
			}
			out = append(out, name)
		}
	}
	return out
}

func containsString(a []string, x string) bool {
	for _, y := range a {
		if y == x {
			return true
		}
	}
	return false
}

// SourceExtracted is the source of a memory extracted from a thread's
// messages, which names them in its provenance ("record:ID").
const SourceExtracted = "extracted"

// AuthorRef prefixes the provenance reference to a record's author (a
// commit's, say: "author:Jane Doe").
const AuthorRef = "author:"

// SpeakerLabel returns the speaker label a record's text opens with
// ("Maria: my son…" → "maria"), lower-case: the text before its first
// colon when that is within 40 bytes and not empty; "" otherwise.
func SpeakerLabel(text string) string {
	if i := strings.IndexByte(text, ':'); i > 0 && i <= 40 {
		return strings.ToLower(strings.TrimSpace(text[:i]))
	}
	return ""
}

// SpeakerRef prefixes the provenance reference to who said a record's
// text ("speaker:Maria").
const SpeakerRef = "speaker:"

// Authors returns the lower-case names of the authors, speakers and
// operators that provenance references name (AuthorRef, SpeakerRef,
// OperatorRef); nil when none.
func Authors(provenance []string) []string {
	var out []string
	for _, p := range provenance {
		name, ok := strings.CutPrefix(p, AuthorRef)
		if !ok {
			name, ok = strings.CutPrefix(p, SpeakerRef)
		}
		if !ok {
			name, ok = strings.CutPrefix(p, OperatorRef)
		}
		if name = strings.ToLower(name); ok && name != "" && !containsString(out, name) {
			out = append(out, name)
		}
	}
	return out
}

// SpeakerNames returns the lower-case names a record is by: its speaker
// label (SpeakerLabel) and the authors and operators of its provenance
// (Authors).
func SpeakerNames(text string, provenance []string) []string {
	out := Authors(provenance)
	if l := SpeakerLabel(text); l != "" && !containsString(out, l) {
		out = append(out, l)
	}
	return out
}
