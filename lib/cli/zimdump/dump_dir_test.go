package zimdump

import "testing"

// TestTrimDir: --dir loses one trailing separator, never becoming another
// folder (Windows rules run here too).
func TestTrimDir(t *testing.T) {
	for _, tc := range []struct{ dir, unix, windows string }{
		{"out", "out", "out"},
		{"out/", "out", "out"},
		{"out//", "out/", "out/"},
		{"/", "/", "/"},
		{"/tmp/out/", "/tmp/out", "/tmp/out"},
		{`out\`, `out\`, "out"},
		{`C:\out\`, `C:\out\`, `C:\out`},
		{`C:\out`, `C:\out`, `C:\out`},
		{"C:/out/", "C:/out", "C:/out"},
		{`C:\`, `C:\`, `C:\`},
		{"C:/", "C:", "C:/"},
		{"C:", "C:", "C:"},
		{`\\server\share\dump\`, `\\server\share\dump\`, `\\server\share\dump`},
		{`\`, `\`, `\`},
	} {
		if got := trimDir(tc.dir, false); got != tc.unix {
			t.Errorf("trimDir(%q, unix) = %q, want %q", tc.dir, got, tc.unix)
		}
		if got := trimDir(tc.dir, true); got != tc.windows {
			t.Errorf("trimDir(%q, windows) = %q, want %q", tc.dir, got, tc.windows)
		}
	}
}
