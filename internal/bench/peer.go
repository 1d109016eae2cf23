package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/mnemo-dev/mnemo/mcpserver"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/synth"
)

// PeerPackage is the npm package of the reference MCP memory server.
const PeerPackage = "@modelcontextprotocol/server-memory"

// PeerEntry is the peer server's entry point inside its npm install directory.
const PeerEntry = "node_modules/@modelcontextprotocol/server-memory/dist/index.js"

// ErrMnemoMCP is returned (wrapped) when the mnemo binary has no working
// `mnemo mcp` command.
var ErrMnemoMCP = errors.New("mnemo mcp not built")

// PeerOptions configure RunPeer.
type PeerOptions struct {
	// PeerDir holds package.json, package-lock.json and node_modules of the
	// peer (see scripts/bench-peer.sh); default "bench/peer".
	PeerDir string
	// Node is the node executable; default "node".
	Node string
	// Mnemo is the mnemo executable; RunPeer runs `Mnemo mcp --db … --namespace …`.
	Mnemo string
	N     int // observations written to each server; default 500
	M     int // search queries sent to each server; default 200
	// Data, when set, adds the LoCoMo comparison: every turn is stored in
	// both servers and each question (categories 1–4) is searched.
	Data *Dataset
	// Conversations limits the LoCoMo comparison to the first n
	// conversations; 0 means all.
	Conversations int
	Seed          uint64 // workload seed; default 1
	Dir           string // working directory for both servers' files; "" = a new temp dir, removed after
	// Progress, when set, is told what runs.
	Progress func(stage string, done, total int)
}

// PeerSide is one server's figures.
type PeerSide struct {
	Name   string   `json:"name"`
	Write  Latency  `json:"write"`            // one observation per tool call
	Search Latency  `json:"search"`           // one query per tool call
	Digest *Latency `json:"digest,omitempty"` // mnemo's workflow_memory_query (2,000 tokens), same queries
	// RecallAt10 is the LoCoMo evidence recall@10 (categories 1–4) through
	// this server's search tool, when the comparison ran.
	RecallAt10 *float64 `json:"locomo_recall_at_10,omitempty"`
}

// PeerReport is the outcome of RunPeer.
type PeerReport struct {
	N           int      `json:"observations"`
	M           int      `json:"queries"`
	PeerVersion string   `json:"peer_version"`
	Mnemo       PeerSide `json:"mnemo"`
	Peer        PeerSide `json:"peer"`
	// WriteRatio and SearchRatio are peer p50 over mnemo p50 (above 1:
	// mnemo is faster).
	WriteRatio  float64 `json:"write_ratio"`
	SearchRatio float64 `json:"search_ratio"`
	// LoCoMoQuestions is how many questions the recall comparison scored.
	LoCoMoQuestions int     `json:"locomo_questions,omitempty"`
	Elapsed         float64 `json:"elapsed_s"`
}

// PeerInstalled reports whether the peer server is installed in dir.
func PeerInstalled(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, PeerEntry))
	return err == nil
}

// dial starts argv as an MCP server over stdio (with env added to the
// environment) and connects to it.
func dial(ctx context.Context, name string, argv []string, env []string) (*mcpserver.Client, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = io.Discard
	return mcpserver.DialCommand(ctx, name, cmd)
}

// The tools both sides are driven through.
const (
	peerCreate  = "create_entities"
	peerAdd     = "add_observations"
	peerSearch  = "search_nodes"
	mnemoWrite  = "memory_remember"
	mnemoRecall = "memory_recall"
	mnemoQuery  = "workflow_memory_query"
)

type peerGraph struct {
	Entities []struct {
		Name string `json:"name"`
	} `json:"entities"`
}

type mnemoHits struct {
	Hits []struct {
		Provenance []string `json:"provenance"`
	} `json:"hits"`
}

type peerEntity struct {
	Name         string   `json:"name"`
	EntityType   string   `json:"entityType"`
	Observations []string `json:"observations"`
}

