package mcpserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// MaxFrame bounds one line of the stdio transport (16 MiB, the SDK's bound).
const MaxFrame = 16 << 20

// filterFrames copies the JSON-RPC messages of in, one per line, to next
// and answers every other line on out itself: a line that is not JSON gets
// a parse error (-32700); JSON that is not a JSON-RPC message, a batch, or
// a line over MaxFrame gets an invalid-request error (-32600). Blank lines
// are skipped. It returns nil at the end of in.
func filterFrames(in io.Reader, next io.Writer, out io.Writer) error {
	br := bufio.NewReaderSize(in, 64<<10)
	for {
		line, tooLong, err := readFrame(br, MaxFrame)
		switch {
		case tooLong:
			if werr := reply(out, nil, jsonrpc.CodeInvalidRequest, "Invalid Request: message over 16 MiB"); werr != nil {
				return werr
			}
		case len(line) > 0:
			if id, code, msg := checkFrame(line); code != 0 {
				if werr := reply(out, id, code, msg); werr != nil {
					return werr
				}
			} else if _, werr := next.Write(append(line, '\n')); werr != nil {
				return werr
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

// readFrame reads one line without its line ending and surrounding blanks;
// a line longer than limit is skipped to its end and reported as tooLong.
func readFrame(br *bufio.Reader, limit int) (line []byte, tooLong bool, err error) {
	var buf []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if !tooLong {
			if len(buf)+len(chunk) > limit+2 { // room for "\r\n"
				tooLong, buf = true, nil
			} else {
				buf = append(buf, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimSpace(buf), tooLong, err
	}
}

// checkFrame returns a JSON-RPC error code (and the id to answer with) for
// a line the SDK would not take as a message, or code 0.
func checkFrame(line []byte) (id json.RawMessage, code int, msg string) {
	if !json.Valid(line) {
		return nil, jsonrpc.CodeParseError, "Parse error: the line is not one JSON value"
	}
	if line[0] == '[' {
		return nil, jsonrpc.CodeInvalidRequest, "Invalid Request: batches are not supported"
	}
	if _, err := jsonrpc.DecodeMessage(line); err != nil {
		var probe struct {
			ID json.RawMessage `json:"id"`
		}
		if json.Unmarshal(line, &probe) == nil && len(probe.ID) > 0 && (probe.ID[0] == '"' || probe.ID[0] == '-' || (probe.ID[0] >= '0' && probe.ID[0] <= '9')) {
			id = probe.ID
		}
		return id, jsonrpc.CodeInvalidRequest, "Invalid Request: not a JSON-RPC 2.0 message"
	}
	return nil, 0, ""
}

// reply writes a JSON-RPC error answer as one line.
func reply(out io.Writer, id json.RawMessage, code int, msg string) error {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	b, err := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}{JSONRPC: "2.0", ID: id, Error: struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}{code, msg}})
	if err != nil {
		return err
	}
	_, err = out.Write(append(b, '\n'))
	return err
}

// lockedWriter writes each message whole: the SDK's answers and the
// filter's error answers share stdout.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }
