package wacz

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"strings"
	"time"
)

// PagesFormat is the format named in the header line of a pages file.
const PagesFormat = "json-pages-1.0"

// PagesHeader is the first line of a pages/*.jsonl file.
type PagesHeader struct {
	Format  string `json:"format"`
	ID      string `json:"id"`
	Title   string `json:"title,omitempty"`
	HasText bool   `json:"hasText,omitempty"`
}

// Page is one entry point of the collection, one line of pages.jsonl.
type Page struct {
	ID    string `json:"id"`
	URL   string `json:"url"`
	TS    string `json:"ts"`
	Title string `json:"title,omitempty"`
	Text  string `json:"text,omitempty"`
	// Seed marks a page given with --url (written to pages.jsonl as "seed").
	Seed bool `json:"seed,omitempty"`
}

// PageID returns the identifier waczpack gives a page: the first 16 hex
// digits of the sha256 of "ts/url", so the same capture always gets the same
// id.
func PageID(ts, u string) string {
	s := sha256.Sum256([]byte(ts + "/" + u))
	return hex.EncodeToString(s[:8])
}

// PageSeq calls fn with each page in order, stopping at fn's first error:
// a page list that need not be held in memory at once.
type PageSeq func(fn func(*Page) error) error

// SlicePages returns the PageSeq of a slice.
func SlicePages(pages []*Page) PageSeq {
	return func(fn func(*Page) error) error {
		for _, p := range pages {
			if err := fn(p); err != nil {
				return err
			}
		}
		return nil
	}
}

// WritePagesJSONL writes a pages file: the header line, then one page per
// line.
func WritePagesJSONL(w io.Writer, h PagesHeader, pages []*Page) error {
	return WritePagesJSONLSeq(w, h, SlicePages(pages))
}

// WritePagesJSONLSeq is WritePagesJSONL over a PageSeq.
func WritePagesJSONLSeq(w io.Writer, h PagesHeader, pages PageSeq) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	if h.Format == "" {
		h.Format = PagesFormat
	}
	if err := enc.Encode(h); err != nil {
		return err
	}
	if err := pages(func(p *Page) error { return enc.Encode(p) }); err != nil {
		return err
	}
	return bw.Flush()
}

// WritePagesCSV writes pages.csv of the seed draft: a header row
// url,date,title,id and one row per page.
func WritePagesCSV(w io.Writer, pages []*Page) error {
	return WritePagesCSVSeq(w, SlicePages(pages))
}

// WritePagesCSVSeq is WritePagesCSV over a PageSeq.
func WritePagesCSVSeq(w io.Writer, pages PageSeq) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"url", "date", "title", "id"})
	if err := pages(func(p *Page) error {
		cw.Write([]string{p.URL, p.TS, p.Title, p.ID})
		return cw.Error()
	}); err != nil {
		return err
	}
	cw.Flush()
	return cw.Error()
}

// WebArchiveYAML is webarchive.yaml of the seed draft.
type WebArchiveYAML struct {
	Title     string      `yaml:"title,omitempty"`
	Desc      string      `yaml:"desc,omitempty"`
	Pages     []YAMLPage  `yaml:"pages"`
	PageLists []YAMLPList `yaml:"pageLists,omitempty"`
}

// YAMLPage is a page in webarchive.yaml.
type YAMLPage struct {
	URL   string `yaml:"url"`
	Date  string `yaml:"date"`
	Title string `yaml:"title,omitempty"`
	ID    string `yaml:"id,omitempty"`
}

// YAMLPList is a page list in webarchive.yaml.
type YAMLPList struct {
	Title   string   `yaml:"title,omitempty"`
	Desc    string   `yaml:"desc,omitempty"`
	ID      string   `yaml:"id,omitempty"`
	PageIDs []string `yaml:"pageIds"`
}

// WriteWebArchiveYAML writes webarchive.yaml: title, desc, the pages and, when
// some pages are seeds, a "seeds" page list naming them. Strings are
// written as double-quoted scalars (JSON string syntax, which YAML reads
// the same way), so any title is safe.
func WriteWebArchiveYAML(w io.Writer, title, desc string, pages []*Page) error {
	return WriteWebArchiveYAMLSeq(w, title, desc, SlicePages(pages))
}

