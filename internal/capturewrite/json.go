package capturewrite

import (
	"bytes"
	"strconv"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/mnemo-dev/mnemo/internal/jsonstr"
)

// JSON for the two documents the write path handles, with encoding/json's
// meaning (RFC 8259 as encoding/json reads and writes it) but not its
// package, which needs reflect (see the package documentation). Both are
// checked against encoding/json: FuzzDecodeHook decodes every input both
// ways and requires the same answer, FuzzAppendPrompt requires the bytes
// json.MarshalIndent writes.

// maxDepth is the deepest nesting encoding/json accepts.
const maxDepth = 10000

// hookFields are the members of a hook input that HookInput keeps, by
// name; like encoding/json, a member matches its field under Unicode case
// folding (bytes.EqualFold), and a later member wins over an earlier one.
func hookFields(h *HookInput) [6]struct {
	name string
	dst  *string
} {
	return [6]struct {
		name string
		dst  *string
	}{
		{"session_id", &h.SessionID},
		{"transcript_path", &h.TranscriptPath},
		{"cwd", &h.Cwd},
		{"hook_event_name", &h.HookEventName},
		{"prompt", &h.Prompt},
		{"permission_mode", &h.PermissionMode},
	}
}

// decodeHook decodes data as json.Unmarshal would into a HookInput: data
// must be one JSON value; null leaves the input empty; an object fills the
// fields its members name, each of which must be a string or null; any
// other value is an error.
func decodeHook(data []byte) (HookInput, error) {
	var h HookInput
	d := jsonDecoder{data: data}
	d.space()
	switch {
	case d.more() && d.data[d.pos] == '{':
		if err := d.hookObject(&h); err != nil {
			return HookInput{}, err
		}
	default:
		if err := d.value(0); err != nil {
			return HookInput{}, err
		}
		if !bytes.Equal(bytes.TrimSpace(data), []byte("null")) {
			d.space()
			if d.more() {
				return HookInput{}, d.errorf("after the top-level value")
			}
			return HookInput{}, d.fail("not a JSON object")
		}
	}
	d.space()
	if d.more() {
		return HookInput{}, d.errorf("after the top-level value")
	}
	return h, nil
}

// jsonDecoder reads JSON from data; pos is the next byte.
type jsonDecoder struct {
	data []byte
	pos  int
}

func (d *jsonDecoder) more() bool { return d.pos < len(d.data) }

