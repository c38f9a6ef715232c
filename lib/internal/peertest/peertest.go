package peertest

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// FindWarcio returns node and the directory of the npm warcio package:
// $ARCPORT_WARCIO if set, else scripts/npm/node_modules/warcio in the
// working directory or the nearest directory above it that has one.
func FindWarcio() (node, dir string, err error) {
	node, err = exec.LookPath("node")
	if err != nil {
		return "", "", errors.New("node not installed")
	}
	if d := os.Getenv("ARCPORT_WARCIO"); d != "" {
		return node, d, nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", "", err
	}
	for d := wd; ; d = filepath.Dir(d) {
		p := filepath.Join(d, "scripts", "npm", "node_modules", "warcio")
		if _, err := os.Stat(filepath.Join(p, "dist", "cli.js")); err == nil {
			return node, p, nil
		}
		if filepath.Dir(d) == d {
			return "", "", errors.New("npm warcio not installed (scripts/npm/node_modules/warcio, make peers)")
		}
	}
}

// Warcio is FindWarcio for a test: it skips t when node or warcio.js is
// missing.
func Warcio(t testing.TB) (node, dir string) {
	t.Helper()
	node, dir, err := FindWarcio()
	if err != nil {
		t.Skipf("%v: skipping the comparison with warcio.js", err)
	}
	return node, dir
}

// WarcioCLI is Warcio returning the warcio command line tool's script
// (run it as node cli ARGS...).
func WarcioCLI(t testing.TB) (node, cli string) {
	t.Helper()
	node, dir := Warcio(t)
	return node, filepath.Join(dir, "dist", "cli.js")
}
