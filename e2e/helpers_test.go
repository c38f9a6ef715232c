package e2e

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/arcport/arcport/lib/arc"
	"github.com/arcport/arcport/lib/record"
	"github.com/arcport/arcport/lib/warc"
)

// repoRoot is the repository's top directory (the parent of e2e/).
func repoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Dir(filepath.Dir(file))
}

// sample is the path of an ARC or WARC sample file: testdata/arc or
// testdata/warc, as lib/arc and lib/warc test with.
func sample(name string) string {
	if strings.Contains(name, ".arc") {
		return filepath.Join(repoRoot(), "testdata/arc", name)
	}
	return filepath.Join(repoRoot(), "testdata/warc", name)
}

// build holds the binaries of cmd/, built once per test run.
var build struct {
	once sync.Once
	dir  string
	err  error
}

// TestMain removes the binaries built for the tests.
func TestMain(m *testing.M) {
	code := m.Run()
	if build.dir != "" {
		os.RemoveAll(build.dir)
	}
	os.Exit(code)
}

// bin returns the path of the arcport command name (arc2warc, mirrorget,
// waczpack...). The first call builds every command of cmd/.
func bin(t *testing.T, name string) string {
	t.Helper()
	build.once.Do(func() {
		if build.dir, build.err = os.MkdirTemp("", "arcport-e2e-"); build.err != nil {
			return
		}
		cmd := exec.Command("go", "build", "-o", build.dir, "./cmd/...")
		cmd.Dir = repoRoot()
		if out, err := cmd.CombinedOutput(); err != nil {
			build.err = fmt.Errorf("go build ./cmd/...: %v\n%s", err, out)
		}
	})
	if build.err != nil {
		t.Fatal(build.err)
	}
	return filepath.Join(build.dir, name)
}

// run runs the binary bin with args and stdin (no input when nil) and
// returns what it wrote and its exit status.
func run(t *testing.T, bin string, stdin []byte, args ...string) (stdout []byte, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.Bytes(), errb.String(), code
}

// warcioCLI returns the path of the npm warcio CLI (warcio.js, the indexer
// behind ReplayWeb.page): $ARCPORT_WARCIO/dist/cli.js, else where `make
// peers` installs it (scripts/npm), else a `warcio` on PATH; it ends t with
// needPeer when there is none.
func warcioCLI(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		needPeer(t, "nodejs", "node not on PATH")
	}
	candidates := []string{filepath.Join(repoRoot(), "scripts/npm/node_modules/.bin/warcio")}
	if d := os.Getenv("ARCPORT_WARCIO"); d != "" {
		candidates = []string{filepath.Join(d, "dist/cli.js")}
	}
	for _, p := range candidates {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	if p, err := exec.LookPath("warcio"); err == nil {
		return p
	}
	needPeer(t, "warcio", "npm warcio not found ($ARCPORT_WARCIO, scripts/npm/node_modules, PATH)")
	return ""
}

// needPeer ends t because peer (a package name, as `make peers` installs
// it) is missing: under CI (CI=true) the test fails, elsewhere it skips
// with "missing peer PEER: WHY", which make test's summary collects. (The
// same rule as lib/internal/peertest.Missing, which e2e cannot import.)
func needPeer(t testing.TB, peer, why string) {
	t.Helper()
	if ci := strings.ToLower(os.Getenv("CI")); ci != "" && ci != "0" && ci != "false" {
		t.Fatalf("missing peer %s: %s (CI=true: every peer must be installed; run make peers)", peer, why)
	}
	t.Skipf("missing peer %s: %s (make peers installs it)", peer, why)
}

// needCmd returns the path of command cmd, or ends t with needPeer.
func needCmd(t testing.TB, cmd, peer string) string {
	t.Helper()
	p, err := exec.LookPath(cmd)
	if err != nil {
		needPeer(t, peer, cmd+" not on PATH")
	}
	return p
}

// capture is a record read back, with its block.
type capture struct {
	rec  *record.Record
	body []byte
}

// readWARC reads a WARC with lib/warc strictly, verifying digests; any
// problem fails the test.
func readWARC(t *testing.T, data []byte) []capture {
	t.Helper()
	r, err := warc.NewReader(bytes.NewReader(data), warc.WithPolicy(record.Fail), warc.WithVerifyDigests(true))
	if err != nil {
		t.Fatal(err)
	}
	return readAll(t, r, "reading the WARC back", true)
}

// readARC reads an ARC with lib/arc under policy; an error from Next fails
// the test, one reading a block is left to the caller's comparisons.
func readARC(t *testing.T, data []byte, policy record.Policy) []capture {
	t.Helper()
	r, err := arc.NewReader(bytes.NewReader(data), arc.WithPolicy(policy))
	if err != nil {
		t.Fatal(err)
	}
	return readAll(t, r, "reading the ARC", false)
}

// readAll reads every record of r with its block. An error from Next fails
// the test (the message starts with what), as does one reading a block if
// blockErrs is set.
func readAll(t *testing.T, r record.Reader, what string, blockErrs bool) []capture {
	t.Helper()
	var out []capture
	for {
		rec, err := r.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		c := capture{rec: rec}
		if rec.Block != nil {
			if c.body, err = io.ReadAll(rec.Block); err != nil && blockErrs {
				t.Fatalf("%s: block: %v", what, err)
			}
		}
		out = append(out, c)
	}
}
