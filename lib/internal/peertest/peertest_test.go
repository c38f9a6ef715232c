package peertest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestFindWarcio finds the repository's warcio.js from this directory and
// runs its CLI; then finds it where a user points ($ARCPORT_WARCIO) and on
// PATH, and refuses an $ARCPORT_WARCIO that holds no warcio.js.
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
	pkg := filepath.Dir(filepath.Dir(cli))

	// a copy elsewhere, named by ARCPORT_WARCIO
	elsewhere := filepath.Join(t.TempDir(), "warcio")
	if err := os.Symlink(pkg, elsewhere); err != nil {
		t.Fatal(err)
	}
	t.Setenv("ARCPORT_WARCIO", elsewhere)
	if _, dir, err := FindWarcio(); err != nil || dir != elsewhere {
		t.Errorf("with ARCPORT_WARCIO: %q, %v", dir, err)
	}
	t.Setenv("ARCPORT_WARCIO", "/elsewhere/warcio")
	if _, _, err := FindWarcio(); err == nil || !strings.Contains(err.Error(), "/elsewhere/warcio") {
		t.Errorf("ARCPORT_WARCIO without warcio.js: err %v", err)
	}

	// a `warcio` command on PATH, from a directory outside the repository
	t.Setenv("ARCPORT_WARCIO", "")
	binDir := t.TempDir()
	if err := os.Symlink(cli, filepath.Join(binDir, "warcio")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", binDir+string(os.PathListSeparator)+filepath.Dir(node))
	t.Chdir(t.TempDir())
	if _, dir, err := FindWarcio(); err != nil || dir != pkg {
		t.Errorf("warcio on PATH: %q, %v; want %s", dir, err, pkg)
	}
}

// TestMissing: outside CI a missing peer skips with the line make test's
// summary collects; under CI=true it fails.
func TestMissing(t *testing.T) {
	for _, ci := range []string{"", "true"} {
		t.Setenv("CI", ci)
		ft := &fakeTB{TB: t}
		func() {
			defer func() { recover() }()
			Missing(ft, "httrack", "httrack not on PATH")
		}()
		if ci == "" && (!ft.skipped || ft.failed || !strings.HasPrefix(ft.msg, MissingPrefix+"httrack: ")) {
			t.Errorf("CI=%q: skipped %v failed %v msg %q", ci, ft.skipped, ft.failed, ft.msg)
		}
		if ci == "true" && (ft.skipped || !ft.failed) {
			t.Errorf("CI=%q: skipped %v failed %v msg %q", ci, ft.skipped, ft.failed, ft.msg)
		}
	}
}

// fakeTB records how Missing ended a test (Skipf and Fatalf stop the
// calling goroutine in a real test; here they panic to the recover above).
type fakeTB struct {
	testing.TB
	skipped, failed bool
	msg             string
}

func (f *fakeTB) Helper() {}
func (f *fakeTB) Skipf(format string, a ...any) {
	f.skipped, f.msg = true, fmt.Sprintf(format, a...)
	panic("skip")
}
func (f *fakeTB) Fatalf(format string, a ...any) {
	f.failed, f.msg = true, fmt.Sprintf(format, a...)
	panic("fatal")
}

// TestCI: every common spelling of a true CI variable counts as CI (CI
// systems set CI=true, some CI=1 or CI=yes); unset, empty, 0 and false do
// not.
func TestCI(t *testing.T) {
	for _, v := range []string{"true", "TRUE", "True", "1", "yes", "YES", "on", "y"} {
		t.Setenv("CI", v)
		if !CI() {
			t.Errorf("CI=%q: not CI", v)
		}
	}
	for _, v := range []string{"", "0", "false", "FALSE", "False"} {
		t.Setenv("CI", v)
		if CI() {
			t.Errorf("CI=%q: taken for CI", v)
		}
	}
	os.Unsetenv("CI") // t.Setenv restores it afterwards
	if CI() {
		t.Error("CI unset: taken for CI")
	}
}

// endsTB runs f with a fakeTB and returns how it ended t.
func endsTB(t *testing.T, f func(tb testing.TB)) *fakeTB {
	ft := &fakeTB{TB: t}
	func() {
		defer func() { recover() }()
		f(ft)
	}()
	return ft
}

// TestNeed: a command on PATH is found; one that is not ends the test
// with Missing: skipped outside CI, failed under CI=1.
func TestNeed(t *testing.T) {
	dir := t.TempDir()
	tool := filepath.Join(dir, "arcport-peer-tool")
	if err := os.WriteFile(tool, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir)
	t.Setenv("CI", "")
	if ft := endsTB(t, func(tb testing.TB) {
		if p := Need(tb, "arcport-peer-tool", "tool"); p != tool {
			t.Errorf("Need: %q, want %q", p, tool)
		}
	}); ft.skipped || ft.failed {
		t.Errorf("on PATH: skipped %v failed %v %q", ft.skipped, ft.failed, ft.msg)
	}
	if ft := endsTB(t, func(tb testing.TB) { Need(tb, "no-such-peer-tool", "nopkg") }); !ft.skipped || ft.failed || !strings.HasPrefix(ft.msg, MissingPrefix+"nopkg: ") {
		t.Errorf("missing, CI unset: skipped %v failed %v %q", ft.skipped, ft.failed, ft.msg)
	}
	t.Setenv("CI", "1")
	if ft := endsTB(t, func(tb testing.TB) { Need(tb, "no-such-peer-tool", "nopkg") }); ft.skipped || !ft.failed {
		t.Errorf("missing, CI=1: skipped %v failed %v %q", ft.skipped, ft.failed, ft.msg)
	}
}
