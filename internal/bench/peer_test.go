package bench

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/mnemo-dev/mnemo"
)

// TestRunPeer drives the installed peer server and a freshly built `mnemo
// mcp` on a small workload. It needs node, the peer installed in
// bench/peer (scripts/bench-peer.sh) and MNEMO_BENCH_PEER=1, since building
// mnemo and starting node take longer than the default test run should.
func TestRunPeer(t *testing.T) {
	if os.Getenv("MNEMO_BENCH_PEER") == "" {
		t.Skip("set MNEMO_BENCH_PEER=1 to run the peer comparison (needs node and scripts/bench-peer.sh)")
	}
	if !PeerInstalled("peer") {
		t.Skip("peer not installed in bench/peer: run scripts/bench-peer.sh")
	}
	bin := filepath.Join(t.TempDir(), "mnemo")
	build := exec.Command("go", "build", "-o", bin, "../../cmd/mnemo")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build mnemo: %v\n%s", err, out)
	}
	ds := loadTiny(t)
	rep, err := RunPeer(context.Background(), PeerOptions{PeerDir: "peer", Mnemo: bin, N: 20, M: 10, Data: ds, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if rep.PeerVersion == "" || rep.Peer.Search.P50 <= 0 || rep.Mnemo.Write.P50 <= 0 || rep.Mnemo.Digest == nil {
		t.Errorf("report %+v", rep)
	}
	if rep.LoCoMoQuestions != 4 || rep.Mnemo.RecallAt10 == nil || rep.Peer.RecallAt10 == nil {
		t.Fatalf("locomo part: %d questions", rep.LoCoMoQuestions)
	}
	// The fixture's questions are never substrings of a turn.
	if *rep.Peer.RecallAt10 != 0 || *rep.Mnemo.RecallAt10 <= 0.5 {
		t.Errorf("recall@10 peer %v mnemo %v", *rep.Peer.RecallAt10, *rep.Mnemo.RecallAt10)
	}

	// A binary without `mnemo mcp` gives ErrMnemoMCP.
	_, err = RunPeer(context.Background(), PeerOptions{PeerDir: "peer", Mnemo: "/bin/false", N: 1, M: 1, Dir: t.TempDir()})
	if !errors.Is(err, ErrMnemoMCP) {
		t.Errorf("err = %v, want ErrMnemoMCP", err)
	}
}

func TestRunPeerNotInstalled(t *testing.T) {
	_, err := RunPeer(context.Background(), PeerOptions{PeerDir: t.TempDir(), Mnemo: "mnemo"})
	if mnemo.ErrorCode(err) != mnemo.ENOTFOUND {
		t.Errorf("err = %v, want ENOTFOUND", err)
	}
}
