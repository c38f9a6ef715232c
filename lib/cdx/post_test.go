package cdx

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"math/rand"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arcport/arcport/lib/internal/peertest"
)

// genJSON writes a random JSON value with the features warcio's walk
// treats specially.
func genJSON(r *rand.Rand, b *strings.Builder, depth int) {
	keys := []string{"a", "b", "a", "0", "1", "10", "01", "-1", "4294967294", "4294967295", "toString", "__proto__",
		"constructor", "k k", "é", "", "a.2_", "x&y=z"}
	switch n := r.Intn(10); {
	case n < 2 && depth < 4:
		b.WriteByte('{')
		for i := r.Intn(5); i > 0; i-- {
			fmt.Fprintf(b, "%q:", keys[r.Intn(len(keys))])
			genJSON(r, b, depth+1)
			if i > 1 {
				b.WriteByte(',')
			}
		}
		b.WriteByte('}')
	case n < 4 && depth < 4:
		b.WriteByte('[')
		for i := r.Intn(4); i > 0; i-- {
			genJSON(r, b, depth+1)
			if i > 1 {
				b.WriteByte(',')
			}
		}
		b.WriteByte(']')
	case n < 6:
		nums := []string{"0", "-0", "1", "-1.5", "1e21", "1e-7", "123456789012345678901234", "0.1", "2.5e+3", "1E400", "-1e-400", "5e-324", "0.000001", "123e-20", "1.7976931348623157e308"}
		b.WriteString(nums[r.Intn(len(nums))])
	case n < 8:
		strs := []string{`"x"`, `""`, `"a b&c=d"`, `"\u00e9\ud83d\ude00"`, `"\ud800"`, `"%zz"`, `"%41"`, `"\n\t"`, `"日本"`, `"+"`}
		b.WriteString(strs[r.Intn(len(strs))])
	case n == 8:
		b.WriteString([]string{"true", "false", "null"}[r.Intn(3)])
	default:
		b.WriteString([]string{`{`, `[1,]`, `{"a" 1}`, `tru`, `1 2`, ` {"ok":1} `}[r.Intn(6)])
	}
}

func genBody(r *rand.Rand, ct string) []byte {
	switch {
	case strings.HasPrefix(ct, "application/json") || ct == "text/plain":
		var b strings.Builder
		genJSON(r, &b, 0)
		return []byte(b.String())
	case strings.HasPrefix(ct, "multipart/form-data"):
		bd := "XyZ"
		if i := strings.Index(ct, "boundary="); i >= 0 {
			bd = ct[i+9:]
		}
		var b strings.Builder
		for i := r.Intn(4); i >= 0; i-- {
			fmt.Fprintf(&b, "--%s\r\nContent-Disposition: form-data; name=\"f%d\"\r\n\r\nv%d %s\r\n", bd, r.Intn(3), i, []string{"", "é", "a&b", "%41"}[r.Intn(4)])
		}
		fmt.Fprintf(&b, "--%s--\r\n", bd)
		return []byte(b.String())
	case strings.HasPrefix(ct, "application/x-www-form-urlencoded"):
		parts := []string{"a=1", "b=%20", "c=%E2%82%AC", "d=%zz", "e=%E2%82", "f=é", "g=+", "h=%25", "i=%3B%2F%3F", "j=%C0%AF", "k=%F0%9F%98%80", "l=%ED%A0%80"}
		var ps []string
		for i := r.Intn(5); i >= 0; i-- {
			ps = append(ps, parts[r.Intn(len(parts))])
		}
		s := strings.Join(ps, "&")
		if r.Intn(5) == 0 {
			s = strings.Repeat("x", 4090+r.Intn(4)) + "😀é" + s
		}
		if r.Intn(8) == 0 {
			s = "\xef\xbb\xbf" + s + "\xff"
		}
		return []byte(s)
	}
	b := make([]byte, r.Intn(40))
	r.Read(b)
	if r.Intn(4) == 0 {
		b = make([]byte, 3070+r.Intn(6))
	}
	return b
}

