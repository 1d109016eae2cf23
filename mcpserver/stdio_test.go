package mcpserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// FuzzStdioFraming feeds arbitrary bytes to the stdio framing: every line it
// passes on is one JSON-RPC message, every line it answers itself is a
// JSON-RPC error, and nothing panics. Its seeds run in every go test.
func FuzzStdioFraming(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n",
		"{not json}\n",
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}` + "\r\n\n   \n",
		`[{"jsonrpc":"2.0","id":3,"method":"ping"}]` + "\n",
		`{"jsonrpc":"1.0","id":"x","method":"ping"}` + "\n",
		`{"jsonrpc":"2.0","id":4,"method":"ping"} {"jsonrpc":"2.0","id":5,"method":"ping"}` + "\n",
		"42\nnull\n\"text\"\n",
		`{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}` + "\n",
		`{"jsonrpc":"2.0","result":{}}` + "\n",
		"\xff\xfe\n",
		`{"jsonrpc":"2.0","id":6,"method":"ping"}`, // no final newline
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		var next, out bytes.Buffer
		if err := filterFrames(bytes.NewReader(in), &next, &out); err != nil {
			t.Fatalf("filter: %v", err)
		}
		sc := bufio.NewScanner(&next)
		sc.Buffer(nil, MaxFrame+2)
		for sc.Scan() {
			if _, err := jsonrpc.DecodeMessage(sc.Bytes()); err != nil {
				t.Fatalf("passed on a line that is not a message: %q: %v", sc.Text(), err)
			}
		}
		for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
			if l == "" {
				continue
			}
			var m struct {
				JSONRPC string `json:"jsonrpc"`
				Error   *struct {
					Code int `json:"code"`
				} `json:"error"`
			}
			if err := json.Unmarshal([]byte(l), &m); err != nil || m.JSONRPC != "2.0" || m.Error == nil ||
				(m.Error.Code != jsonrpc.CodeParseError && m.Error.Code != jsonrpc.CodeInvalidRequest) {
				t.Fatalf("answered with %q", l)
			}
		}
	})
}

func TestReadFrameSkipsOverlongLines(t *testing.T) {
	var next, out bytes.Buffer
	in := strings.Repeat("x", 70<<10) + "\n" + `{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n"
	br := bufio.NewReaderSize(strings.NewReader(in), 64<<10)
	line, tooLong, err := readFrame(br, 1<<10)
	if !tooLong || line != nil || err != nil {
		t.Fatalf("overlong line: %q %v %v", line, tooLong, err)
	}
	if err := filterFrames(strings.NewReader(in), &next, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(next.String(), `"method":"ping"`) {
		t.Fatalf("the message after a long line was lost: %q", next.String())
	}
}
