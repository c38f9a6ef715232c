package htcache

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// newTxtLine is one line of HTTrack's own transfer log, hts-cache/new.txt:
// what HTTrack says it fetched, written by HTTrack (not by arcport), so the
// golden files can be checked against it.
type newTxtLine struct {
	time      string // hh:mm:ss
	size      int64
	status    int
	message   string // servermsg, unescaped
	mime      string
	etag      string // unescaped, with its quotes; "" when the column holds a date
	date      string // the Date column when there is no ETag, unescaped
	url       string // unescaped
	localfile string // unescaped
}

// readNewTxt parses HTTrack's new.txt (tab-separated, after a header line).
func readNewTxt(t *testing.T, p string) []newTxtLine {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) < 2 || !strings.HasPrefix(lines[0], "date\t") {
		t.Fatalf("%s: not HTTrack's new.txt", p)
	}
	unesc := func(s string) string {
		u, err := url.PathUnescape(s)
		if err != nil {
			t.Fatalf("%s: %q: %v", p, s, err)
		}
		return u
	}
	var out []newTxtLine
	for _, l := range lines[1:] {
		f := strings.Split(l, "\t")
		if len(f) != 10 {
			t.Fatalf("%s: %d columns: %q", p, len(f), l)
		}
		var n newTxtLine
		n.time = f[0]
		size, _, _ := strings.Cut(f[1], "/")
		var err1, err2 error
		n.size, err1 = strconv.ParseInt(size, 10, 64)
		n.status, err2 = strconv.Atoi(f[3])
		if err1 != nil || err2 != nil {
			t.Fatalf("%s: %q: %v %v", p, l, err1, err2)
		}
		if i, j := strings.Index(f[4], "('"), strings.LastIndex(f[4], "')"); i >= 0 && j > i {
			n.message = unesc(f[4][i+2 : j])
		}
		n.mime = f[5]
		switch kind, v, _ := strings.Cut(f[6], ":"); kind {
		case "etag":
			n.etag = unesc(v)
		case "date":
			n.date = unesc(v)
		}
		n.url, n.localfile = unesc(f[7]), unesc(f[8])
		out = append(out, n)
	}
	return out
}

// checkGoldenAgainstNewTxt checks the outputs of htcache info and ls on the
// garden (golden files, or what htcache printed: file name -> text) against
// HTTrack's new.txt: one entry per line, in its order, with its URL, status,
// message, size, MIME type, ETag or date, local file and fetch time; the
// counts and statuses of info are those of new.txt, its byte total that of
// new.txt's sizes of the entries with a body.
func checkGoldenAgainstNewTxt(t *testing.T, what string, files map[string]string) {
	t.Helper()
	nt := readNewTxt(t, filepath.Join(garden, "hts-cache", "new.txt"))
	unesc := func(s string) string { u, _ := url.PathUnescape(s); return u }
	statuses := map[int]int{}
	for _, n := range nt {
		statuses[n.status]++
	}
	var total int64 // new.txt's sizes of the entries whose body htcache has (body not "none")

	// ls --json
	var ls []map[string]any
	for _, l := range strings.Split(strings.TrimRight(files["ls.json"], "\n"), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("%s ls.json: %q: %v", what, l, err)
		}
		ls = append(ls, m)
	}
	if len(ls) != len(nt) {
		t.Fatalf("%s ls.json: %d entries, new.txt %d", what, len(ls), len(nt))
	}
	for i, n := range nt {
		m := ls[i]
		str := func(k string) string { s, _ := m[k].(string); return s }
		num := func(k string) int64 { f, _ := m[k].(float64); return int64(f) }
		var bad []string
		if unesc(str("url")) != n.url {
			bad = append(bad, fmt.Sprintf("url %q", str("url")))
		}
		if num("status") != int64(n.status) || str("message") != n.message {
			bad = append(bad, fmt.Sprintf("status %d %q, new.txt %d %q", num("status"), str("message"), n.status, n.message))
		}
		if num("size") != n.size || str("mime") != n.mime {
			bad = append(bad, fmt.Sprintf("size %d mime %q, new.txt %d %q", num("size"), str("mime"), n.size, n.mime))
		}
		if n.etag != "" && str("etag") != n.etag || n.date != "" && str("last_modified") != n.date {
			bad = append(bad, fmt.Sprintf("etag %q last_modified %q, new.txt %q %q", str("etag"), str("last_modified"), n.etag, n.date))
		}
		if s := str("save"); s != "" && s != n.localfile {
			bad = append(bad, fmt.Sprintf("save %q, new.txt %q", s, n.localfile))
		}
		if !strings.HasSuffix(str("fetched"), "T"+n.time+"Z") {
			bad = append(bad, fmt.Sprintf("fetched %q, new.txt %s", str("fetched"), n.time))
		}
		if str("body") != "none" {
			total += n.size
		}
		if len(bad) > 0 {
			t.Errorf("%s ls.json entry %d (%s): %s", what, i, n.url, strings.Join(bad, "; "))
		}
	}

	// ls: status, size, body, MIME type, URL
	lsTxt := strings.Split(strings.TrimRight(files["ls.txt"], "\n"), "\n")
	if len(lsTxt) != len(nt) {
		t.Fatalf("%s ls.txt: %d lines, new.txt %d", what, len(lsTxt), len(nt))
	}
	for i, n := range nt {
		f := strings.Split(lsTxt[i], "\t")
		if len(f) != 5 || f[0] != strconv.Itoa(n.status) || f[1] != strconv.FormatInt(n.size, 10) || f[3] != n.mime || unesc(f[4]) != n.url {
			t.Errorf("%s ls.txt line %d: %q, new.txt %d %d %s %s", what, i+1, lsTxt[i], n.status, n.size, n.mime, n.url)
		}
	}

	// info --json and info
	var info struct {
		Entries  int            `json:"entries"`
		Bytes    int64          `json:"bytes"`
		Statuses map[string]int `json:"statuses"`
	}
	if err := json.Unmarshal([]byte(files["info.json"]), &info); err != nil {
		t.Fatalf("%s info.json: %v", what, err)
	}
	var codes []int
	for c := range statuses {
		codes = append(codes, c)
	}
	sort.Ints(codes)
	var st []string
	for _, c := range codes {
		st = append(st, fmt.Sprintf("%d: %d", c, statuses[c]))
		if info.Statuses[strconv.Itoa(c)] != statuses[c] {
			t.Errorf("%s info.json: status %d: %d entries, new.txt %d", what, c, info.Statuses[strconv.Itoa(c)], statuses[c])
		}
	}
	if info.Entries != len(nt) || info.Bytes != total || len(info.Statuses) != len(statuses) {
		t.Errorf("%s info.json: %d entries, %d bytes, %d statuses; new.txt %d, %d, %d", what, info.Entries, info.Bytes, len(info.Statuses), len(nt), total, len(statuses))
	}
	for _, want := range []string{
		fmt.Sprintf("entries:       %d ", len(nt)),
		fmt.Sprintf("bytes:         %d ", total),
		"statuses:      " + strings.Join(st, ", ") + "\n",
	} {
		if !strings.Contains(files["info.txt"], "\n"+want) {
			t.Errorf("%s info.txt: no line %q (from new.txt):\n%s", what, want, files["info.txt"])
		}
	}
}
