package cdx

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arcport/arcport/lib/internal/peertest"
)

// pySURTExtra are URLs besides lib/surt's corpus: the IA canonicaliser's
// own cases (session ids, ports, IP forms, escapes) and non-http schemes.
var pySURTExtra = []string{
	"http://www.iana.org/domains/root/db/",
	"metadata://gnu.org/software/wget/warc/MANIFEST.txt",
	"urn:X-wpull:log",
	"file:///example%20with%20spaces.png",
	"dns:www.example.com",
	"http://example.com/foo;jsessionid=0123456789abcdef0123456789abcdef?x=1",
	"http://example.com/?jsessionid=0123456789abcdef0123456789abcdef&a=b",
	"http://example.com/?a=b&PHPSESSID=0123456789abcdef0123456789abcdef",
	"http://example.com/?sid=0123456789abcdef0123456789abcdef",
	"http://example.com/?ASPSESSIONIDABCDEFGH=ABCDEFGHIJKLMNOPQRSTUVWX&z=1",
	"http://example.com/?cfid=12&cftoken=34&q=1",
	"http://example.com/(a(0123456789abcdef01234567))/default.aspx?x",
	"http://example.com/(0123456789abcdef01234567)/page.aspx",
	"http://3232235777/", "http://0300.0250.1.1/", "http://192.168.1/", "http://1.2.3.4/", "http://256.1.1.1/",
	"http://0x7f.1/", "http://99999999999999999999999/", "http://010/",
	"http://example.com:8080/A/B/../C/./D?B=2&a=1&A=3&b", "http://example.com:80", "https://example.com:443/x/",
	"http://example.com:99999/", "http://example.com:8a/", "http://example.com:/",
	"http://www4.Example.COM./%41%2541%252541/?Q=%7e&%zz", "http://exa%2Dmple.com/", "http://example..com/",
	"http://user:pass@example.com/", "http://[::1]:8080/x", "http://münchen.de/straße", "http://EXAMPLE.com/ä?ö=ü",
	"http://example.com/a b?c d#frag", "example.com/no/scheme", "http://http://example.com/", "https://https://example.com/x",
	"http://example.com/?", "http://example.com/#x", "http://example.com/?a&a=&a=1&b=2&b", "mailto:Someone@Example.com",
	"ftp://ftp.example.com/Pub/", "http:///path/only", "http:example.com/x", "  http://example.com/trim  ", "http://exam\tple.com/",
	"filedesc://x.arc", "",
}

// pySURTIDNA are the corpus URLs whose host Python's IDNA 2003 codec
// (nameprep: Unicode 3.2 stringprep tables, bidi rules) encodes otherwise
// than UTS #46, which PySURT uses: a soft hyphen or ZWNJ label, a label
// mixing right-to-left letters and digits, one starting with a combining
// mark, and U+2488 (NFKC "1."). Exotic hosts; listed, not reproduced.
var pySURTIDNA = map[string]bool{
	"http://\u00ad/":           true,
	"http://\u0627" + "1.com/": true,
	"http://\u05d0" + "a.com/": true,
	"http://\u0300" + "a.com/": true,
	"http://\u2488.com/":       true,
	"http://\u200c.com/":       true,
}

// TestPySURT compares PySURT with Python surt 0.3.1 itself (the venv's
// Python, where `make peers` installs it with cdxj-indexer) on lib/surt's
// corpus of hard URLs and pySURTExtra: every key must be the same.
func TestPySURT(t *testing.T) {
	indexer := peertest.NeedPy(t, "cdxj-indexer")
	python := filepath.Join(filepath.Dir(indexer), "python")
	urls := append([]string{}, pySURTExtra...)
	f, err := os.Open("../surt/testdata/corpus.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var u string
		if err := json.Unmarshal(sc.Bytes(), &u); err != nil {
			t.Fatal(err)
		}
		urls = append(urls, u)
	}
	f.Close()
	var in bytes.Buffer
	for _, u := range urls {
		b, _ := json.Marshal(u)
		in.Write(append(b, '\n'))
	}
	// cdxj-indexer's get_url_key: surt.surt(url), the URL itself when it raises
	script := `import sys, json, surt
for line in sys.stdin:
    u = json.loads(line)
    try:
        k = surt.surt(u)
    except Exception:
        k = u
    print(json.dumps(k))
`
	cmd := exec.Command(python, "-c", script)
	cmd.Stdin = &in
	var se bytes.Buffer
	cmd.Stderr = &se
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("python surt: %v\n%s", err, se.String())
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != len(urls) {
		t.Fatalf("python printed %d keys for %d URLs", len(lines), len(urls))
	}
	bad := 0
	for i, u := range urls {
		var want string
		if err := json.Unmarshal([]byte(lines[i]), &want); err != nil {
			t.Fatal(err)
		}
		if got := PySURT(u); got != want && !pySURTIDNA[u] {
			bad++
			t.Errorf("PySURT(%q) = %q, Python surt %q", u, got, want)
		}
	}
	t.Logf("%d URLs, %d differ (besides the %d IDNA 2003 hosts listed)", len(urls), bad, len(pySURTIDNA))
}
