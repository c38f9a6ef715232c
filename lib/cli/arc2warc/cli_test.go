package arc2warc

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arcport/arcport/lib/internal/cliutil"
)

func TestFlagsFirst(t *testing.T) {
	tests := []struct{ in, want string }{
		{"a.arc -o out.warc.gz", "-o out.warc.gz a.arc"},
		{"a.arc b.arc --strict -q", "--strict -q a.arc b.arc"},
		{"--compress none a.arc --warc-version 1.0", "--compress none --warc-version 1.0 a.arc"},
		{"a.arc --compress=zstd -", "--compress=zstd a.arc -"},
		{"-o x -- -weird.arc -q", "-o x -- -weird.arc -q"},
		{"a.arc -o", "-o a.arc"},
	}
	for _, tc := range tests {
		if got := strings.Join(cliutil.ReorderArgs(NewApp(nil, nil, nil), strings.Fields(tc.in)), " "); got != tc.want {
			t.Errorf("%q: %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestAppInProcess runs the command in-process on the bundled example with
// the options that choose the output format.
func TestAppInProcess(t *testing.T) {
	arcData, err := os.ReadFile("../../../testdata/arc/example.arc")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args   []string
		prefix string
		code   int
		stderr string
	}{
		{[]string{"--compress", "none"}, "WARC/1.1\r\nWARC-Type: warcinfo\r\n", 0, ""},
		{[]string{"--compress", "none", "--warc-version", "1.0"}, "WARC/1.0\r\nWARC-Type: warcinfo\r\n", 0, ""},
		{[]string{}, "\x1f\x8b", 0, ""},
		{[]string{"--compress", "none", "-v"}, "WARC/1.1", 0, "arc2warc: -: ARC version 1, plain, 2 records read, 0 repaired, 0 skipped, 0 damaged\n"},
		{[]string{"--warc-version", "0.9"}, "", 2, "arc2warc: --warc-version must be 1.1 or 1.0, not \"0.9\" (see arc2warc -h)\n"},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			var out, errb bytes.Buffer
			app := NewApp(bytes.NewReader(arcData), &out, &errb)
			err := app.Run(append([]string{"arc2warc"}, tc.args...))
			if code := cliutil.Report("arc2warc", err, &errb); code != tc.code {
				t.Fatalf("exit %d, want %d (%v)", code, tc.code, err)
			}
			if !strings.HasPrefix(out.String(), tc.prefix) || errb.String() != tc.stderr {
				t.Errorf("stdout %q..., stderr %q", out.String()[:min(out.Len(), 40)], errb.String())
			}
		})
	}
	// -o writes atomically: nothing under the final name on failure (WARC
	// input is copied since --recompress; this one is malformed).
	dir := t.TempDir()
	var errb bytes.Buffer
	app := NewApp(strings.NewReader("WARC/1.0\r\n\r\n"), &bytes.Buffer{}, &errb)
	err = app.Run([]string{"arc2warc", "-o", filepath.Join(dir, "x.warc.gz")})
	if err == nil || err.Error() != "-: record at decompressed offset 0: WARC header without Content-Length" {
		t.Errorf("error %v", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("left %v", entries)
	}
}
