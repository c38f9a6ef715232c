package peertest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOpenzimZimdump: the Debian package's zimdump is found at its
// package path and its --version names zim-tools and libzim; a zimdump
// that is arcport's (or anything else), or none, is a missing peer:
// skipped outside CI, failed under CI.
func TestOpenzimZimdump(t *testing.T) {
	t.Setenv(OpenzimZimdumpEnv, "")
	p := OpenzimZimdump(t)
	if p != "/usr/bin/zimdump" {
		t.Errorf("OpenzimZimdump: %q", p)
	}
	dir := t.TempDir()
	ours := filepath.Join(dir, "zimdump")
	if err := os.WriteFile(ours, []byte("#!/bin/sh\necho 'zimdump (arcport) 0.1.0-dev'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ path, why string }{{ours, "is not openzim's zimdump"}, {filepath.Join(dir, "none"), "not installed"}} {
		t.Setenv(OpenzimZimdumpEnv, tc.path)
		for _, ci := range []string{"", "true"} {
			t.Setenv("CI", ci)
			ft := endsTB(t, func(tb testing.TB) { OpenzimZimdump(tb) })
			if ft.skipped == (ci != "") || ft.failed != (ci != "") || !strings.Contains(ft.msg, MissingPrefix+"zim-tools: "+tc.path+" "+tc.why) {
				t.Errorf("%s, CI=%q: skipped %v failed %v %q", tc.path, ci, ft.skipped, ft.failed, ft.msg)
			}
		}
	}
}

func TestIsOpenzimVersion(t *testing.T) {
	for v, want := range map[string]bool{
		"zim-tools 3.1.3\n\nlibzim 8.1.1\n+ libzstd 1.5.4\n": true,
		"zim-tools 3.4.2\nlibzim 9.2.3\n":                    true,
		"zimdump (arcport) 0.1.0-dev\n":                      false,
		"zim-tools 3.1.3 (arcport)\nlibzim 8.1.1\n":          false,
		"libzim 8.1.1\n":                                     false,
		"":                                                   false,
	} {
		if IsOpenzimVersion(v) != want {
			t.Errorf("%q: %v, want %v", v, !want, want)
		}
	}
}
