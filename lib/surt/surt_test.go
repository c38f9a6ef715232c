package surt

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/arcport/arcport/lib/internal/peertest"
)

var update = flag.Bool("update", false, "regenerate testdata/golden.jsonl by running warcio.js getSurt")

// peerSurt runs warcio.js getSurt on every URL.
func peerSurt(t testing.TB, urls []string) []string {
	t.Helper()
	node, dir := peertest.Warcio(t)
	var in bytes.Buffer
	for _, u := range urls {
		b, _ := json.Marshal(u)
		in.Write(b)
		in.WriteByte('\n')
	}
	cmd := exec.Command(node, "testdata/getsurt.mjs", dir)
	cmd.Stdin = &in
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node getsurt.mjs: %v\n%s", err, stderr.String())
	}
	var res []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var s string
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			t.Fatalf("bad output line %q: %v", sc.Text(), err)
		}
		res = append(res, s)
	}
	if len(res) != len(urls) {
		t.Fatalf("warcio.js returned %d keys for %d URLs", len(res), len(urls))
	}
	return res
}

func readCorpus(t *testing.T) []string {
	b, err := os.ReadFile("testdata/corpus.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var urls []string
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var s string
		if err := json.Unmarshal([]byte(line), &s); err != nil {
			t.Fatalf("corpus line %q: %v", line, err)
		}
		urls = append(urls, s)
	}
	return urls
}