func (d *jsonDecoder) space() {
	for d.more() {
		switch d.data[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

// errorf is a syntax error at the current byte, or at the end.
func (d *jsonDecoder) errorf(where string) error {
	if !d.more() {
		return d.fail("unexpected end of input")
	}
	return d.fail("unexpected " + strconv.QuoteRune(rune(d.data[d.pos])) + " " + where)
}

func (d *jsonDecoder) fail(msg string) error {
	return newError(ErrInvalid, msg+" at byte "+strconv.Itoa(d.pos))
}

// hookObject reads the object at pos into h. A member that names a field
// but holds neither a string nor null makes it an error, after the whole
// object has been read (so a syntax error later wins, as it does in
// encoding/json, which checks the syntax first).
func (d *jsonDecoder) hookObject(h *HookInput) error {
	fields := hookFields(h)
	var typeErr error
	d.pos++ // '{'
	d.space()
	if d.more() && d.data[d.pos] == '}' {
		d.pos++
		return nil
	}
	for {
		key, err := d.memberName()
		if err != nil {
			return err
		}
		var dst *string
		for _, f := range fields {
			if bytes.EqualFold(key, []byte(f.name)) {
				dst = f.dst
				break
			}
		}
		switch {
		case dst != nil && d.more() && d.data[d.pos] == '"':
			s, err := d.str()
			if err != nil {
				return err
			}
			*dst = string(s)
		default:
			start := d.pos
			if err := d.value(1); err != nil {
				return err
			}
			if dst != nil && string(d.data[start:d.pos]) != "null" && typeErr == nil {
				typeErr = newError(ErrInvalid, "member "+strconv.Quote(string(key))+" is not a string")
			}
		}
		if done, err := d.after('}'); err != nil || done {
			if err != nil {
				return err
			}
			return typeErr
		}
	}
}

// memberName reads an object member's name and the colon after it, and
// returns the name unquoted.
func (d *jsonDecoder) memberName() ([]byte, error) {
	if !d.more() || d.data[d.pos] != '"' {
		return nil, d.errorf("looking for the beginning of a member name")
	}
	name, err := d.str()
	if err != nil {
		return nil, err
	}
	d.space()
	if !d.more() || d.data[d.pos] != ':' {
		return nil, d.errorf("after a member name")
	}
	d.pos++
	d.space()
	return name, nil
}

// after reads what follows an element of an array or object that ends with
// end: a comma, another element to come, or end, the last one read.
func (d *jsonDecoder) after(end byte) (done bool, err error) {
	d.space()
	if !d.more() {
		return false, d.errorf("")
	}
	switch d.data[d.pos] {
	case ',':
		d.pos++
		d.space()
		return false, nil
	case end:
		d.pos++
		return true, nil
	}
	return false, d.errorf("after an element")
}

// value skips the JSON value at pos, inside depth enclosing arrays and
// objects.
func (d *jsonDecoder) value(depth int) error {
	if !d.more() {
		return d.errorf("")
	}
	switch c := d.data[d.pos]; {
	case c == '{' || c == '[':
		if depth+1 > maxDepth {
			return d.fail("nested too deeply")
		}
		end := byte('}')
		if c == '[' {
			end = ']'
		}
		d.pos++
		d.space()
		if d.more() && d.data[d.pos] == end {
			d.pos++
			return nil
		}
		for {
			if c == '{' {
				if _, err := d.memberName(); err != nil {
					return err
				}
			}
			if err := d.value(depth + 1); err != nil {
				return err
			}
			if done, err := d.after(end); err != nil || done {
				return err
			}
		}
	case c == '"':
		_, err := d.str()
		return err
	case c == '-' || '0' <= c && c <= '9':
		return d.number()
	case c == 't':
		return d.literal("true")
	case c == 'f':
		return d.literal("false")
	case c == 'n':
		return d.literal("null")
	}
	return d.errorf("looking for the beginning of a value")
}

func (d *jsonDecoder) literal(word string) error {
	for i := range len(word) {
		if !d.more() || d.data[d.pos] != word[i] {
			return d.errorf("in literal " + word)
		}
		d.pos++
	}
	return nil
}

// number skips -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?.
func (d *jsonDecoder) number() error {
	digits := func() int {
		n := 0
		for d.more() && '0' <= d.data[d.pos] && d.data[d.pos] <= '9' {
			d.pos++
			n++
		}
		return n
	}
	if d.data[d.pos] == '-' {
		d.pos++
	}
	switch {
	case d.more() && d.data[d.pos] == '0':
		d.pos++
	case digits() == 0:
		return d.errorf("in a number")
	}
	if d.more() && d.data[d.pos] == '.' {
		d.pos++
		if digits() == 0 {
			return d.errorf("after a decimal point")
		}
	}
	if d.more() && (d.data[d.pos] == 'e' || d.data[d.pos] == 'E') {
		d.pos++
		if d.more() && (d.data[d.pos] == '+' || d.data[d.pos] == '-') {
			d.pos++
		}
		if digits() == 0 {
			return d.errorf("in an exponent")
		}
	}
	return nil
}

// str reads the string at pos and returns it unquoted, as encoding/json
// unquotes: a byte that is not UTF-8 becomes U+FFFD, and so does a \u
// escape of half a surrogate pair.
func (d *jsonDecoder) str() ([]byte, error) {
	d.pos++ // '"'
	start := d.pos
	// The common case: nothing to unquote.
	for d.more() {
		c := d.data[d.pos]
		if c == '"' {
			d.pos++
			return d.data[start : d.pos-1], nil
		}
		if c == '\\' || c < 0x20 || c >= utf8.RuneSelf {
			break
		}
		d.pos++
	}
	out := append([]byte(nil), d.data[start:d.pos]...)
	for {
		if !d.more() {
			return nil, d.errorf("")
		}
		c := d.data[d.pos]
		switch {
		case c == '"':
			d.pos++
			return out, nil
		case c < 0x20:
			return nil, d.errorf("in a string")
		case c == '\\':
			if d.pos+1 >= len(d.data) {
				d.pos++
				return nil, d.errorf("")
			}
			d.pos++
			switch e := d.data[d.pos]; e {
			case '"', '\\', '/':
				out = append(out, e)
			case 'b':
				out = append(out, '\b')
			case 'f':
				out = append(out, '\f')
			case 'n':
				out = append(out, '\n')
			case 'r':
				out = append(out, '\r')
			case 't':
				out = append(out, '\t')
			case 'u':
				r, ok := d.hex4(d.pos + 1)
				if !ok {
					return nil, d.errorf("in a \\u escape")
				}
				d.pos += 4
				if utf16.IsSurrogate(r) {
					// A pair when the next escape is the other half;
					// otherwise U+FFFD, and the next escape is read on
					// its own.
					if d.pos+2 < len(d.data) && d.data[d.pos+1] == '\\' && d.data[d.pos+2] == 'u' {
						if r2, ok := d.hex4(d.pos + 3); ok {
							if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
								out = utf8.AppendRune(out, dec)
								d.pos += 7
								continue
							}
						}
					}
					r = utf8.RuneError
				}
				out = utf8.AppendRune(out, r)
			default:
				return nil, d.errorf("in a string escape")
			}
			d.pos++
		case c < utf8.RuneSelf:
			out = append(out, c)
			d.pos++
		default:
			r, n := utf8.DecodeRune(d.data[d.pos:])
			out = utf8.AppendRune(out, r) // U+FFFD for a byte that is not UTF-8
			d.pos += n
		}
	}
}

// hex4 reads the four hexadecimal digits at i.
func (d *jsonDecoder) hex4(i int) (rune, bool) {
	if i+4 > len(d.data) {
		return 0, false
	}
	var r rune
	for _, c := range d.data[i : i+4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// appendPrompt appends p as json.MarshalIndent(p, "", "  ") writes it.
func appendPrompt(b []byte, p Prompt) ([]byte, error) {
	// time.Time's MarshalJSON: RFC 3339 with nanoseconds, and an error for
	// a year it cannot write in four digits or a zone offset of a day or more.
	if y := p.Timestamp.Year(); y < 0 || y > 9999 {
		return nil, newError(ErrInvalid, "capture: timestamp year "+strconv.Itoa(y)+" outside [0,9999]")
	}
	if _, off := p.Timestamp.Zone(); off <= -24*3600 || off >= 24*3600 {
		return nil, newError(ErrInvalid, "capture: timestamp zone offset outside ±24 hours")
	}
	members := [...]struct {
		name, value string
	}{
		{"prompt", p.Prompt},
		{"timestamp", ""},
		{"session_id", p.SessionID},
		{"repository", p.Repository},
		{"branch", p.Branch},
		{"permission_mode", p.PermissionMode},
		{"cwd", p.Cwd},
		{"hook_event_name", p.HookEventName},
	}
	b = append(b, '{')
	for i, m := range members {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, "\n  \""...)
		b = append(b, m.name...)
		b = append(b, "\": "...)
		if m.name == "timestamp" {
			b = append(b, '"')
			b = p.Timestamp.AppendFormat(b, time.RFC3339Nano)
			b = append(b, '"')
			continue
		}
		b = jsonstr.Append(b, m.value, true) // json.MarshalIndent escapes HTML
	}
	return append(b, "\n}"...), nil
}
