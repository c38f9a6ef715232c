package safefs

import (
	"errors"
	"strings"
	"testing"
)

// TestSplitPath: the relative paths a Root accepts, with Unix's rules and
// with Windows' (run here on any system).
func TestSplitPath(t *testing.T) {
	const refused = "REFUSED"
	for _, tc := range []struct {
		rel           string
		unix, windows string // components joined by "|", or refused
	}{
		{"a/b/c.html", "a|b|c.html", "a|b|c.html"},
		{"./a//b/", "a|b", "a|b"},
		{"", "", ""},
		{".", "", ""},
		{`a\b\c.html`, `a\b\c.html`, "a|b|c.html"},
		{`a/b\c`, `a|b\c`, "a|b|c"},
		{"/etc/passwd", refused, refused},
		{"a/../../b", refused, refused},
		{"..", refused, refused},
		{`..\x`, `..\x`, refused},
		{`a\..\..\x`, `a\..\..\x`, refused},
		{`C:\Windows\x`, `C:\Windows\x`, refused},
		{"C:/Windows/x", "C:|Windows|x", refused},
		{"C:x", "C:x", refused}, // drive C's current folder
		{"c:", "c:", refused},
		{`\\server\share\x`, `\\server\share\x`, refused},
		{`\\?\C:\x`, `\\?\C:\x`, refused},
		{`\x`, `\x`, refused},   // the root of the current drive
		{"a:b", "a:b", refused}, // an NTFS stream of a
		{"a/b::$DATA", "a|b::$DATA", refused},
		{"a./b", "a.|b", refused},
		{".. /x", ".. |x", refused},
		{"a/b ", "a|b ", refused},
		{"...", "...", refused},
		{".hidden/x.html", ".hidden|x.html", ".hidden|x.html"},
		{"résumé/ünïcode.html", "résumé|ünïcode.html", "résumé|ünïcode.html"},
	} {
		for _, win := range []bool{false, true} {
			want := tc.unix
			if win {
				want = tc.windows
			}
			comps, err := splitPath("open", tc.rel, win)
			got := strings.Join(comps, "|")
			if err != nil {
				if !errors.Is(err, ErrEscape) {
					t.Errorf("splitPath(%q, windows=%v): %v, want ErrEscape", tc.rel, win, err)
				}
				got = refused
			}
			if got != want {
				t.Errorf("splitPath(%q, windows=%v) = %q, want %q", tc.rel, win, got, want)
			}
		}
	}
}
