package capturewrite

import (
	"bytes"
	"context"
	"errors"
	"hash/adler32"
	"math/rand/v2"
	"os"
	"strconv"
	"time"
	"unicode/utf8"
)

// FileName is the name of the file that holds a prompt in each commit's tree.
const FileName = "prompt.json"

// RefPrefix is the prefix of every prompt ref.
const RefPrefix = "refs/prompts/"

// Prompt is one captured operator prompt: the content of prompt.json.
type Prompt struct {
	Prompt         string    `json:"prompt"`
	Timestamp      time.Time `json:"timestamp"` // RFC 3339 with nanoseconds
	SessionID      string    `json:"session_id"`
	Repository     string    `json:"repository"` // top-level directory of the work tree, or cwd
	Branch         string    `json:"branch"`     // branch name, or the sha of a detached HEAD
	PermissionMode string    `json:"permission_mode"`
	Cwd            string    `json:"cwd"`
	HookEventName  string    `json:"hook_event_name"`
}

// Captured is a prompt stored in the repository, with the ref and commit
// that hold it.
type Captured struct {
	Ref    string
	Commit string
	Prompt Prompt
}

// UserRepo is the prompt repository of a user whose home directory is
// home: home/.local/share/mnemo/prompts.git.
func UserRepo(home string) string {
	return joinPath(home, ".local", "share", "mnemo", "prompts.git")
}

// Repo is a bare git repository of captured prompts, for writing. It is
// safe for concurrent use, and several processes may write to the same
// repository at the same time.
type Repo struct {
	path string
}

// Open opens the bare prompt repository at path. It returns an ErrNotFound
// error when there is no repository there.
func Open(ctx context.Context, path string) (*Repo, error) {
	if path == "" {
		return nil, newError(ErrInvalid, "capture: empty repository path")
	}
	if !isBareRepo(path) {
		return nil, newError(ErrNotFound, "capture: no prompt repository at "+path)
	}
	return &Repo{path: path}, nil
}

// OpenOrInit opens the bare prompt repository at path, creating it first
// when it does not exist. Concurrent first use from several processes is
// safe: the repository is built in a temporary directory and renamed into
// place, and the losers of that race open the winner's repository.
func OpenOrInit(ctx context.Context, path string) (*Repo, error) {
	if path == "" {
		return nil, newError(ErrInvalid, "capture: empty repository path")
	}
	if isBareRepo(path) {
		return &Repo{path: path}, nil
	}
	if err := initBare(path); err != nil {
		if isBareRepo(path) { // someone else won the race
			return &Repo{path: path}, nil
		}
		return nil, wrap("capture: init "+path, err)
	}
	return &Repo{path: path}, nil
}

// Path returns the directory of the bare repository.
func (r *Repo) Path() string { return r.path }

func isBareRepo(path string) bool {
	fi, err := os.Stat(joinPath(path, "HEAD"))
	if err != nil || fi.IsDir() {
		return false
	}
	fi, err = os.Stat(joinPath(path, "objects"))
	return err == nil && fi.IsDir()
}

// repoDirs and repoFiles are what `git init --bare` makes that git needs.
var (
	repoDirs  = []string{"objects/info", "objects/pack", "refs/heads", "refs/tags", "refs/prompts"}
	repoFiles = []struct{ name, content string }{
		{"config", "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = true\n"},
		{"description", "mnemo prompt capture\n"},
		{"HEAD", "ref: refs/heads/main\n"}, // last: isBareRepo looks at it
	}
)

// initBare creates the equivalent of `git init --bare path`.
func initBare(path string) error {
	parent := dirPath(path)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(parent, "."+basePath(path)+".init-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp) // a no-op after a successful rename
	for _, d := range repoDirs {
		if err := os.MkdirAll(joinPath(tmp, d), 0o755); err != nil {
			return err
		}
	}
	for _, f := range repoFiles {
		if err := os.WriteFile(joinPath(tmp, f.name), []byte(f.content), 0o644); err != nil {
			return err
		}
	}
	if err := os.Rename(tmp, path); err != nil {
		// An existing empty directory: initialise it in place.
		if entries, rerr := os.ReadDir(path); rerr == nil && len(entries) == 0 {
			return initInPlace(path)
		}
		return err
	}
	return nil
}

func initInPlace(path string) error {
	for _, d := range repoDirs {
		if err := os.MkdirAll(joinPath(path, d), 0o755); err != nil {
			return err
		}
	}
	for _, f := range repoFiles {
		if err := writeFileAtomic(joinPath(path, f.name), []byte(f.content)); err != nil {
			return err
		}
	}
	return nil
}

func writeFileAtomic(name string, data []byte) error {
	f, err := os.CreateTemp(dirPath(name), "."+basePath(name)+".tmp-")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), name)
}

