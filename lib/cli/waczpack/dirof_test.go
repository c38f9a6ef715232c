package waczpack

import "testing"

// TestDirOfOS: the folder of an output path, where create, merge and add
// make their temporary file, under Unix and Windows rules (run on Linux).
func TestDirOfOS(t *testing.T) {
	for _, tc := range []struct {
		p             string
		unix, windows string
	}{
		{"site.wacz", ".", "."},
		{"out/site.wacz", "out", "out"},
		{"/site.wacz", "/", "/"},
		{"/srv/out/site.wacz", "/srv/out", "/srv/out"},
		{`C:\x\site.wacz`, ".", `C:\x`},
		{`C:\site.wacz`, ".", `C:\`},
		{`C:/x/site.wacz`, "C:/x", "C:/x"},
		{`C:/site.wacz`, "C:", "C:/"},
		{`C:site.wacz`, ".", "C:"},
		{`d:\crawl.d\out.wacz`, ".", `d:\crawl.d`},
		{`\\server\share\site.wacz`, ".", `\\server\share`},
		{`out\site.wacz`, ".", "out"},
		{`a/b\c.wacz`, "a", `a/b`},
	} {
		if got := dirOfOS(tc.p, false); got != tc.unix {
			t.Errorf("unix %q: %q, want %q", tc.p, got, tc.unix)
		}
		if got := dirOfOS(tc.p, true); got != tc.windows {
			t.Errorf("windows %q: %q, want %q", tc.p, got, tc.windows)
		}
	}
}