// TestPostToGetDifferential compares postToGet with warcio.js postToGetUrl
// on 3000 generated requests.
func TestPostToGetDifferential(t *testing.T) {
	node, cli := peertest.WarcioCLI(t)
	dir := filepath.Dir(filepath.Dir(cli))
	cts := []string{"application/json", "application/json; charset=utf-8", "text/plain", "application/x-www-form-urlencoded",
		"application/x-www-form-urlencoded; charset=UTF-8", "multipart/form-data; boundary=----WebKitFormBoundaryABC",
		"multipart/form-data; boundary=a.b", "multipart/form-data", "application/octet-stream", "", "Application/JSON", "image/png"}
	r := rand.New(rand.NewSource(7))
	type tc struct {
		URL    string  `json:"url"`
		Method string  `json:"method"`
		CT     *string `json:"ct"`
		Body   string  `json:"body"`
	}
	var cases []tc
	var in bytes.Buffer
	for i := 0; i < 3000; i++ {
		ct := cts[r.Intn(len(cts))]
		c := tc{URL: []string{"http://example.com/p", "http://example.com/p?q=1", "?x", ""}[r.Intn(4)],
			Method: []string{"POST", "PUT", "DELETE", "PATCH", "HEAD", ""}[r.Intn(6)],
			Body:   base64.StdEncoding.EncodeToString(genBody(r, ct))}
		if ct != "" {
			c.CT = &ct
		}
		cases = append(cases, c)
		b, _ := json.Marshal(c)
		in.Write(b)
		in.WriteByte('\n')
	}
	cmd := exec.Command(node, "testdata/posttoget.mjs", dir)
	cmd.Stdin = &in
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, stderr.String())
	}
	want := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(want) != len(cases) {
		t.Fatalf("%d results for %d cases", len(want), len(cases))
	}
	bad := 0
	for i, c := range cases {
		body, _ := base64.StdEncoding.DecodeString(c.Body)
		var h jsHeaders
		if c.CT != nil {
			h.set("Content-Type", *c.CT)
		}
		u, rb := postToGet(c.URL, c.Method, &h, body)
		got := `{"url":` + string(appendJSONString(nil, u)) + `,"requestBody":` + string(appendJSONString(nil, rb)) + `}`
		if got != want[i] {
			bad++
			if bad <= 10 {
				t.Errorf("case %d (%s %v %q):\n got  %.400s\n want %.400s", i, c.Method, *orEmpty(c.CT), body, got, want[i])
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d cases differ", bad, len(cases))
	}
}

func orEmpty(s *string) *string {
	if s == nil {
		e := "<none>"
		return &e
	}
	return s
}

func TestJSNumbers(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"200", "200"}, {"", "0"}, {" 404 ", "404"}, {"abc", "NaN"}, {"0x1F", "31"}, {"0b11", "3"}, {"0o17", "15"},
		{"2e2", "200"}, {"1e21", "1e+21"}, {"1e-7", "1e-7"}, {"0.000001", "0.000001"}, {"-0", "0"}, {"Infinity", "Infinity"},
		{"-Infinity", "-Infinity"}, {"+5", "5"}, {".5", "0.5"}, {"5.", "5"}, {"1_000", "NaN"}, {"0x", "NaN"}, {"-0x10", "NaN"},
		{"123456789012345678901234", "1.2345678901234569e+23"}, {"1e400", "Infinity"}, {"20O", "NaN"}, {"\u00a0200\ufeff", "200"},
		{"1.5e-7", "1.5e-7"}, {"100000000000000000000", "100000000000000000000"}, {"0.1", "0.1"}, {"inf", "NaN"}, {"nan", "NaN"},
	} {
		if got := jsNumberString(jsNumber(c.in)); got != c.want {
			t.Errorf("String(Number(%q)) = %q, want %q", c.in, got, c.want)
		}
	}
	if !math.IsNaN(jsNumber("x")) {
		t.Error("Number(x) is not NaN")
	}
}

func TestDecodeURI(t *testing.T) {
	for _, c := range []struct {
		in, want string
		ok       bool
	}{
		{"a%20b", "a b", true}, {"%3B%2F%3F%3A%40%26%3D%2B%24%2C%23", "%3B%2F%3F%3A%40%26%3D%2B%24%2C%23", true},
		{"%E2%82%AC", "€", true}, {"%E2%82", "", false}, {"%zz", "", false}, {"%", "", false}, {"%4", "", false},
		{"%C0%AF", "", false}, {"%ED%A0%80", "", false}, {"%F4%90%80%80", "", false}, {"%80", "", false}, {"é%41", "éA", true},
	} {
		got, ok := decodeURI(c.in)
		if ok != c.ok || (ok && got != c.want) {
			t.Errorf("decodeURI(%q) = %q, %v; want %q, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}

// FuzzPostToGet: arbitrary bodies and content types never panic.
func FuzzPostToGet(f *testing.F) {
	f.Add("application/json", []byte(`{"a":[1,{"b":null}],"0":"x"}`))
	f.Add("multipart/form-data; boundary=(", []byte("--(\r\nname=\"a\"\r\n\r\nb"))
	f.Add("application/x-www-form-urlencoded", []byte("a=%E2%82&b"))
	f.Add("text/plain", []byte(strings.Repeat("[", 10000)))
	f.Fuzz(func(t *testing.T, ct string, body []byte) {
		var h jsHeaders
		h.set("Content-Type", ct)
		postToGet("http://example.com/", "POST", &h, body)
	})
}
