package peertest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// PyVenvEnv names a variable that points the tests at another virtual
// environment holding the Python reference tools (its bin/ and lib/ as
// `python3 -m venv` lays them out).
const PyVenvEnv = "ARCPORT_PYVENV"

// PyPeer is one Python reference tool: the pip package, the version
// `make peers` pins, and the venv under scripts/ it is installed in.
type PyPeer struct {
	Package string // pip package name
	Version string // the pinned version
	Venv    string // directory under scripts/: "venv" or "venv-zim"
}

// PyPeers maps each command the tests run to the package that provides it,
// as scripts/peers.sh installs them. warc2zim has its own venv: its 2.3
// releases require Python 3.14, newer than the Python the others run on;
// where the machine has no 3.14, peers.sh unpacks the CPython 3.14 build
// that the Go module github.com/kluctl/go-embed-python embeds.
// pywb's cdx-server script is left out: in pywb 2.10.0 it fails at import
// (pywb.apps.cli has no cdx_server); wayback serves the CDX API at
// /COLLECTION/cdx.
var PyPeers = map[string]PyPeer{
	"warcio":       {"warcio", "1.8.1", "venv"},
	"wacz":         {"wacz", "0.6.0", "venv"},
	"cdxj-indexer": {"cdxj-indexer", "1.5.0", "venv"},
	"wb-manager":   {"pywb", "2.10.0", "venv"},
	"wayback":      {"pywb", "2.10.0", "venv"},
	// authsign (py-wacz's [signing] extra): its server runs under uvicorn
	"uvicorn":  {"authsign", "0.6.1", "venv"},
	"warc2zim": {"warc2zim", "2.3.1", "venv-zim"},
}

// FindPy returns the path of command cmd (a key of PyPeers) in the virtual
// environment `make peers` installs it in, looked for in $ARCPORT_PYVENV,
// then in scripts/VENV of the working directory or the nearest directory
// above it that has one. The package's installed version must be the one
// pinned: another version is an error, not a silent substitute.
func FindPy(cmd string) (string, error) {
	peer, ok := PyPeers[cmd]
	if !ok {
		return "", fmt.Errorf("%s: not a known Python peer command", cmd)
	}
	var venvs []string
	if d := os.Getenv(PyVenvEnv); d != "" {
		venvs = append(venvs, d)
	} else if wd, err := os.Getwd(); err == nil {
		for d := wd; ; d = filepath.Dir(d) {
			if v := filepath.Join(d, "scripts", peer.Venv); pyIsFile(filepath.Join(v, "bin", "python")) {
				venvs = append(venvs, v)
				break
			}
			if filepath.Dir(d) == d {
				break
			}
		}
	}
	if len(venvs) == 0 {
		return "", fmt.Errorf("no scripts/%s (python venv) here or above, and no $%s", peer.Venv, PyVenvEnv)
	}
	v := venvs[0]
	p := filepath.Join(v, "bin", cmd)
	if !pyIsFile(p) {
		return "", fmt.Errorf("%s has no %s", v, filepath.Join("bin", cmd))
	}
	have, err := pyVersion(v, peer.Package)
	if err != nil {
		return "", err
	}
	if have != peer.Version {
		return "", fmt.Errorf("%s in %s is %s, not the pinned %s", peer.Package, v, have, peer.Version)
	}
	return p, nil
}

// pyVersion reads the installed version of pip package pkg from the
// venv's site-packages (its NAME-VERSION.dist-info directory), without
// starting Python.
func pyVersion(venv, pkg string) (string, error) {
	norm := strings.ToLower(strings.NewReplacer("-", "_", ".", "_").Replace(pkg))
	infos, _ := filepath.Glob(filepath.Join(venv, "lib", "python3*", "site-packages", "*.dist-info"))
	for _, d := range infos {
		name, ver, ok := strings.Cut(strings.TrimSuffix(filepath.Base(d), ".dist-info"), "-")
		if ok && strings.ToLower(strings.NewReplacer("-", "_", ".", "_").Replace(name)) == norm {
			return ver, nil
		}
	}
	return "", errors.New(pkg + " is not installed in " + venv)
}

func pyIsFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}

// NeedPy is FindPy for a test: it returns the command's path, or ends t
// with Missing (skip locally, fail under CI) naming the pip package.
func NeedPy(t testing.TB, cmd string) string {
	t.Helper()
	p, err := FindPy(cmd)
	if err != nil {
		peer := cmd
		if pp, ok := PyPeers[cmd]; ok {
			peer = pp.Package + "==" + pp.Version
		}
		Missing(t, peer, err.Error())
	}
	return p
}
