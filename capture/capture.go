// Package capture records operator prompts as orphan commits in a bare git
// repository (DESIGN.md §6, "prompt capture, phase 0"). It reads and writes
// the repository's files itself, with the standard library only (object.go),
// and imports nothing else, mnemo's own packages included, so that `mnemo
// capture` runs before the rest of the binary initialises (see
// cmd/mnemo/internal/capturecli): a capture process starts and finishes
// quickly.
//
// # Repository layout
//
// Every prompt is one commit with no parent. Its tree holds a single file,
// prompt.json (see Prompt for the fields), and its message is
//
//	prompt: <first line of the prompt, truncated to 60 characters>
//
//	Session: <session id>
//	Repository: <work-tree top-level directory>
//	Branch: <branch, or the detached HEAD sha>
//	Permission-Mode: <permission mode>
//	Timestamp: <RFC 3339 time with nanoseconds>
//
// (a trailer whose value is empty is left out). Author and committer are
// "mnemo <mnemo@localhost>" at the prompt's timestamp.
//
// A ref keeps every commit reachable:
//
//	refs/prompts/<session>/<unix-nanoseconds, 19 digits>-<8 random hex digits>
//
// <session> is the session id with every character outside [A-Za-z0-9._-]
// replaced by "_" (and leading dots removed), so it is always a valid ref
// component; "unknown" when the id is empty. The second component sorts by
// capture time. A ref is created with git's lock-file protocol plus a hard
// link, which fails instead of overwriting when the name already exists, so
// parallel hooks never clobber each other's refs (a collision only makes the
// writer pick a new random suffix). Objects are written as loose objects
// (a temporary file in the object's directory, then a rename, as git does),
// so concurrent writers never leave a partial object behind; an object up
// to about 4 KiB is stored uncompressed in its zlib stream, a larger one
// compressed at git's default level for loose objects. List reads loose
// objects and the packs `git gc` makes.
//
// # Claude Code hook
//
// `mnemo capture` is a UserPromptSubmit hook; in ~/.claude/settings.json:
//
//	{
//	  "hooks": {
//	    "UserPromptSubmit": [
//	      {"hooks": [{"type": "command", "command": "mnemo capture"}]}
//	    ]
//	  }
//	}
//
// The captured repository is an ordinary bare repository: `git --git-dir
// ~/.local/share/mnemo/prompts.git log --all` lists the prompts.
package capture

