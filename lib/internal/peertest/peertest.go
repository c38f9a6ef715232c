package peertest

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// MissingPrefix starts the skip message of a test whose peer is missing;
// scripts/testsum gathers these lines into `make test`'s summary.
const MissingPrefix = "missing peer "

// CI reports whether the tests run under CI (CI=true), where a missing peer
// is a failure.
func CI() bool {
	v := strings.ToLower(os.Getenv("CI"))
	return v != "" && v != "0" && v != "false"
}

// Missing ends t because peer (a package name, as `make peers` installs it)
// is not there: why says what was looked for. Under CI the test fails;
// elsewhere it is skipped with "missing peer PEER: WHY".
func Missing(t testing.TB, peer, why string) {
	t.Helper()
	if CI() {
		t.Fatalf("%s%s: %s (CI=true: every peer must be installed; run make peers)", MissingPrefix, peer, why)
	}
	t.Skipf("%s%s: %s (make peers installs it)", MissingPrefix, peer, why)
}

// Need returns the path of command cmd on PATH, or ends t with Missing
// when it is not installed; peer names the package that provides it.
func Need(t testing.TB, cmd, peer string) string {
	t.Helper()
	p, err := exec.LookPath(cmd)
	if err != nil {
		Missing(t, peer, cmd+" not on PATH")
	}
	return p
}

// Chromium returns the path of Chromium (chromium, chromium-browser or
// google-chrome on PATH), or ends t with Missing.
func Chromium(t testing.TB) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	Missing(t, "chromium", "no chromium, chromium-browser or google-chrome on PATH")
	return ""
}

// FindWarcio returns node and the directory of the npm warcio package,
// looked for in order: $ARCPORT_WARCIO; scripts/npm/node_modules/warcio
// in the working directory or the nearest directory above it that has one
// (where `make peers` installs it); the package behind a `warcio` command
// on PATH; and npm's global node_modules (`npm root -g`).
func FindWarcio() (node, dir string, err error) {
	node, err = exec.LookPath("node")
	if err != nil {
		return "", "", errors.New("node not installed")
	}
	isPkg := func(d string) bool {
		_, err := os.Stat(filepath.Join(d, "dist", "cli.js"))
		return err == nil
	}
	if d := os.Getenv("ARCPORT_WARCIO"); d != "" {
		if !isPkg(d) {
			return "", "", fmt.Errorf("ARCPORT_WARCIO=%s holds no dist/cli.js", d)
		}
		return node, d, nil
	}
	if wd, err := os.Getwd(); err == nil {
		for d := wd; ; d = filepath.Dir(d) {
			if p := filepath.Join(d, "scripts", "npm", "node_modules", "warcio"); isPkg(p) {
				return node, p, nil
			}
			if filepath.Dir(d) == d {
				break
			}
		}
	}
	if p, err := exec.LookPath("warcio"); err == nil {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			// node_modules/warcio/dist/cli.js behind node_modules/.bin/warcio
			if d := filepath.Dir(filepath.Dir(real)); isPkg(d) {
				return node, d, nil
			}
		}
	}
	if npm, err := exec.LookPath("npm"); err == nil {
		if out, err := exec.Command(npm, "root", "-g").Output(); err == nil {
			if d := filepath.Join(strings.TrimSpace(string(out)), "warcio"); isPkg(d) {
				return node, d, nil
			}
		}
	}
	return "", "", errors.New("npm warcio not found ($ARCPORT_WARCIO, scripts/npm/node_modules, PATH, npm root -g)")
}

// Warcio is FindWarcio for a test: it ends t with Missing when node or
// warcio.js is missing.
func Warcio(t testing.TB) (node, dir string) {
	t.Helper()
	node, dir, err := FindWarcio()
	if err != nil {
		Missing(t, "warcio", err.Error())
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
