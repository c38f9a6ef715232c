package httpmsg_test

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arcport/arcport/lib/httpmsg"
	"github.com/arcport/arcport/lib/internal/samples"
	"github.com/arcport/arcport/lib/warc"
)

// TestChunkedFallbackIana reads pywb's sample iana.warc.gz, whose
// responses say "Transfer-Encoding: chunked": some bodies are chunked,
// others are not (a Content-Length: -1 follows) and must be read as they
// are, as warcio and pywb read them. Every chunked-declared body decodes
// without error, the non-chunked ones to their stored bytes, and the home
// page to an HTML document with its title.
func TestChunkedFallbackIana(t *testing.T) {
	testdata := filepath.Dir(filepath.Dir(samples.Path("x.warc")))
	path := filepath.Join(filepath.Dir(testdata), "..", "shared", "fixtures", "pywb", "sample_archive", "warcs", "iana.warc.gz")
	f, err := os.Open(path)
	if err != nil {
		t.Skipf("fixture missing: %v", err)
	}
	defer f.Close()
	rr, err := warc.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var chunked, raw int
	var home []byte
	for {
		rec, err := rr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if rec.Type() != "response" || rec.Block == nil {
			continue
		}
		br := bufio.NewReader(rec.Block)
		h, err := httpmsg.ReadHead(br)
		if err != nil || !h.Chunked() {
			continue
		}
		body, err := io.ReadAll(br)
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(httpmsg.NewChunkedReader(bytes.NewReader(body)))
		if err != nil {
			t.Errorf("%s: %v", rec.TargetURI(), err)
			continue
		}
		var out bytes.Buffer
		d := httpmsg.Dechunker{W: &out}
		d.Write(body)
		if !bytes.Equal(out.Bytes(), got) {
			t.Errorf("%s: push and pull decoders differ", rec.TargetURI())
		}
		switch {
		case d.Raw():
			raw++
			if !bytes.Equal(got, body) {
				t.Errorf("%s: not chunked, yet decoded to other bytes than stored", rec.TargetURI())
			}
		case d.Done():
			chunked++
		default:
			t.Errorf("%s: neither chunked to its end nor raw", rec.TargetURI())
		}
		if rec.TargetURI() == "http://www.iana.org/" {
			home = got
		}
	}
	t.Logf("iana.warc.gz: %d responses chunked, %d say chunked but are not", chunked, raw)
	if raw != 25 || chunked != 0 {
		t.Errorf("%d raw, %d chunked, want 25 and 0 (every response of the file that says chunked is not)", raw, chunked)
	}
	if !strings.Contains(string(home), "<title>Internet Assigned Numbers Authority</title>") {
		t.Errorf("home page body: %.300q", home)
	}
}