// RunPeer drives the reference MCP memory server and `mnemo mcp` with the
// same Go MCP client (go-sdk, stdio) on the same workload: N observations
// written one per tool call (peer: add_observations to one of 20 entities;
// mnemo: memory_remember), then M queries (peer: search_nodes, its
// case-insensitive substring match; mnemo: memory_recall with k=10, and
// workflow_memory_query at 2,000 tokens). With Data, both also answer the
// LoCoMo questions: every turn is an entity named by its dia_id in the peer
// and a record with provenance "dia:<id>" in mnemo, and each question's
// first 10 results are scored for evidence recall@10.
func RunPeer(ctx context.Context, opt PeerOptions) (*PeerReport, error) {
	start := time.Now()
	if opt.PeerDir == "" {
		opt.PeerDir = filepath.Join("bench", "peer")
	}
	if opt.Node == "" {
		opt.Node = "node"
	}
	if opt.N <= 0 {
		opt.N = 500
	}
	if opt.M <= 0 {
		opt.M = 200
	}
	if opt.Seed == 0 {
		opt.Seed = 1
	}
	if !PeerInstalled(opt.PeerDir) {
		return nil, mnemo.Errorf(mnemo.ENOTFOUND, "the peer server is not installed in %s: run scripts/bench-peer.sh (npm ci)", opt.PeerDir)
	}
	if opt.Mnemo == "" {
		return nil, mnemo.Errorf(mnemo.EINVALID, "no mnemo executable given")
	}
	progress := orQuiet(opt.Progress)
	dir, cleanup, err := workDir(opt.Dir, "mnemo-peer-")
	if err != nil {
		return nil, err
	}
	defer cleanup()
	rep := &PeerReport{N: opt.N, M: opt.M, PeerVersion: peerVersion(opt.PeerDir),
		Mnemo: PeerSide{Name: "mnemo"}, Peer: PeerSide{Name: PeerPackage}}

	peerArgv := []string{opt.Node, filepath.Join(opt.PeerDir, PeerEntry)}
	open := func(tag, ns string) (*mcpserver.Client, *mcpserver.Client, error) {
		p, err := dial(ctx, PeerPackage, peerArgv, []string{"MEMORY_FILE_PATH=" + filepath.Join(dir, tag+".jsonl")})
		if err != nil {
			return nil, nil, err
		}
		if err := p.HasTools(ctx, peerCreate, peerAdd, peerSearch); err != nil {
			p.Close()
			return nil, nil, err
		}
		m, err := dial(ctx, "mnemo", []string{opt.Mnemo, "mcp", "--db", filepath.Join(dir, tag+".db"), "--namespace", ns},
			[]string{"MNEMO_EMBEDDER=hash", "MNEMO_EMBED_DIM=", "MNEMO_PRESET="})
		if err == nil {
			err = m.HasTools(ctx, mnemoWrite, mnemoRecall, mnemoQuery)
			if err != nil {
				m.Close()
			}
		}
		if err != nil {
			p.Close()
			return nil, nil, fmt.Errorf("%w (%s mcp): %v", ErrMnemoMCP, opt.Mnemo, err)
		}
		return p, m, nil
	}

	// The synthetic workload.
	peer, mn, err := open("synthetic", "bench")
	if err != nil {
		return nil, err
	}
	syn := synth.NewWorkload(opt.Seed, time.Now())
	var ents []peerEntity
	for i := range 20 {
		ents = append(ents, peerEntity{Name: "topic-" + strconv.Itoa(i), EntityType: "topic", Observations: []string{}})
	}
	if err := peer.Call(ctx, peerCreate, map[string]any{"entities": ents}, nil); err != nil {
		return nil, err
	}
	var pw, mw, ps, ms, md []time.Duration
	for i := range opt.N {
		text := syn.Record().Text
		t0 := time.Now()
		err := peer.Call(ctx, peerAdd, map[string]any{"observations": []map[string]any{
			{"entityName": "topic-" + strconv.Itoa(i%20), "contents": []string{text}}}}, nil)
		t1 := time.Now()
		if err == nil {
			err = mn.Call(ctx, mnemoWrite, map[string]any{"text": text, "source": "user"}, nil)
		}
		t2 := time.Now()
		if err != nil {
			return nil, err
		}
		pw, mw = append(pw, t1.Sub(t0)), append(mw, t2.Sub(t1))
		progress("write", i+1, opt.N)
	}
	for i := range opt.M {
		q := syn.Query()
		t0 := time.Now()
		err := peer.Call(ctx, peerSearch, map[string]any{"query": q}, nil)
		t1 := time.Now()
		if err == nil {
			err = mn.Call(ctx, mnemoRecall, map[string]any{"query": q, "k": 10}, nil)
		}
		t2 := time.Now()
		if err == nil {
			err = mn.Call(ctx, mnemoQuery, map[string]any{"task_description": q, "token_budget": 2000}, nil)
		}
		t3 := time.Now()
		if err != nil {
			return nil, err
		}
		ps, ms, md = append(ps, t1.Sub(t0)), append(ms, t2.Sub(t1)), append(md, t3.Sub(t2))
		progress("search", i+1, opt.M)
	}
	peer.Close()
	mn.Close()
	rep.Peer.Write, rep.Mnemo.Write = NewLatency(pw), NewLatency(mw)
	rep.Peer.Search, rep.Mnemo.Search = NewLatency(ps), NewLatency(ms)
	d := NewLatency(md)
	rep.Mnemo.Digest = &d
	rep.WriteRatio = ratio(rep.Peer.Write.P50, rep.Mnemo.Write.P50)
	rep.SearchRatio = ratio(rep.Peer.Search.P50, rep.Mnemo.Search.P50)

	if opt.Data != nil {
		if err := peerLoCoMo(ctx, opt, rep, open, progress); err != nil {
			return nil, err
		}
	}
	rep.Elapsed = round2(time.Since(start).Seconds())
	return rep, nil
}

func ratio(a, b time.Duration) float64 {
	if b <= 0 {
		return 0
	}
	return round2(float64(a) / float64(b))
}