import (
	"bufio"
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// FileName is the name of the file that holds a prompt in each commit's tree.
const FileName = "prompt.json"

// RefPrefix is the prefix of every prompt ref.
const RefPrefix = "refs/prompts/"

// The kinds of error this package returns for bad input and a missing
// repository: each such error wraps one of them (errors.Is), and its
// message is safe to show. The package imports nothing of mnemo's own (see
// paths_unix.go for why), so its callers give these kinds their codes.
var (
	ErrInvalid  = errors.New("capture: invalid input")
	ErrNotFound = errors.New("capture: no prompt repository")
	ErrTooLarge = errors.New("capture: input too large")
)

// kindError is an error of one of the kinds above.
type kindError struct {
	kind error
	msg  string
}

func (e *kindError) Error() string { return e.msg }
func (e *kindError) Unwrap() error { return e.kind }

func errorf(kind error, format string, args ...any) error {
	return &kindError{kind: kind, msg: fmt.Sprintf(format, args...)}
}

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

// Repo is a bare git repository of captured prompts. It is safe for
// concurrent use, and several processes may write to the same repository at
// the same time.
type Repo struct {
	path string
}

// Open opens the bare prompt repository at path. It returns an ErrNotFound
// error when there is no repository there.
func Open(ctx context.Context, path string) (*Repo, error) {
	if path == "" {
		return nil, errorf(ErrInvalid, "capture: empty repository path")
	}
	if !isBareRepo(path) {
		return nil, errorf(ErrNotFound, "capture: no prompt repository at %s", path)
	}
	return open(path), nil
}

// OpenOrInit opens the bare prompt repository at path, creating it first
// when it does not exist. Concurrent first use from several processes is
// safe: the repository is built in a temporary directory and renamed into
// place, and the losers of that race open the winner's repository.
func OpenOrInit(ctx context.Context, path string) (*Repo, error) {
	if path == "" {
		return nil, errorf(ErrInvalid, "capture: empty repository path")
	}
	if isBareRepo(path) {
		return open(path), nil
	}
	if err := initBare(path); err != nil {
		if isBareRepo(path) { // someone else won the race
			return open(path), nil
		}
		return nil, fmt.Errorf("capture: init %s: %w", path, err)
	}
	return open(path), nil
}

func open(path string) *Repo {
	return &Repo{path: path}
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
	for _, d := range []string{"objects/info", "objects/pack", "refs/heads", "refs/tags", "refs/prompts"} {
		if err := os.MkdirAll(joinPath(tmp, d), 0o755); err != nil {
			return err
		}
	}
	files := map[string]string{
		"HEAD":        "ref: refs/heads/main\n",
		"config":      "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = true\n",
		"description": "mnemo prompt capture\n",
	}
	for name, content := range files {
		if err := os.WriteFile(joinPath(tmp, name), []byte(content), 0o644); err != nil {
			return err
		}
	}
	if err := os.Rename(tmp, path); err != nil {
		// An existing empty directory: initialise it in place.
		if entries, rerr := os.ReadDir(path); rerr == nil && len(entries) == 0 {
			return initInPlace(path, files)
		}
		return err
	}
	return nil
}

func initInPlace(path string, files map[string]string) error {
	for _, d := range []string{"objects/info", "objects/pack", "refs/heads", "refs/tags", "refs/prompts"} {
		if err := os.MkdirAll(joinPath(path, d), 0o755); err != nil {
			return err
		}
	}
	// Write HEAD last: isBareRepo looks at it.
	for _, name := range []string{"config", "description", "HEAD"} {
		if err := writeFileAtomic(joinPath(path, name), []byte(files[name])); err != nil {
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
		return Captured{}, errorf(ErrInvalid, "capture: prompt has no timestamp")
	}
	if err := ctx.Err(); err != nil {
		return Captured{}, err
	}
	body, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return Captured{}, fmt.Errorf("capture: encode prompt: %w", err)
	}
	body = append(body, '\n')

	blobHash, err := r.writeLoose("blob", body)
	if err != nil {
		return Captured{}, fmt.Errorf("capture: write blob: %w", err)
	}

	var tree bytes.Buffer
	tree.WriteString("100644 " + FileName + "\x00")
	tree.Write(blobHash[:])
	treeHash, err := r.writeLoose("tree", tree.Bytes())
	if err != nil {
		return Captured{}, fmt.Errorf("capture: write tree: %w", err)
	}

	sig := "mnemo <mnemo@localhost> " + strconv.FormatInt(p.Timestamp.Unix(), 10) + " " + p.Timestamp.Format("-0700")
	commit := "tree " + treeHash.String() + "\nauthor " + sig + "\ncommitter " + sig + "\n\n" + Message(p)
	commitHash, err := r.writeLoose("commit", []byte(commit))
	if err != nil {
		return Captured{}, fmt.Errorf("capture: write commit: %w", err)
	}

	ref, err := r.createRef(SanitizeSession(p.SessionID), commitHash.String(), p.Timestamp)
	if err != nil {
		return Captured{}, fmt.Errorf("capture: write ref: %w", err)
	}
	return Captured{Ref: ref, Commit: commitHash.String(), Prompt: p}, nil
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
	return "", fmt.Errorf("no free ref name: %w", lastErr)
}

// refSeq returns the second ref component: zero-padded Unix nanoseconds of
// at and a random suffix (from the runtime's generator, which needs no
// system call; the suffix only has to differ between writers).
func refSeq(at time.Time) string {
	ns := at.UnixNano()
	if ns < 0 {
		ns = 0
	}
	return fmt.Sprintf("%019d-%08x", ns, rand.Uint32())
}

// SanitizeSession turns a session id into a valid single ref component:
// characters outside [A-Za-z0-9._-] become "_", leading dots and a trailing
// ".lock" are removed, runs of dots are collapsed, and the result is at most
// 128 bytes; "unknown" when nothing is left.
func SanitizeSession(id string) string {
	var b strings.Builder
	for _, c := range id {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '-', c == '_':
			b.WriteRune(c)
		case c == '.':
			s := b.String()
			if len(s) > 0 && s[len(s)-1] != '.' {
				b.WriteByte('.')
			}
		default:
			b.WriteByte('_')
		}
		if b.Len() >= 128 {
			break
		}
	}
	s := b.String()
	if len(s) > 128 {
		s = s[:128]
	}
	for {
		t := strings.TrimSuffix(strings.TrimRight(s, "."), ".lock")
		if t == s {
			break
		}
		s = t
	}
	if s == "" {
		return "unknown"
	}
	return s
}