// Capture writes p as an orphan commit and a new ref, and returns them.
// It returns an ErrInvalid error for a prompt without a timestamp.
func (r *Repo) Capture(ctx context.Context, p Prompt) (Captured, error) {
	if p.Timestamp.IsZero() {
		return Captured{}, newError(ErrInvalid, "capture: prompt has no timestamp")
	}
	if err := ctx.Err(); err != nil {
		return Captured{}, err
	}
	body, err := appendPrompt(make([]byte, 0, 256+len(p.Prompt)), p)
	if err != nil {
		return Captured{}, wrap("capture: encode prompt", err)
	}
	body = append(body, '\n')

	blobHash, err := r.writeLoose("blob", body)
	if err != nil {
		return Captured{}, wrap("capture: write blob", err)
	}

	tree := append([]byte("100644 "+FileName+"\x00"), blobHash[:]...)
	treeHash, err := r.writeLoose("tree", tree)
	if err != nil {
		return Captured{}, wrap("capture: write tree", err)
	}

	sig := "mnemo <mnemo@localhost> " + strconv.FormatInt(p.Timestamp.Unix(), 10) + " " + p.Timestamp.Format("-0700")
	commit := "tree " + treeHash.String() + "\nauthor " + sig + "\ncommitter " + sig + "\n\n" + Message(p)
	commitHash, err := r.writeLoose("commit", []byte(commit))
	if err != nil {
		return Captured{}, wrap("capture: write commit", err)
	}

	ref, err := r.createRef(SanitizeSession(p.SessionID), commitHash.String(), p.Timestamp)
	if err != nil {
		return Captured{}, wrap("capture: write ref", err)
	}
	return Captured{Ref: ref, Commit: commitHash.String(), Prompt: p}, nil
}

// ObjectName is the name of a git object.
type ObjectName [hashLen]byte

// String returns the name in hexadecimal.
func (h ObjectName) String() string { return string(appendHex(nil, h[:])) }

const hexDigits = "0123456789abcdef"

func appendHex(b, src []byte) []byte {
	for _, c := range src {
		b = append(b, hexDigits[c>>4], hexDigits[c&0xF])
	}
	return b
}

// appendHexUint appends v in hexadecimal, zero-padded to width digits.
func appendHexUint(b []byte, v uint64, width int) []byte {
	var buf [16]byte
	for i := len(buf) - 1; i >= 0; i-- {
		buf[i] = hexDigits[v&0xF]
		v >>= 4
	}
	return append(b, buf[len(buf)-width:]...)
}

// writeLoose stores one loose object of type kind ("blob", "tree",
// "commit") and returns its name. The object is written to a temporary
// file in its fan-out directory and renamed into place, so a reader (or a
// process killed half-way) never sees a partial object. Whether the object
// exists is not asked first: a captured prompt's blob, tree and commit are
// new but for a prompt sent twice in one second, and the rename then
// replaces the object with the same bytes; the question would be a system
// call per object on every capture.
func (r *Repo) writeLoose(kind string, content []byte) (ObjectName, error) {
	raw := make([]byte, 0, len(kind)+24+len(content))
	raw = append(append(raw, kind...), ' ')
	raw = strconv.AppendInt(raw, int64(len(content)), 10)
	raw = append(append(raw, 0), content...)
	h := ObjectName(sha1Sum(raw))
	hx := h.String()
	dir := joinPath(r.path, "objects", hx[:2])
	final := joinPath(dir, hx[2:])

	data := zlibStored(raw)
	tmp, err := createTemp(dir, data)
	if errors.Is(err, os.ErrNotExist) {
		if err = os.Mkdir(dir, 0o755); err == nil || errors.Is(err, os.ErrExist) {
			tmp, err = createTemp(dir, data)
		}
	}
	if err != nil {
		return h, err
	}
	if err := renameFile(tmp, final); err != nil {
		os.Remove(tmp)
		return h, err
	}
	return h, nil
}

// createTemp writes data to a new read-only file tmp_obj_<random> in dir,
// as git names its temporary objects (git prune removes stale ones), and
// returns its name.
func createTemp(dir string, data []byte) (string, error) {
	for range 16 {
		name := joinPath(dir, string(appendHexUint([]byte("tmp_obj_"), rand.Uint64(), 16)))
		err := createExcl(name, data, 0o444)
		if errors.Is(err, os.ErrExist) {
			continue
		}
		if err != nil {
			os.Remove(name)
			return "", err
		}
		return name, nil
	}
	return "", os.ErrExist
}

// zlibStored returns raw as a zlib stream of stored deflate blocks
// (RFC 1950, RFC 1951 §3.2.4): what git writes with
// core.looseCompression=0, and reads like any loose object. A prompt's
// objects are a few hundred bytes, for which compression saves no disk
// block, and compress/flate's writer (about 700 KB of tables, zeroed for
// every writer) would cost more than the rest of the capture; `git gc`
// packs the objects compressed.
func zlibStored(raw []byte) []byte {
	sum := adler32.Checksum(raw)
	out := make([]byte, 0, len(raw)+len(raw)/65535*5+11)
	out = append(out, 0x78, 0x01) // deflate, 32 KiB window, no dictionary, level "fastest"
	for {
		n := min(len(raw), 65535)
		final := byte(0)
		if n == len(raw) {
			final = 1
		}
		out = append(out, final, byte(n), byte(n>>8), ^byte(n), ^byte(n>>8))
		out = append(out, raw[:n]...)
		raw = raw[n:]
		if final == 1 {
			break
		}
	}
	var s [4]byte
	putUint32(s[:], sum)
	return append(out, s[:]...)
}

