package peertest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestNeedPy finds every Python peer where make peers installs it and runs
// each one's --version (or --help); then refuses a venv whose package has
// another version than the pin, and one that lacks the command.
func TestNeedPy(t *testing.T) {
	for cmd, peer := range PyPeers {
		t.Run(cmd, func(t *testing.T) {
			p := NeedPy(t, cmd)
			arg := "--version"
			// uvicorn --version names uvicorn's own version, not authsign's
			if cmd == "wb-manager" || cmd == "cdxj-indexer" || cmd == "wayback" || cmd == "uvicorn" {
				arg = "--help"
			}
			out, err := exec.Command(p, arg).CombinedOutput()
			if err != nil {
				t.Fatalf("%s %s: %v\n%s", p, arg, err, out)
			}
			if arg == "--version" && !strings.Contains(string(out), peer.Version) {
				t.Errorf("%s --version = %q, want %s", p, out, peer.Version)
			}
		})
	}

	fake := t.TempDir()
	site := filepath.Join(fake, "lib", "python3.11", "site-packages")
	for _, d := range []string{filepath.Join(fake, "bin"), filepath.Join(site, "warcio-1.7.4.dist-info")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(fake, "bin", "warcio"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv(PyVenvEnv, fake)
	if _, err := FindPy("warcio"); err == nil || !strings.Contains(err.Error(), "1.7.4, not the pinned 1.8.1") {
		t.Errorf("FindPy(warcio) with warcio 1.7.4: err = %v", err)
	}
	if _, err := FindPy("wacz"); err == nil || !strings.Contains(err.Error(), "has no bin/wacz") {
		t.Errorf("FindPy(wacz) in a venv without it: err = %v", err)
	}
	if _, err := FindPy("nosuch"); err == nil {
		t.Error("FindPy(nosuch): no error")
	}
}
