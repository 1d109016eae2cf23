// Package capture records operator prompts as orphan commits in a bare git
// repository (DESIGN.md §6, "prompt capture, phase 0"). It reads and writes
// the repository's files itself, without git. The write path is
// internal/capturewrite, which this package re-exports: it is written with
// so little of the standard library that `mnemo capture` runs and exits
// before the rest of the binary initialises (see that package); this one
// adds reading (List, loose objects and packs).
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
// so concurrent writers never leave a partial object behind; objects are
// stored uncompressed in their zlib streams, as git's
// core.looseCompression=0 writes them (`git gc` packs them compressed).
// List reads loose objects, compressed or not, and the packs `git gc`
// makes.
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
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mnemo-dev/mnemo/internal/capturewrite"
)

// FileName is the name of the file that holds a prompt in each commit's tree.
const FileName = capturewrite.FileName

// RefPrefix is the prefix of every prompt ref.
const RefPrefix = capturewrite.RefPrefix

// MaxHookInput is the largest hook input ReadHook accepts, in bytes.
const MaxHookInput = capturewrite.MaxHookInput

// The kinds of error this package returns for bad input and a missing
// repository: each such error wraps one of them (errors.Is), and its
// message is safe to show. The package imports nothing of mnemo's own
// packages but its write path, so its callers give these kinds their codes.
var (
	ErrInvalid  = capturewrite.ErrInvalid
	ErrNotFound = capturewrite.ErrNotFound
	ErrTooLarge = capturewrite.ErrTooLarge
)

// Prompt is one captured operator prompt: the content of prompt.json.
type Prompt = capturewrite.Prompt

// Captured is a prompt stored in the repository, with the ref and commit
// that hold it.
type Captured = capturewrite.Captured

// HookInput is the JSON a Claude Code hook receives on stdin. Unknown fields
// are ignored.
type HookInput = capturewrite.HookInput

// UserRepo is the prompt repository of a user whose home directory is
// home: home/.local/share/mnemo/prompts.git.
func UserRepo(home string) string { return capturewrite.UserRepo(home) }

// ReadHook decodes the hook JSON from r. It returns an ErrInvalid error for
// empty input, malformed JSON, or input without a prompt, and an
// ErrTooLarge one for input over MaxHookInput bytes.
func ReadHook(r io.Reader) (HookInput, error) { return capturewrite.ReadHook(r) }

// FromHook builds the Prompt for hook input h captured at now: the
// repository and branch come from h.Cwd's git work tree (see Locate).
func FromHook(h HookInput, now time.Time) Prompt { return capturewrite.FromHook(h, now) }

// Locate finds the git work tree that contains cwd by walking up to the
// first directory with a .git entry, and reads its HEAD without running
// git. repository is that directory (cwd itself when there is none);
// branch is the checked-out branch name, the full ref name for a symbolic
// HEAD outside refs/heads/, the commit sha for a detached HEAD, or "" when
// unknown. A .git file ("gitdir: …", as in linked work trees and
// submodules) is followed.
func Locate(cwd string) (repository, branch string) { return capturewrite.Locate(cwd) }

// SanitizeSession turns a session id into a valid single ref component:
// characters outside [A-Za-z0-9._-] become "_", leading dots and a trailing
// ".lock" are removed, runs of dots are collapsed, and the result is at most
// 128 bytes; "unknown" when nothing is left.
func SanitizeSession(id string) string { return capturewrite.SanitizeSession(id) }

// Message returns the commit message for p: a subject line with the first
// line of the prompt and the metadata trailers.
func Message(p Prompt) string { return capturewrite.Message(p) }

// Repo is a bare git repository of captured prompts. It is safe for
// concurrent use, and several processes may write to the same repository at
// the same time.
type Repo struct {
	w *capturewrite.Repo
}

// Open opens the bare prompt repository at path. It returns an ErrNotFound
// error when there is no repository there.
func Open(ctx context.Context, path string) (*Repo, error) {
	w, err := capturewrite.Open(ctx, path)
	if err != nil {
		return nil, err
	}
	return &Repo{w: w}, nil
}

// OpenOrInit opens the bare prompt repository at path, creating it first
// when it does not exist. Concurrent first use from several processes is
// safe: the repository is built in a temporary directory and renamed into
// place, and the losers of that race open the winner's repository.
func OpenOrInit(ctx context.Context, path string) (*Repo, error) {
	w, err := capturewrite.OpenOrInit(ctx, path)
	if err != nil {
		return nil, err
	}
	return &Repo{w: w}, nil
}

// Path returns the directory of the bare repository.
func (r *Repo) Path() string { return r.w.Path() }

// Capture writes p as an orphan commit and a new ref, and returns them.
// It returns an ErrInvalid error for a prompt without a timestamp.
func (r *Repo) Capture(ctx context.Context, p Prompt) (Captured, error) {
	return r.w.Capture(ctx, p)
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
	if f, err := os.Open(filepath.Join(r.Path(), "packed-refs")); err == nil {
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
	fsys := os.DirFS(r.Path())
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

// firstLine returns s from its first character that is not a space, tab or
// line break to the end of that line.
func firstLine(s string) string {
	s = strings.TrimLeft(s, " \t\r\n")
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		return s[:i]
	}
	return s
}
