package arc2warc

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arcport/arcport/lib/internal/cliutil"
	"github.com/arcport/arcport/lib/record"
	"github.com/arcport/arcport/lib/warc"
)

func gzMembers(parts ...string) []byte {
	var b bytes.Buffer
	for _, p := range parts {
		zw := gzip.NewWriter(&b)
		zw.Write([]byte(p))
		zw.Close()
	}
	return b.Bytes()
}

const arcFDBlock = "1 0 test\nURL IP-address Archive-date Content-type Archive-length\n\n"

var arcFD = fmt.Sprintf("filedesc://x.arc 0.0.0.0 20200101000000 text/plain %d\n", len(arcFDBlock)) + arcFDBlock

func arcRec(n int, length string) string {
	body := "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nhello"
	if length == "" {
		length = fmt.Sprint(len(body))
	}
	return fmt.Sprintf("http://r%d.test/ 1.2.3.4 20200101000000 text/plain %s\n%s\n", n, length, body)
}

// TestImpossibleLength: an ARC record whose declared length is impossible
// (negative, or past the end of the file), in plain and gzip ARC, is
// damage, not a repair: arc2warc writes what it can salvage, reports the
// record with the file and its offset, and exits 1 (it exited 0 and called
// it "repaired").
func TestImpossibleLength(t *testing.T) {
	a1, a3 := arcRec(1, ""), arcRec(3, "")
	gzOff := len(gzMembers(arcFD)) + len(gzMembers(a1))
	cases := []struct {
		name string
		data []byte
		off  int
		msg  string
		uris string // of the responses written
	}{
		{"neg.arc", []byte(arcFD + a1 + arcRec(2, "-5") + a3), len(arcFD + a1), `bad length "-5": block taken up to the next record (50 bytes)`, "http://r1.test/ http://r2.test/ http://r3.test/"},
		{"neg.arc.gz", gzMembers(arcFD, a1, arcRec(2, "-5"), a3), gzOff, `bad length "-5": block taken up to the next record (50 bytes)`, "http://r1.test/ http://r2.test/ http://r3.test/"},
		{"past.arc", []byte(arcFD + a1 + arcRec(2, "100000")), len(arcFD + a1), "block cut short by the end of the file: 50 of 100000 bytes", "http://r1.test/ http://r2.test/"},
		{"past.arc.gz", gzMembers(arcFD, a1, arcRec(2, "100000")), gzOff, "block cut short by the end of the file: 50 of 100000 bytes", "http://r1.test/ http://r2.test/"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			in, out := filepath.Join(dir, c.name), filepath.Join(dir, "out.warc.gz")
			os.WriteFile(in, c.data, 0o644)
			var so, se bytes.Buffer
			err := NewApp(nil, &so, &se).Run([]string{"arc2warc", "-o", out, in})
			code := cliutil.Report("arc2warc", err, &se)
			want := fmt.Sprintf("arc2warc: %s: record at offset %d: %s (damaged: salvaged)\n"+
				"arc2warc: 0 problem(s) made records or bytes be skipped, 1 left a record damaged, salvaged as far as safe (0 repaired); see the messages above\n", in, c.off, c.msg)
			if code != 1 || se.String() != want {
				t.Errorf("exit %d, stderr %q; want exit 1, %q", code, se.String(), want)
			}
			f, err := os.Open(out)
			if err != nil {
				t.Fatalf("no salvaged output: %v", err)
			}
			defer f.Close()
			wr, err := warc.NewReader(f, warc.WithPolicy(record.Fail))
			if err != nil {
				t.Fatal(err)
			}
			var uris []string
			for {
				rec, err := wr.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				if rec.Type() == record.Response {
					uris = append(uris, rec.TargetURI())
				}
			}
			if got := strings.Join(uris, " "); got != c.uris {
				t.Errorf("responses written: %s, want %s", got, c.uris)
			}
		})
	}
}