// WriteWebArchiveYAMLSeq is WriteWebArchiveYAML over a PageSeq (only the
// seeds' ids are kept in memory).
func WriteWebArchiveYAMLSeq(w io.Writer, title, desc string, pages PageSeq) error {
	bw := bufio.NewWriter(w)
	q := func(s string) string {
		b, _ := json.Marshal(s)
		return string(b)
	}
	if title != "" {
		bw.WriteString("title: " + q(title) + "\n")
	}
	if desc != "" {
		bw.WriteString("desc: " + q(desc) + "\n")
	}
	var seeds []string
	n := 0
	if err := pages(func(p *Page) error {
		if n == 0 {
			bw.WriteString("pages:\n")
		}
		n++
		bw.WriteString("  - url: " + q(p.URL) + "\n    date: " + q(p.TS) + "\n")
		if p.Title != "" {
			bw.WriteString("    title: " + q(p.Title) + "\n")
		}
		if p.ID != "" {
			bw.WriteString("    id: " + q(p.ID) + "\n")
		}
		if p.Seed {
			seeds = append(seeds, p.ID)
		}
		return nil
	}); err != nil {
		return err
	}
	if n == 0 {
		bw.WriteString("pages: []\n")
	}
	if len(seeds) > 0 {
		bw.WriteString("pageLists:\n  - title: \"Seeds\"\n    id: \"seeds\"\n    pageIds:\n")
		for _, id := range seeds {
			bw.WriteString("      - " + q(id) + "\n")
		}
	}
	return bw.Flush()
}

// PageRequest is a page asked for with --pages or --url: a URL and
// optionally the capture time and the fields to use.
type PageRequest struct {
	URL   string
	TS    time.Time // zero: the first capture of URL
	Title string
	ID    string
	Text  string
	Seed  bool
}

// MaxPageListLine bounds one line of a --pages file.
const MaxPageListLine = 16 << 20

// ParsePageList reads a --pages file: either pages.jsonl (an optional
// json-pages-1.0 header line, then objects with url and optionally ts,
// title, id, text) or a plain list of URLs, one per line. Blank lines and
// lines starting with # are skipped. name is used in errors.
func ParsePageList(r io.Reader, name string) (*PagesHeader, []PageRequest, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), MaxPageListLine)
	var hdr *PagesHeader
	var out []PageRequest
	lineNo := 0
	for sc.Scan() {
		lineNo++
		line := strings.TrimSpace(sc.Text())
		if lineNo == 1 {
			line = strings.TrimPrefix(line, "\ufeff")
		}
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if !strings.HasPrefix(line, "{") {
			u, err := url.Parse(line)
			if err != nil || u.Scheme == "" || strings.ContainsAny(line, " \t") {
				return nil, nil, fmt.Errorf("%s: line %d: not a URL or JSON object: %q", name, lineNo, clip(line, 80))
			}
			out = append(out, PageRequest{URL: line})
			continue
		}
		var m struct {
			Format string `json:"format"`
			ID     string `json:"id"`
			URL    string `json:"url"`
			TS     string `json:"ts"`
			Title  string `json:"title"`
			Text   string `json:"text"`
			Seed   bool   `json:"seed"`
		}
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			return nil, nil, fmt.Errorf("%s: line %d: %v", name, lineNo, err)
		}
		if m.Format != "" && m.URL == "" {
			if len(out) > 0 || hdr != nil {
				return nil, nil, fmt.Errorf("%s: line %d: header line not first", name, lineNo)
			}
			hdr = &PagesHeader{Format: m.Format, ID: m.ID, Title: m.Title}
			continue
		}
		if m.URL == "" {
			return nil, nil, fmt.Errorf("%s: line %d: page without url", name, lineNo)
		}
		p := PageRequest{URL: m.URL, Title: m.Title, ID: m.ID, Text: m.Text, Seed: m.Seed}
		if m.TS != "" {
			t, err := ParseTS(m.TS)
			if err != nil {
				return nil, nil, fmt.Errorf("%s: line %d: %v", name, lineNo, err)
			}
			p.TS = t
		}
		out = append(out, p)
	}
	if err := sc.Err(); err != nil {
		return nil, nil, fmt.Errorf("%s: line %d: %v", name, lineNo+1, err)
	}
	return hdr, out, nil
}

// ParseTS parses a page timestamp: RFC 3339, or a 14-digit (or shorter)
// CDX timestamp.
func ParseTS(s string) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t.UTC(), nil
	}
	if len(s) >= 4 && len(s) <= 17 && strings.Trim(s, "0123456789") == "" {
		d := s
		if len(d) > 14 {
			d = d[:14]
		}
		d += "00000101000000"[len(d):]
		if t, err := time.Parse("20060102150405", d); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("bad timestamp %q (want RFC 3339 or YYYYMMDDhhmmss)", s)
}

func clip(s string, n int) string {
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}

// readAllLimit reads at most limit bytes.
func readAllLimit(r io.Reader, limit int64) ([]byte, error) {
	var buf bytes.Buffer
	_, err := io.Copy(&buf, io.LimitReader(r, limit))
	return buf.Bytes(), err
}