// peerLoCoMo stores every turn in both servers (one process pair per
// conversation) and scores recall@10 of each side's search.
func peerLoCoMo(ctx context.Context, opt PeerOptions, rep *PeerReport,
	open func(tag, ns string) (*mcpserver.Client, *mcpserver.Client, error), progress func(string, int, int)) error {
	convs := opt.Data.Conversations
	if opt.Conversations > 0 && opt.Conversations < len(convs) {
		convs = convs[:opt.Conversations]
	}
	total := 0
	for _, c := range convs {
		for _, q := range c.Questions {
			if q.Category >= 1 && q.Category <= 4 && len(q.Evidence) > 0 {
				total++
			}
		}
	}
	var sumPeer, sumMnemo float64
	n := 0
	for ci, c := range convs {
		peer, mn, err := open("locomo-"+strconv.Itoa(ci), "locomo")
		if err != nil {
			return err
		}
		err = func() error {
			defer peer.Close()
			defer mn.Close()
			var ents []peerEntity
			flush := func() error {
				if len(ents) == 0 {
					return nil
				}
				err := peer.Call(ctx, peerCreate, map[string]any{"entities": ents}, nil)
				ents = ents[:0]
				return err
			}
			for _, s := range c.Sessions {
				thread := fmt.Sprintf("%s/session-%d", c.ID, s.N)
				for _, t := range s.Turns {
					ents = append(ents, peerEntity{Name: t.DiaID, EntityType: "turn", Observations: []string{t.RecordText()}})
					if len(ents) == 100 {
						if err := flush(); err != nil {
							return err
						}
					}
					if err := mn.Call(ctx, mnemoWrite, map[string]any{"text": t.RecordText(), "source": "user",
						"provenance": []string{"dia:" + t.DiaID}, "thread": thread}, nil); err != nil {
						return err
					}
				}
			}
			if err := flush(); err != nil {
				return err
			}
			for _, q := range c.Questions {
				if q.Category < 1 || q.Category > 4 || len(q.Evidence) == 0 {
					continue
				}
				var g peerGraph
				if err := peer.Call(ctx, peerSearch, map[string]any{"query": q.Text}, &g); err != nil {
					return err
				}
				var pr []string
				for _, e := range g.Entities {
					pr = append(pr, e.Name)
				}
				var h mnemoHits
				if err := mn.Call(ctx, mnemoRecall, map[string]any{"query": q.Text, "k": 10}, &h); err != nil {
					return err
				}
				var mr []string
				for _, hit := range h.Hits {
					// A merged near-duplicate carries several turns' provenance.
					for _, p := range hit.Provenance {
						if id, ok := strings.CutPrefix(p, "dia:"); ok {
							mr = append(mr, id)
						}
					}
				}
				sumPeer += ScoreQuestion(pr, nil, q.Evidence, []int{10}).RecallAt[10]
				sumMnemo += ScoreQuestion(mr, nil, q.Evidence, []int{10}).RecallAt[10]
				n++
				progress("locomo", n, total)
			}
			return nil
		}()
		if err != nil {
			return err
		}
	}
	if n > 0 {
		p, m := sumPeer/float64(n), sumMnemo/float64(n)
		rep.Peer.RecallAt10, rep.Mnemo.RecallAt10 = &p, &m
	}
	rep.LoCoMoQuestions = n
	return nil
}

// peerVersion reads the installed peer's version from its package.json.
func peerVersion(dir string) string {
	b, err := os.ReadFile(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "server-memory", "package.json"))
	if err != nil {
		return ""
	}
	var p struct {
		Version string `json:"version"`
	}
	_ = json.Unmarshal(b, &p)
	return p.Version
}

// WriteMarkdown writes the peer comparison as a Markdown table.
func (r *PeerReport) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "Side by side over MCP stdio (same Go client): %d observations written one per call, %d queries; %s %s; %.1f s.\n\n",
		r.N, r.M, PeerPackage, r.PeerVersion, r.Elapsed)
	b.WriteString("| server | write p50 / p95 / p99 (ms) | search p50 / p95 / p99 (ms) | digest p50 / p95 / p99 (ms) | LoCoMo recall@10 |\n|---|---:|---:|---:|---:|\n")
	ms := func(l *Latency) string {
		if l == nil {
			return "—"
		}
		f := func(d time.Duration) string { return strconv.FormatFloat(float64(d.Microseconds())/1000, 'f', 2, 64) }
		return f(l.P50) + " / " + f(l.P95) + " / " + f(l.P99)
	}
	rc := func(x *float64) string {
		if x == nil {
			return "—"
		}
		return strconv.FormatFloat(*x, 'f', 3, 64)
	}
	for _, s := range []PeerSide{r.Mnemo, r.Peer} {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", s.Name, ms(&s.Write), ms(&s.Search), ms(s.Digest), rc(s.RecallAt10))
	}
	fmt.Fprintf(&b, "\nPeer ÷ mnemo at p50: write %.2f×, search %.2f×.", r.WriteRatio, r.SearchRatio)
	if r.LoCoMoQuestions > 0 {
		fmt.Fprintf(&b, " LoCoMo recall@10 over %d questions (categories 1–4).", r.LoCoMoQuestions)
	}
	b.WriteString("\n")
	_, err := io.WriteString(w, b.String())
	return err
}
