package peertest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestFindWarcio finds the repository's warcio.js from this directory and
// runs its CLI; with ARCPORT_WARCIO set it returns that directory as is.
func TestFindWarcio(t *testing.T) {
	node, cli := WarcioCLI(t)
	want, _ := filepath.Abs("../../../scripts/npm/node_modules/warcio/dist/cli.js")
	if os.Getenv("ARCPORT_WARCIO") == "" && cli != want {
		t.Errorf("cli %s, want %s", cli, want)
	}
	out, err := exec.Command(node, cli, "--help").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "cdx-index") {
		t.Errorf("warcio --help: %v\n%s", err, out)
	}
	t.Setenv("ARCPORT_WARCIO", "/elsewhere/warcio")
	if _, dir, err := FindWarcio(); err != nil || dir != "/elsewhere/warcio" {
		t.Errorf("with ARCPORT_WARCIO: %q, %v", dir, err)
	}
}
