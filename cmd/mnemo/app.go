package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/client"
	"github.com/mnemo-dev/mnemo/embed"
	"github.com/mnemo-dev/mnemo/engine"
	"github.com/mnemo-dev/mnemo/episodes"
	"github.com/mnemo-dev/mnemo/llm"
	"github.com/mnemo-dev/mnemo/postgres"
	"github.com/mnemo-dev/mnemo/sqlite"
	"github.com/mnemo-dev/mnemo/thesaurus"
	"github.com/mnemo-dev/mnemo/tokenize"
)

// app holds what a command needs: flags, I/O and, opened lazily, the service.
type app struct {
	name    string
	summary string // the command's, for its help
	stdin   io.Reader
	stdout  io.Writer
	stderr  io.Writer
	env     func(string) string

	db        string
	namespace string
	json      bool
	server    string // --server: talk to a mnemo server instead of the file
	key       string // --api-key for --server

	indexMemory int64 // serve's --index-memory: bound of the store's in-memory indexes (0: none)
	// intentModel: the process lives on (serve, mcp), so the chat model,
	// when configured, is asked in the background for the intents the
	// rules call general (engine.Config.IntentModel).
	intentModel bool

	store   store
	dbLabel string // the database file, or the PostgreSQL URL without its password
	svc     *engine.Service
	th      *thesaurus.Thesaurus // the service's, once built

	// extractEvery is MNEMO_EXTRACT_EVERY: extraction on write once a
	// thread has gained that many messages (0: off). extractor reads the
	// store and writes through the service (serve's extraction job, the
	// queue); extraction is the queue the service's writes feed, when on.
	extractEvery int
	extractor    episodes.Extractor
	extraction   *episodes.Queue

	// readOnly commands only read: a database file that does not exist is
	// an error for them, not a new empty store.
	readOnly bool

	helpOut   io.Writer // where --help goes: stdout, even when a command silences it
	helpOnly  bool      // print the command's help and do nothing else
	helpShown bool      // the command printed its help
}

// store is what the CLI needs of a backend: records and API keys.
type store interface {
	mnemo.Store
	mnemo.KeyStore
}

// isPostgres reports whether a --db / MNEMO_DB value names a PostgreSQL database.
func isPostgres(db string) bool {
	return strings.HasPrefix(db, "postgres://") || strings.HasPrefix(db, "postgresql://")
}

// openStore opens the SQLite file or, for a postgres:// URL, the PostgreSQL database.
func openStore(ctx context.Context, db string, indexMemory int64) (store, string, error) {
	if isPostgres(db) {
		label := "postgres://(unparseable URL)" // never the raw URL: it may hold a password
		if u, err := url.Parse(db); err == nil {
			label = u.Redacted()
		}
		st, err := postgres.Open(ctx, postgres.Options{URL: db, IndexMemory: indexMemory})
		return st, label, err
	}
	st, err := sqlite.Open(ctx, sqlite.Options{Path: db, BusyTimeout: 30 * time.Second, IndexMemory: indexMemory})
	return st, db, err
}

// globalFlags registers the flags every command accepts.
func (a *app) globalFlags(fs *flag.FlagSet) {
	if fs.Lookup("db") != nil {
		return
	}
	fs.StringVar(&a.db, "db", a.db, "database file, or a postgres:// URL (env MNEMO_DB)")
	fs.StringVar(&a.namespace, "namespace", a.namespace, "namespace (env MNEMO_NAMESPACE)")
	fs.BoolVar(&a.json, "json", a.json, "machine-readable JSON output")
	fs.StringVar(&a.server, "server", a.server, "mnemo server URL, e.g. http://127.0.0.1:7077 (env MNEMO_SERVER)")
	fs.StringVar(&a.key, "api-key", a.key, "API key for --server (env MNEMO_API_KEY)")
}