// createRef creates refs/prompts/<session>/<n> pointing at sha, choosing a
// fresh n when the name is taken. It never overwrites an existing ref.
func (r *Repo) createRef(session, sha string, at time.Time) (string, error) {
	dir := joinPath(r.path, "refs", "prompts", session)
	content := []byte(sha + "\n")
	var lastErr error
	for attempt := 0; attempt < 16; attempt++ {
		n := refSeq(at)
		final := joinPath(dir, n)
		lock := final + ".lock"
		err := createExcl(lock, content, 0o644)
		if errors.Is(err, os.ErrNotExist) {
			// The session's first prompt: its directory is made then,
			// not looked for on every capture.
			if err = os.MkdirAll(dir, 0o755); err == nil {
				err = createExcl(lock, content, 0o644)
			}
		}
		if err != nil {
			if errors.Is(err, os.ErrExist) {
				lastErr = err
				continue
			}
			os.Remove(lock)
			return "", err
		}
		err = os.Link(lock, final)
		if err != nil && !errors.Is(err, os.ErrExist) {
			// No hard links on this file system: fall back to a rename
			// after checking that the name is free.
			if _, serr := os.Lstat(final); serr == nil {
				err = os.ErrExist
			} else {
				err = renameFile(lock, final)
			}
		}
		os.Remove(lock)
		if err == nil {
			return RefPrefix + session + "/" + n, nil
		}
		if !errors.Is(err, os.ErrExist) {
			return "", err
		}
		lastErr = err
	}
	return "", wrap("no free ref name", lastErr)
}

// refSeq returns the second ref component: zero-padded Unix nanoseconds of
// at and a random suffix (from the runtime's generator, which needs no
// system call; the suffix only has to differ between writers).
func refSeq(at time.Time) string {
	ns := max(at.UnixNano(), 0)
	b := make([]byte, 0, 28)
	d := strconv.AppendInt(nil, ns, 10)
	for range 19 - len(d) {
		b = append(b, '0')
	}
	b = append(append(b, d...), '-')
	return string(appendHexUint(b, uint64(rand.Uint32()), 8))
}

// SanitizeSession turns a session id into a valid single ref component:
// characters outside [A-Za-z0-9._-] become "_", leading dots and a trailing
// ".lock" are removed, runs of dots are collapsed, and the result is at most
// 128 bytes; "unknown" when nothing is left.
func SanitizeSession(id string) string {
	var b []byte
	for _, c := range id {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '-', c == '_':
			b = append(b, byte(c))
		case c == '.':
			if len(b) > 0 && b[len(b)-1] != '.' {
				b = append(b, '.')
			}
		default:
			b = append(b, '_')
		}
		if len(b) >= 128 {
			break
		}
	}
	if len(b) > 128 {
		b = b[:128]
	}
	for {
		t := bytes.TrimSuffix(bytes.TrimRight(b, "."), []byte(".lock"))
		if len(t) == len(b) {
			break
		}
		b = t
	}
	if len(b) == 0 {
		return "unknown"
	}
	return string(b)
}

// Message returns the commit message for p: a subject line with the first
// line of the prompt and the metadata trailers.
func Message(p Prompt) string {
	first := bytes.TrimSpace(firstLine([]byte(p.Prompt)))
	if len(first) == 0 {
		first = []byte("(empty)")
	}
	if utf8.RuneCount(first) > 60 {
		rs := []rune(string(first))
		first = append(bytes.TrimSpace([]byte(string(rs[:60]))), "..."...)
	}
	b := append([]byte("prompt: "), first...)
	b = append(b, "\n\n"...)
	trailers := [][2]string{
		{"Session", p.SessionID},
		{"Repository", p.Repository},
		{"Branch", p.Branch},
		{"Permission-Mode", p.PermissionMode},
		{"Timestamp", p.Timestamp.Format(time.RFC3339Nano)},
	}
	for _, t := range trailers {
		v := bytes.Join(bytes.Fields([]byte(t[1])), []byte(" "))
		if len(v) == 0 {
			continue
		}
		b = append(append(append(b, t[0]...), ": "...), v...)
		b = append(b, '\n')
	}
	return string(b)
}

// firstLine returns s from its first character that is not a space, tab or
// line break to the end of that line.
func firstLine(s []byte) []byte {
	s = bytes.TrimLeft(s, " \t\r\n")
	if i := bytes.IndexAny(s, "\r\n"); i >= 0 {
		return s[:i]
	}
	return s
}
