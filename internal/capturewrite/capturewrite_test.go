package capturewrite

import (
	"bytes"
	"compress/zlib"
	"crypto/sha1"
	"encoding/json"
	"io"
	"os/exec"
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestImports holds the package to the standard library packages that are
// initialised before reflect and strings (see the package documentation):
// one more import of the wrong kind and `mnemo capture` waits for most of
// the binary again.
func TestImports(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, p := range strings.Fields(string(out)) {
		switch p {
		case "strings", "reflect", "fmt", "sort", "bufio", "path/filepath", "regexp",
			"encoding/json", "encoding/hex", "encoding/binary", "compress/flate", "compress/zlib",
			"crypto/sha1", "crypto/internal/fips140":
			t.Errorf("package capturewrite depends on %s", p)
		}
		if strings.HasPrefix(p, "github.com/") || strings.HasPrefix(p, "golang.org/") || strings.HasPrefix(p, "modernc.org/") {
			if p != "github.com/mnemo-dev/mnemo/internal/capturewrite" && p != "github.com/mnemo-dev/mnemo/internal/jsonstr" {
				t.Errorf("package capturewrite depends on %s", p)
			}
		}
	}
}

func TestSHA1(t *testing.T) {
	known := map[string]string{
		"":    "da39a3ee5e6b4b0d3255bfef95601890afd80709",
		"abc": "a9993e364706816aba3e25717850c26c9cd0d89d",
		"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq": "84983e441c3bd26ebaae4aa1f95129e5e54670f1",
		"blob 0\x00": "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391", // git's empty blob
	}
	for in, want := range known {
		if got := ObjectName(sha1Sum([]byte(in))).String(); got != want {
			t.Errorf("sha1(%q) = %s, want %s", in, got, want)
		}
	}
	// Every length around the block and padding edges, and a few blocks.
	data := make([]byte, 1000)
	for i := range data {
		data[i] = byte(i*7 + i/256)
	}
	for n := range len(data) {
		if got, want := sha1Sum(data[:n]), sha1.Sum(data[:n]); got != want {
			t.Fatalf("sha1 of %d bytes = %x, want %x", n, got, want)
		}
	}
}

func FuzzSHA1(f *testing.F) {
	f.Add([]byte("blob 12\x00hello world\n"))
	f.Add(bytes.Repeat([]byte{0xff}, 119))
	f.Fuzz(func(t *testing.T, data []byte) {
		if got, want := sha1Sum(data), sha1.Sum(data); got != want {
			t.Fatalf("sha1 = %x, want %x", got, want)
		}
	})
}

// TestZlibStored checks the stored zlib stream against compress/zlib's
// reader, which verifies the block lengths and the Adler-32 checksum.
func TestZlibStored(t *testing.T) {
	for _, n := range []int{0, 1, 4085, 65535, 65536, 150000} {
		raw := []byte(strings.Repeat("prompt ", n/7+1)[:n])
		zr, err := zlib.NewReader(bytes.NewReader(zlibStored(raw)))
		if err != nil {
			t.Fatalf("%d bytes: %v", n, err)
		}
		got, err := io.ReadAll(zr)
		if err != nil {
			t.Fatalf("%d bytes: %v", n, err)
		}
		if !bytes.Equal(got, raw) {
			t.Fatalf("%d bytes: round trip differs", n)
		}
	}
}

// hookCases are hook inputs the decoder must read as encoding/json does.
var hookCases = []string{
	``, ` `, `null`, ` null `, `nul`, `nullx`, `{}`, `{ }`, `[]`, `[1,2]`, `"s"`, `1`, `true`, `{`, `}`, `{"a":1,}`, `{,}`,
	`{"prompt":"hi"}`, `{"prompt":"hi"} `, `{"prompt":"hi"}x`, `{"prompt":"hi"}{}`,
	`{"prompt":null}`, `{"prompt":1}`, `{"prompt":true}`, `{"prompt":{}}`, `{"prompt":["x"]}`, `{"prompt":"a","prompt":"b"}`,
	`{"PROMPT":"upper"}`, `{"Prompt":"a","prompt":"b"}`, `{"ſession_id":"long s"}`, `{"hoo\u212a_event_name":"kelvin"}`,
	`{"session_id":"s","transcript_path":"/t.jsonl","cwd":"/w","hook_event_name":"UserPromptSubmit","prompt":"hi","permission_mode":"acceptEdits","unknown":[1,{"a":2}]}`,
	`{"prompt":"esc \" \\ \/ \b \f \n \r \t \u00e9 \ud83d\ude00 \ud83d \ude00 \ud83dx \u0000"}`,
	`{"prompt":"bad \x"}`, `{"prompt":"bad \u12"}`, `{"prompt":"ctl ` + "\x01" + `"}`, `{"prompt":"` + "\xff\xfe" + ` invalid utf8"}`,
	`{"prompt":"x","n":-0.5e+10}`, `{"prompt":"x","n":01}`, `{"prompt":"x","n":-}`, `{"prompt":"x","n":1.}`, `{"prompt":"x","n":1e}`, `{"prompt":"x","n":.5}`,
	`{"prompt":"x","l":tru}`, `{"prompt":"x","l":[true,false,null]}`, `{"prompt":"x" "a":1}`, `{"prompt" "x"}`, `{prompt:"x"}`,
	"\ufeff{\"prompt\":\"bom\"}", "{\"prompt\":\"x\"}\n\t\r ",
	strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
	`{"a":` + strings.Repeat("[", 9999) + strings.Repeat("]", 9999) + `,"prompt":"deep"}`,
	`{"a":` + strings.Repeat("[", 10000) + strings.Repeat("]", 10000) + `,"prompt":"too deep"}`,
}

// checkHook decodes data both ways and fails unless the answers agree.
func checkHook(t *testing.T, data []byte) {
	t.Helper()
	var want HookInput
	werr := json.Unmarshal(data, &want)
	got, err := decodeHook(data)
	if (err == nil) != (werr == nil) {
		t.Fatalf("decodeHook(%q) error %v, encoding/json %v", data, err, werr)
	}
	if err == nil && got != want {
		t.Fatalf("decodeHook(%q) = %+v, encoding/json %+v", data, got, want)
	}
}

func TestDecodeHook(t *testing.T) {
	for _, c := range hookCases {
		checkHook(t, []byte(c))
	}
}

func FuzzDecodeHook(f *testing.F) {
	for _, c := range hookCases {
		if len(c) < 1000 {
			f.Add([]byte(c))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkHook(t, data) })
}

// checkPrompt fails unless appendPrompt writes what json.MarshalIndent does.
func checkPrompt(t *testing.T, p Prompt) {
	t.Helper()
	want, werr := json.MarshalIndent(p, "", "  ")
	got, err := appendPrompt(nil, p)
	if (err == nil) != (werr == nil) {
		t.Fatalf("appendPrompt(%+v) error %v, encoding/json %v", p, err, werr)
	}
	if err == nil && !bytes.Equal(got, want) {
		t.Fatalf("appendPrompt(%+v) =\n%s\nencoding/json:\n%s", p, got, want)
	}
}

func TestAppendPrompt(t *testing.T) {
	ts := time.Date(2025, 3, 4, 5, 6, 7, 123456789, time.UTC)
	for _, s := range []string{"", "plain", `quote " backslash \ slash /`, "<html> & </html>", "\b\f\n\r\t\x00\x1f\x7f",
		"é 😀 \u2028 \u2029", "\xff\xfe invalid", "\xed\xa0\x80 surrogate half"} {
		checkPrompt(t, Prompt{Prompt: s, Timestamp: ts, SessionID: s, Repository: "/src/mnemo", Branch: s, Cwd: s, HookEventName: "UserPromptSubmit"})
	}
	for _, ts := range []time.Time{
		ts.In(time.FixedZone("x", -(3*3600 + 1800))),
		time.Date(2025, 1, 1, 0, 0, 0, 0, time.FixedZone("odd", 5*3600+30*60+15)),
		time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(2025, 1, 1, 0, 0, 0, 0, time.FixedZone("far", 24*3600)),
		time.Date(2025, 1, 1, 0, 0, 0, 0, time.FixedZone("far", -24*3600-60)),
		time.Date(2025, 1, 1, 0, 0, 0, 0, time.FixedZone("near", 23*3600+59*60)),
	} {
		checkPrompt(t, Prompt{Prompt: "x", Timestamp: ts})
	}
}

func FuzzAppendPrompt(f *testing.F) {
	f.Add("plain", "s", int64(1741064767123456789), 0)
	f.Add("<&>\u2028\xff", "\x01", int64(-1), -3600)
	f.Fuzz(func(t *testing.T, prompt, session string, ns int64, offset int) {
		ts := time.Unix(0, ns).In(time.FixedZone("z", offset%(30*3600)))
		checkPrompt(t, Prompt{Prompt: prompt, Timestamp: ts, SessionID: session, Branch: prompt + session})
	})
}

// TestHookFieldsMatchTags keeps hookFields to HookInput's JSON names: a
// field added to the struct must be read too.
func TestHookFieldsMatchTags(t *testing.T) {
	var h HookInput
	fields := hookFields(&h)
	typ := reflect.TypeOf(h)
	if typ.NumField() != len(fields) {
		t.Fatalf("HookInput has %d fields, hookFields %d", typ.NumField(), len(fields))
	}
	for i := range typ.NumField() {
		name := typ.Field(i).Tag.Get("json")
		found := false
		for _, f := range fields {
			if f.name == name {
				found = true
				*f.dst = "x"
				if reflect.ValueOf(h).Field(i).String() != "x" {
					t.Errorf("hookFields' %q writes another field than %s", name, typ.Field(i).Name)
				}
				*f.dst = ""
			}
		}
		if !found {
			t.Errorf("HookInput.%s (json %q) is not in hookFields", typ.Field(i).Name, name)
		}
	}
}
