package zimdump

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const fixtures = "../../../testdata/zim"

// runZimdump runs the command in-process with stdout and stderr merged
// (like the 2>&1 that produced expected/) and returns the output with
// "rc=N" appended as the fixtures do.
func runZimdump(args ...string) string {
	var buf bytes.Buffer
	rc := Run(args, &buf, &buf)
	return buf.String() + fmt.Sprintf("rc=%d\n", rc)
}

// arcportRC rewrites the "rc=N" line that ends an openzim transcript to
// the status arcport's zimdump gives for it (see Status): the text is the
// same, the exit status follows the arcport convention.
func arcportRC(transcript string) string {
	i := strings.LastIndex(transcript, "rc=")
	if i < 0 {
		return transcript
	}
	var rc int
	fmt.Sscanf(transcript[i:], "rc=%d", &rc)
	return transcript[:i] + fmt.Sprintf("rc=%d\n", Status(rc))
}

// TestGoldenOpenzim compares info and list --details on every fixture with
// what openzim zimdump 3.1.3 printed (testdata/zim/expected). Where libzim
// died on an internal assertion (its text carries a stack trace with
// addresses), the output up to the assertion and the exit status must be
// the same, followed by our own "Exception: <reason>" line.
func TestGoldenOpenzim(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(fixtures, "expected", "*.txt"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no expected files: %v", err)
	}
	n := 0
	for _, exp := range files {
		base := filepath.Base(exp)
		var cmd []string
		var name string
		switch {
		case strings.HasSuffix(base, ".info.txt"):
			cmd, name = []string{"info"}, strings.TrimSuffix(base, ".info.txt")
		case strings.HasSuffix(base, ".list-details.txt"):
			cmd, name = []string{"list", "--details"}, strings.TrimSuffix(base, ".list-details.txt")
		default:
			t.Fatalf("unexpected file %s", base)
		}
		variant, file, _ := strings.Cut(name, "_")
		zimPath := filepath.Join(fixtures, variant, file)
		t.Run(base, func(t *testing.T) {
			wantB, err := os.ReadFile(exp)
			if err != nil {
				t.Fatal(err)
			}
			want := arcportRC(string(wantB))
			got := runZimdump(append(cmd, zimPath)...)
			if i := strings.Index(want, "\nAssertion failed at "); i >= 0 {
				prefix := want[:i]
				wantRC := want[strings.LastIndex(want, "rc="):]
				if !strings.HasPrefix(got, prefix+"Exception: ") || !strings.HasSuffix(got, "\n"+wantRC) {
					t.Fatalf("got\n%s\nwant prefix\n%q + \"Exception: ...\" and %q", got, prefix, wantRC)
				}
				msg := strings.TrimSuffix(got[len(prefix)+len("Exception: "):], "\n"+wantRC)
				if strings.TrimSpace(msg) == "" || strings.Contains(msg, "\n") {
					t.Fatalf("want a one-line reason, got %q", msg)
				}
				t.Logf("libzim assertion replaced by: %s", msg)
				return
			}
			if got != want {
				t.Fatalf("output differs from openzim\n--- got\n%s\n--- want\n%s", got, want)
			}
		})
		n++
	}
	if n != 100 {
		t.Errorf("compared %d expected files, want 100", n)
	}
}
