package mirrorget

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/arcport/arcport/lib/internal/sitetest"
)

// TestRecoverFileCuts: a stream file cut at every few bytes of its last
// capture (as SIGKILL leaves it) is recovered to the captures before it:
// the file then reads strictly, and the URLs of its whole captures are
// reported as written; a file cut between the request and the response of
// a WARC capture loses the request too. For ARC and WARC.
func TestRecoverFileCuts(t *testing.T) {
	mg := buildMirrorget(t)
	s := sitetest.Start(t, sitetest.Options{Pages: 3, Hosts: 1, Latency: time.Millisecond})
	for _, format := range []string{"warc", "arc"} {
		t.Run(format, func(t *testing.T) {
			dir := t.TempDir()
			whole := filepath.Join(dir, "whole."+format+".gz")
			if _, stderr, code := runBin(t, mg, "-q", "--robots", "off", "--format", format, "-c", "1", "-o", whole, s.StartURL()); code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			data, err := os.ReadFile(whole)
			if err != nil {
				t.Fatal(err)
			}
			all := readAllRecords(t, whole, format)
			cuts, cutInside := 0, 0
			for cut := len(data) - 1; cut > len(data)*2/3; cut -= 7 {
				p := filepath.Join(dir, "cut")
				os.WriteFile(p, data[:cut], 0o644)
				rec := recovered{}
				n, err := recoverFile(p, format, rec)
				if err != nil {
					t.Fatalf("cut at %d: %v", cut, err)
				}
				left := readAllRecords(t, p, format)
				if left >= all || n < 0 {
					t.Fatalf("cut at %d: %d of %d records kept, %d bytes cut", cut, left, all, n)
				}
				if n > 0 {
					cutInside++ // a cut on a record's end leaves nothing to cut
				}
				if format == "warc" && left%2 != 1 { // warcinfo, then request+response pairs
					t.Fatalf("cut at %d: %d records: a request left without its response", cut, left)
				}
				if len(rec) == 0 {
					t.Fatalf("cut at %d: no URL reported as written", cut)
				}
				cuts++
			}
			t.Logf("%s: %d cuts recovered, each to whole captures (%d inside a record)", format, cuts, cutInside)
			if cutInside < cuts/2 {
				t.Errorf("only %d of %d cuts fell inside a record", cutInside, cuts)
			}
		})
	}
}