// dbPath resolves the database file: --db, else $MNEMO_DB, else the XDG data directory.
func (a *app) dbPath() (string, error) {
	if a.db != "" {
		return a.db, nil
	}
	if p := a.env("MNEMO_DB"); p != "" {
		return p, nil
	}
	dir := a.env("XDG_DATA_HOME")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("cannot find a home directory for the database: set MNEMO_DB or --db")
		}
		dir = filepath.Join(home, ".local", "share")
	}
	return filepath.Join(dir, "mnemo", "mnemo.db"), nil
}

func (a *app) ns() string {
	if a.namespace != "" {
		return a.namespace
	}
	if ns := a.env("MNEMO_NAMESPACE"); ns != "" {
		return ns
	}
	return mnemo.DefaultNamespace
}

// serverURL is --server, else $MNEMO_SERVER; "" means local mode.
func (a *app) serverURL() string {
	if a.server != "" {
		return a.server
	}
	return a.env("MNEMO_SERVER")
}

// apiKey is --api-key, else $MNEMO_API_KEY.
func (a *app) apiKey() string {
	if a.key != "" {
		return a.key
	}
	return a.env("MNEMO_API_KEY")
}

// memory returns the memory the record commands talk to — a mnemo server
// through the Go client with --server, else the engine over the database —
// and ctx acting, for both, as the caller in the namespace the flags and
// the environment name. A server acts for its API key's caller, and in the
// key's only namespace (else the default) when none is named.
func (a *app) memory(ctx context.Context) (context.Context, mnemo.Service, error) {
	if u := a.serverURL(); u != "" {
		ns := a.namespace
		if ns == "" {
			ns = a.env("MNEMO_NAMESPACE")
		}
		c, err := client.New(u, client.Options{APIKey: a.apiKey(), Namespace: ns})
		if err != nil {
			return ctx, nil, err
		}
		return mnemo.WithCallerIn(ctx, a.caller(), ns), c, nil
	}
	svc, err := a.service(ctx)
	if err != nil {
		return ctx, nil, err
	}
	return mnemo.WithCallerIn(ctx, a.caller(), a.ns()), svc, nil
}

// caller is the local user: full clearance over their own database.
// Retrievals are logged under $MNEMO_OPERATOR (default "cli") and
// $MNEMO_SESSION, so corrections can later be matched to what was retrieved.
func (a *app) caller() mnemo.Caller {
	name := a.env("MNEMO_OPERATOR")
	if name == "" {
		name = "cli"
	}
	return mnemo.Caller{Name: name, Session: a.env("MNEMO_SESSION"), Role: mnemo.RoleAdmin, Clearance: mnemo.MaxAccessLevel}
}

// embedder builds the configured embedder from the environment.
func (a *app) embedder() (mnemo.Embedder, error) {
	dim := 0
	if v := a.env("MNEMO_EMBED_DIM"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("MNEMO_EMBED_DIM %q is not a positive integer", v)
		}
		dim = n
	}
	switch kind := a.env("MNEMO_EMBEDDER"); kind {
	case "", "hash":
		return embed.NewHash(dim), nil
	case "openai":
		key := a.env("MNEMO_EMBED_KEY")
		if key == "" {
			key = a.env("OPENAI_API_KEY")
		}
		base := a.env("MNEMO_EMBED_URL")
		if base == "" {
			base = "https://api.openai.com/v1"
		}
		e, err := embed.NewOpenAI(embed.OpenAIConfig{BaseURL: base, Model: a.env("MNEMO_EMBED_MODEL"), APIKey: key, Dim: dim})
		if err != nil {
			return nil, err
		}
		if dim == 0 {
			// The dimension is the model's: learn it before the store checks it.
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			if _, err := e.Embed(ctx, []string{"dimension probe"}); err != nil {
				return nil, fmt.Errorf("embedding endpoint %s: %w", base, err)
			}
		}
		return e, nil
	default:
		dir, ok := strings.CutPrefix(kind, "static:")
		if !ok || dir == "" {
			return nil, fmt.Errorf("MNEMO_EMBEDDER %q is unknown (want hash, openai or static:DIR)", kind)
		}
		e, err := embed.NewStatic(dir)
		if err != nil {
			return nil, err
		}
		if dim != 0 && dim != e.Info().Dim {
			return nil, fmt.Errorf("MNEMO_EMBED_DIM %d does not match the %d dimensions of the static model", dim, e.Info().Dim)
		}
		return e, nil
	}
}

