package capturewrite

import (
	"bytes"
	"io"
	"os"
	"strconv"
	"time"
)

// HookInput is the JSON a Claude Code hook receives on stdin. Unknown fields
// are ignored.
type HookInput struct {
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path"`
	Cwd            string `json:"cwd"`
	HookEventName  string `json:"hook_event_name"`
	Prompt         string `json:"prompt"`
	PermissionMode string `json:"permission_mode"`
}

// MaxHookInput is the largest hook input ReadHook accepts, in bytes.
const MaxHookInput = 8 << 20

// ReadHook decodes the hook JSON from r. It returns an ErrInvalid error for
// empty input, malformed JSON, or input without a prompt, and an
// ErrTooLarge one for input over MaxHookInput bytes.
func ReadHook(r io.Reader) (HookInput, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxHookInput+1))
	if err != nil {
		return HookInput{}, wrap("capture: read hook input", err)
	}
	if len(data) > MaxHookInput {
		return HookInput{}, newError(ErrTooLarge, "capture: hook input over "+strconv.Itoa(MaxHookInput)+" bytes")
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return HookInput{}, newError(ErrInvalid, "capture: empty hook input")
	}
	h, err := decodeHook(data)
	if err != nil {
		return HookInput{}, newError(ErrInvalid, "capture: hook input is not a JSON object: "+err.Error())
	}
	if h.Prompt == "" {
		return HookInput{}, newError(ErrInvalid, "capture: hook input has no prompt")
	}
	return h, nil
}

// FromHook builds the Prompt for hook input h captured at now: the
// repository and branch come from h.Cwd's git work tree (see Locate).
func FromHook(h HookInput, now time.Time) Prompt {
	repo, branch := Locate(h.Cwd)
	return Prompt{
		Prompt:         h.Prompt,
		Timestamp:      now,
		SessionID:      h.SessionID,
		Repository:     repo,
		Branch:         branch,
		PermissionMode: h.PermissionMode,
		Cwd:            h.Cwd,
		HookEventName:  h.HookEventName,
	}
}

// Locate finds the git work tree that contains cwd by walking up to the
// first directory with a .git entry, and reads its HEAD without running
// git. repository is that directory (cwd itself when there is none);
// branch is the checked-out branch name, the full ref name for a symbolic
// HEAD outside refs/heads/, the commit sha for a detached HEAD, or "" when
// unknown. A .git file ("gitdir: …", as in linked work trees and
// submodules) is followed.
func Locate(cwd string) (repository, branch string) {
	if cwd == "" {
		return "", ""
	}
	dir := cleanPath(cwd)
	for {
		dotgit := joinPath(dir, ".git")
		if fi, err := os.Stat(dotgit); err == nil {
			gitdir := dotgit
			if !fi.IsDir() {
				gitdir = resolveGitFile(dotgit)
			}
			return dir, readHead(gitdir)
		}
		parent := dirPath(dir)
		if parent == dir {
			return cleanPath(cwd), ""
		}
		dir = parent
	}
}

func resolveGitFile(name string) string {
	data, err := os.ReadFile(name)
	if err != nil {
		return ""
	}
	line := bytes.TrimSpace(firstLine(data))
	target, ok := bytes.CutPrefix(line, []byte("gitdir:"))
	if !ok {
		return ""
	}
	t := string(bytes.TrimSpace(target))
	if !isAbsPath(t) {
		t = joinPath(dirPath(name), t)
	}
	return t
}

func readHead(gitdir string) string {
	if gitdir == "" {
		return ""
	}
	data, err := os.ReadFile(joinPath(gitdir, "HEAD"))
	if err != nil {
		return ""
	}
	head := bytes.TrimSpace(data)
	if ref, ok := bytes.CutPrefix(head, []byte("ref:")); ok {
		ref = bytes.TrimSpace(ref)
		if b, ok := bytes.CutPrefix(ref, []byte("refs/heads/")); ok {
			return string(b)
		}
		return string(ref)
	}
	if (len(head) == 40 || len(head) == 64) && isHex(string(head)) {
		return string(head)
	}
	return ""
}

// isHex reports whether s is a non-empty string of an even number of
// hexadecimal digits (what encoding/hex decodes).
func isHex(s string) bool {
	if len(s) == 0 || len(s)%2 != 0 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}
