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