// engineConfig is everything but the store.
func (a *app) engineConfig() (engine.Config, error) {
	emb, err := a.embedder()
	if err != nil {
		return engine.Config{}, err
	}
	tok, err := tokenize.Lazy(a.env("MNEMO_TOKENIZER"))
	if err != nil {
		return engine.Config{}, err
	}
	cfg := engine.Config{Embedder: embed.NewCached(emb, 1024), Tokenizer: tok, DefaultPreset: a.env("MNEMO_PRESET"),
		Logger: slog.New(slog.NewTextHandler(a.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))}
	th, err := thesaurus.Load(a.thesaurusConfig())
	if err != nil {
		// A broken resource is skipped; the others still expand.
		cfg.Logger.Warn("thesaurus", "err", err)
	}
	cfg.Thesaurus = th
	a.th = th
	if v := a.env("MNEMO_MAX_TEXT_BYTES"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			return cfg, fmt.Errorf("MNEMO_MAX_TEXT_BYTES %q is not a positive integer", v)
		}
		cfg.Limits.MaxTextBytes = n
	}
	if v := a.env("MNEMO_TRIAGE_CAPACITY"); v != "" {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || f < 0 {
			return cfg, fmt.Errorf("MNEMO_TRIAGE_CAPACITY %q is not a non-negative number", v)
		}
		cfg.TriageCapacity = f
	}
	// The optional chat model (MNEMO_CHAT_URL, …) writes episodes and
	// extracts memories in the background; it is never asked on recall or
	// digest.
	chat, err := llm.FromEnv(a.env)
	if err != nil {
		return cfg, err
	}
	cfg.Chat = chat
	cfg.IntentModel = a.intentModel
	if v := a.env("MNEMO_EXTRACT_EVERY"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > 1000 {
			return cfg, fmt.Errorf("MNEMO_EXTRACT_EVERY %q is not a number of messages in 0..1000", v)
		}
		a.extractEvery = n
	}
	return cfg, nil
}

// service opens the store and the engine once per command.
func (a *app) service(ctx context.Context) (*engine.Service, error) {
	return a.openService(ctx, false)
}

func (a *app) openService(ctx context.Context, allowMismatch bool) (*engine.Service, error) {
	if a.svc != nil {
		return a.svc, nil
	}
	cfg, err := a.engineConfig()
	if err != nil {
		return nil, err
	}
	path, err := a.dbPath()
	if err != nil {
		return nil, err
	}
	if a.readOnly && !isPostgres(path) {
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("no database at %s: nothing is stored there yet (a write such as 'mnemo remember' creates it; --db or MNEMO_DB names another)", path)
		}
	}
	st, label, err := openStore(ctx, path, a.indexMemory)
	if err != nil {
		return nil, err
	}
	a.dbLabel = label
	cfg.Store = st
	cfg.AllowMismatch = allowMismatch
	var q *episodes.Queue
	if a.extractEvery > 0 {
		q = episodes.NewQueue(cfg.Logger)
		cfg.ThreadsWritten = q.Add
	}
	svc, err := engine.New(ctx, cfg)
	if err != nil {
		if q != nil {
			q.Close()
		}
		st.Close()
		return nil, err
	}
	a.extractor = episodes.Extractor{Store: st, Records: svc, Chat: cfg.Chat, Log: cfg.Logger, Every: a.extractEvery, Lock: svc.LockThread}
	if q != nil {
		q.Start(a.extractor)
	}
	a.store, a.svc, a.extraction = st, svc, q
	return svc, nil
}

func (a *app) close() error {
	var err error
	if a.extraction != nil {
		a.extraction.Close() // writes through the service: closed first
	}
	if a.svc != nil {
		err = a.svc.Close()
	}
	if a.store != nil {
		if cerr := a.store.Close(); err == nil {
			err = cerr
		}
	}
	a.svc, a.store, a.extraction = nil, nil, nil
	return err
}