// TestGolden checks Key against keys warcio.js computed for the corpus
// (testdata/golden.jsonl, regenerated from warcio.js with -update).
func TestGolden(t *testing.T) {
	if *update {
		urls := readCorpus(t)
		keys := peerSurt(t, urls)
		var b bytes.Buffer
		for i := range urls {
			line, _ := json.Marshal([2]string{urls[i], keys[i]})
			b.Write(line)
			b.WriteByte('\n')
		}
		if err := os.WriteFile("testdata/golden.jsonl", b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile("testdata/golden.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for i, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var pair [2]string
		if err := json.Unmarshal([]byte(line), &pair); err != nil {
			t.Fatalf("golden line %d: %v", i+1, err)
		}
		if got := Key(pair[0]); got != pair[1] {
			t.Errorf("Key(%q) = %q, warcio.js gives %q", pair[0], got, pair[1])
		}
		n++
	}
	if n < 200 {
		t.Fatalf("golden file has only %d cases", n)
	}
}

// Pieces the random URL generator draws from: everything the WHATWG parser
// treats specially.
var (
	genSchemes = []string{"http://", "https://", "http:", "https:/", "http:\\\\", "HTTP://", "http:///"}
	genHostPre = []string{"", "", "", "www.", "www2.", "WWW.", "user@", "u:p@", "@", "a@b@"}
	genLabels  = []string{"example", "com", "org", "EXAMPLE", "a", "xn--bcher-kva", "bücher", "ΑΣ", "ς", "日本", "faß",
		"0x7f", "127", "1", "0", "09", "256", "0x", "a_b", "-a", "%41", "%2e", "%25", "", "ⓐ", "ＥＸ", "\u00ad", "xn--a",
		"[::1]", "[1::2:3]", "[::ffff:1.2.3.4]", "a b", "\t", "İ", "4294967295"}
	genPorts = []string{"", "", "", ":80", ":443", ":8080", ":", ":0080", ":65536", ":x", ":0"}
	genPath  = []string{"/", "/a", "/A", "/..", "/.", "/%2e", "/%2E%2e", "\\b", "/ü", "/ΑΣ", "/Σ", "/ ", "/\"", "/<>",
		"/`{}", "/^|", "/%7e", "/%zz", "/\x00", "/\x7f", "/\u0080", "/😀", "//", "/index.html", "/İ", "/'", "/.x", "/.."}
	genQuery = []string{"", "", "?", "?a=1", "?b=2&a=1", "?a=1&&B=2", "?q=a b", "?q='\"", "?q=ü", "?q=%20", "?z&y&x",
		"?__wb_method=post&x=1", "?a=Σ"}
	genFrag = []string{"", "", "#", "#f", "#a?b"}
)

// genRuneSet holds code points that exercise IDNA mapping, bidi, joiner
// and case rules.
var genRuneSet = []rune("aZ09-_.%~ßςΣσİıÅÀàéÉ\u0300\u0301\u0308\u0627\u0628\u0644\u0661\u05d0\u05d1" +
	"\u0915\u094d\u200c\u200d\u00ad\u3002\uff0e\uff21\uff41\u2488\u24b6\u1e9e\u212a\u2126" +
	"\u65e5\u672c\U0001F4A9\u0663\u06f1\u200b\u2060\ufeff\u034f\u180b\u0640\u07fa\u0e31\u1100\uac00" +
	"\u0130\u0345\u03d0\u1f88\ufb01\u2160\u33a1\u00bd\u00b2\u2024\u0387\u05f3\u30fb\u0f0b\u00b7\u0375")

func genRunes(r *rand.Rand) string {
	n := 1 + r.Intn(5)
	rs := make([]rune, n)
	for i := range rs {
		rs[i] = genRuneSet[r.Intn(len(genRuneSet))]
	}
	return string(rs)
}

func genURL(r *rand.Rand) string {
	pick := func(s []string) string { return s[r.Intn(len(s))] }
	var b strings.Builder
	b.WriteString(pick(genSchemes))
	b.WriteString(pick(genHostPre))
	for n := 1 + r.Intn(3); n > 0; n-- {
		if r.Intn(3) == 0 {
			b.WriteString(genRunes(r))
		} else {
			b.WriteString(pick(genLabels))
		}
		if n > 1 {
			b.WriteByte('.')
		}
	}
	b.WriteString(pick(genPorts))
	for n := r.Intn(4); n > 0; n-- {
		b.WriteString(pick(genPath))
		if r.Intn(4) == 0 {
			b.WriteString(genRunes(r))
		}
	}
	b.WriteString(pick(genQuery))
	b.WriteString(pick(genFrag))
	return b.String()
}

// TestDifferential compares Key with warcio.js on 4000 generated URLs.
func TestDifferential(t *testing.T) {
	r := rand.New(rand.NewSource(int64(len(os.Getenv("ARCPORT_SURT_SEED")) + 1)))
	n := 4000
	if s := os.Getenv("ARCPORT_SURT_N"); s != "" {
		fmt.Sscan(s, &n)
	}
	urls := make([]string, n)
	for i := range urls {
		urls[i] = genURL(r)
	}
	keys := peerSurt(t, urls)
	bad := 0
	for i, u := range urls {
		if got := Key(u); got != keys[i] {
			bad++
			if bad <= 30 {
				t.Errorf("Key(%q) = %q, warcio.js gives %q", u, got, keys[i])
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d generated URLs differ from warcio.js", bad, len(urls))
	}
}

func TestValidUTF8(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"abc", "abc"},
		{"a\xffb", "a\uFFFDb"},
		{"\xe2\x82A", "\uFFFDA"},               // maximal subpart: one U+FFFD
		{"\xe2\x82", "\uFFFD"},                 // truncated at end
		{"\xed\xa0\x80", "\uFFFD\uFFFD\uFFFD"}, // surrogate: three
		{"\xf0\x9f\x98\x80", "😀"},
		{"\xf0\x9f\x98", "\uFFFD"},
		{"\xc0\xaf", "\uFFFD\uFFFD"},
		{"\xf4\x90\x80\x80", "\uFFFD\uFFFD\uFFFD\uFFFD"},
	} {
		if got := ValidUTF8(c.in); got != c.want {
			t.Errorf("ValidUTF8(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func FuzzKey(f *testing.F) {
	b, err := os.ReadFile("testdata/corpus.jsonl")
	if err == nil {
		for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			var s string
			if json.Unmarshal([]byte(line), &s) == nil {
				f.Add(s)
			}
		}
	}
	f.Fuzz(func(t *testing.T, u string) {
		k := Key(u)
		if !utf8.ValidString(k) && utf8.ValidString(u) {
			t.Fatalf("Key(%q) = %q: invalid UTF-8", u, k)
		}
		if strings.HasPrefix(u, "http:") || strings.HasPrefix(u, "https:") {
			// Keys are stable: a key that parsed is made of ASCII.
			if strings.Contains(k, ")") && !strings.HasPrefix(k, "http") {
				for i := 0; i < len(k); i++ {
					if k[i] >= 0x80 {
						t.Fatalf("Key(%q) = %q: non-ASCII byte in parsed key", u, k)
					}
				}
			}
		}
	})
}

// BenchmarkKey measures typical keys (ASCII, a query to sort, an IDN host).
func BenchmarkKey(b *testing.B) {
	urls := []string{"http://www.example.com/section/page.html?id=5&b=2", "https://example.org/", "http://bücher.de/a/../b?z&y"}
	for i := 0; i < b.N; i++ {
		Key(urls[i%len(urls)])
	}
}