// Message returns the commit message for p: a subject line with the first
// line of the prompt and the metadata trailers.
func Message(p Prompt) string {
	first := strings.TrimSpace(firstLine(p.Prompt))
	if first == "" {
		first = "(empty)"
	}
	if utf8.RuneCountInString(first) > 60 {
		rs := []rune(first)
		first = strings.TrimSpace(string(rs[:60])) + "..."
	}
	var b strings.Builder
	b.WriteString("prompt: " + first + "\n\n")
	trailers := [][2]string{
		{"Session", p.SessionID},
		{"Repository", p.Repository},
		{"Branch", p.Branch},
		{"Permission-Mode", p.PermissionMode},
		{"Timestamp", p.Timestamp.Format(time.RFC3339Nano)},
	}
	for _, t := range trailers {
		v := strings.Join(strings.Fields(t[1]), " ")
		if v == "" {
			continue
		}
		b.WriteString(t[0] + ": " + v + "\n")
	}
	return b.String()
}

func firstLine(s string) string {
	s = strings.TrimLeft(s, " \t\r\n")
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		return s[:i]
	}
	return s
}

// List returns every captured prompt, in ref-name order (session, then
// capture time). Refs that do not point at a readable prompt commit are
// skipped; ctx cancels a long listing.
func (r *Repo) List(ctx context.Context) ([]Captured, error) {
	refs, err := r.promptRefs()
	if err != nil {
		return nil, fmt.Errorf("capture: list refs: %w", err)
	}
	out := make([]Captured, 0, len(refs))
	for _, ref := range refs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		p, err := r.readPrompt(ref[1])
		if err != nil {
			continue
		}
		out = append(out, Captured{Ref: ref[0], Commit: ref[1], Prompt: p})
	}
	return out, nil
}

func (r *Repo) readPrompt(sha string) (Prompt, error) {
	ch, ok := parseName(sha)
	if !ok {
		return Prompt{}, errors.New("bad commit name")
	}
	commit, err := r.readObject("commit", ch)
	if err != nil {
		return Prompt{}, err
	}
	treeHex, ok := strings.CutPrefix(firstLine(string(commit)), "tree ")
	th, ok2 := parseName(treeHex)
	if !ok || !ok2 {
		return Prompt{}, errors.New("commit without a tree")
	}
	tree, err := r.readObject("tree", th)
	if err != nil {
		return Prompt{}, err
	}
	// Tree entries: "<mode> <name>\x00<20-byte hash>".
	for len(tree) > 0 {
		nul := bytes.IndexByte(tree, 0)
		if nul < 0 || len(tree) < nul+21 {
			break
		}
		_, name, _ := strings.Cut(string(tree[:nul]), " ")
		var h objectName
		copy(h[:], tree[nul+1:nul+21])
		tree = tree[nul+21:]
		if name != FileName {
			continue
		}
		data, err := r.readObject("blob", h)
		if err != nil {
			return Prompt{}, err
		}
		var p Prompt
		if err := json.Unmarshal(data, &p); err != nil {
			return Prompt{}, err
		}
		return p, nil
	}
	return Prompt{}, errors.New("commit without " + FileName)
}

