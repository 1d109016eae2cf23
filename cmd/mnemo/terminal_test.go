//go:build linux

package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"unsafe"
)

// openPTY returns the two ends of a new pseudo-terminal.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	var unlock int32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, m.Fd(), syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); e != 0 {
		m.Close()
		t.Skipf("no pseudo-terminal: unlock: %v", e)
	}
	var n uint32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, m.Fd(), syscall.TIOCGPTN, uintptr(unsafe.Pointer(&n))); e != 0 {
		m.Close()
		t.Skipf("no pseudo-terminal: %v", e)
	}
	s, err := os.OpenFile("/dev/pts/"+strconv.Itoa(int(n)), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		m.Close()
		t.Skipf("no pseudo-terminal: %v", err)
	}
	return m, s
}

// TestTerminalOutputEscapesControlCharacters: a record whose text holds
// terminal escape sequences is shown on a terminal with them escaped (no
// raw ESC, carriage return or bidi override reaches the screen), by
// show, list, recall, digest and history; piped, the text is unchanged.
func TestTerminalOutputEscapesControlCharacters(t *testing.T) {
	db := filepath.Join(t.TempDir(), "m.db")
	hostile := "Relay status \x1b]0;pwned\x07 \x1b[2J\x1b[31mALL CLEAR\x1b[0m\r overwrite \u202egnp.exe \u009b31m"
	out := mustCLI(t, db, "", "remember", "--", hostile)
	id := strings.Fields(out)[1]
	if got := mustCLI(t, db, "", "show", id); !strings.Contains(got, "\x1b[2J") {
		t.Fatalf("piped output changed the text: %q", got)
	}
	for _, args := range [][]string{{"show", id}, {"list"}, {"recall", "relay status"}, {"digest", "relay status"}, {"history", id},
		{"--json", "show", id}, {"--json", "recall", "relay status"}} {
		master, slave := openPTY(t)
		var got bytes.Buffer
		done := make(chan struct{})
		go func() {
			io.Copy(&got, master)
			close(done)
		}()
		full := append([]string{"--db", db}, args...)
		code := run(context.Background(), full, strings.NewReader(""), slave, io.Discard)
		slave.Close()
		<-done
		master.Close()
		if code != 0 {
			t.Fatalf("mnemo %v: exit %d", args, code)
		}
		s := got.String()
		for _, raw := range []string{"\x1b", "\x07", "\u202e", "\u009b", " overwrite"} {
			if raw == " overwrite" {
				if strings.Contains(s, "\r overwrite") {
					t.Errorf("mnemo %v wrote a raw carriage return: %q", args, s)
				}
				continue
			}
			if strings.Contains(s, raw) {
				t.Errorf("mnemo %v wrote %q raw to the terminal: %q", args, raw, s)
			}
		}
		if !strings.Contains(s, `\x1b[2J`) && args[0] != "list" && args[0] != "recall" && args[0] != "history" && args[0] != "--json" {
			t.Errorf("mnemo %v: the escape is not shown escaped: %q", args, s)
		}
	}
}