// promptRefs returns (name, sha) pairs of every ref under refs/prompts/,
// loose and packed (a loose ref wins), sorted by name.
func (r *Repo) promptRefs() ([][2]string, error) {
	refs := map[string]string{}
	if f, err := os.Open(joinPath(r.path, "packed-refs")); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			line := sc.Text()
			if len(line) < 42 || line[0] == '#' || line[0] == '^' {
				continue
			}
			sha, name, ok := strings.Cut(line, " ")
			if ok && strings.HasPrefix(name, RefPrefix) && isHex40(sha) {
				refs[name] = sha
			}
		}
		f.Close()
		if err := sc.Err(); err != nil {
			return nil, err
		}
	}
	// Walked through an fs.FS of the repository, whose paths are
	// slash-separated on every system, as ref names are.
	fsys := os.DirFS(r.path)
	err := fs.WalkDir(fsys, strings.TrimSuffix(RefPrefix, "/"), func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		base := d.Name()
		if d.IsDir() || strings.HasPrefix(base, ".") || strings.HasSuffix(base, ".lock") {
			return nil
		}
		data, err := fs.ReadFile(fsys, name)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		sha := string(bytes.TrimSpace(data))
		if !isHex40(sha) {
			return nil
		}
		refs[name] = sha
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := make([][2]string, 0, len(refs))
	for name, sha := range refs {
		out = append(out, [2]string{name, sha})
	}
	slices.SortFunc(out, func(a, b [2]string) int { return strings.Compare(a[0], b[0]) })
	return out, nil
}

func isHex40(s string) bool {
	if len(s) != 40 {
		return false
	}
	_, err := hex.DecodeString(s)
	return err == nil
}

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
		return HookInput{}, fmt.Errorf("capture: read hook input: %w", err)
	}
	if len(data) > MaxHookInput {
		return HookInput{}, errorf(ErrTooLarge, "capture: hook input over %d bytes", MaxHookInput)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return HookInput{}, errorf(ErrInvalid, "capture: empty hook input")
	}
	var h HookInput
	if err := json.Unmarshal(data, &h); err != nil {
		return HookInput{}, errorf(ErrInvalid, "capture: hook input is not a JSON object: %v", err)
	}
	if h.Prompt == "" {
		return HookInput{}, errorf(ErrInvalid, "capture: hook input has no prompt")
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
	line := strings.TrimSpace(firstLine(string(data)))
	target, ok := strings.CutPrefix(line, "gitdir:")
	if !ok {
		return ""
	}
	target = strings.TrimSpace(target)
	if !isAbsPath(target) {
		target = joinPath(dirPath(name), target)
	}
	return target
}

func readHead(gitdir string) string {
	if gitdir == "" {
		return ""
	}
	data, err := os.ReadFile(joinPath(gitdir, "HEAD"))
	if err != nil {
		return ""
	}
	head := strings.TrimSpace(string(data))
	if ref, ok := strings.CutPrefix(head, "ref:"); ok {
		ref = strings.TrimSpace(ref)
		if b, ok := strings.CutPrefix(ref, "refs/heads/"); ok {
			return b
		}
		return ref
	}
	if isHex40(head) || (len(head) == 64 && isHexString(head)) {
		return head
	}
	return ""
}

func isHexString(s string) bool {
	_, err := hex.DecodeString(s)
	return err == nil
}
