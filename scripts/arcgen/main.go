// Command arcgen writes a deterministic, realistic-looking ARC file (version
// 1, one gzip member per record) or WARC 1.1 file (a warcinfo record, then
// one gzip member per record) for scripts/bench.sh: HTML pages, images,
// stylesheets and scripts, redirects and dns: records, with HTTP heads as
// crawlers stored them. The same flags always give the same bytes (WARC
// record IDs are derived from the seed and the record number).
//
//	go run ./scripts/arcgen -o in.arc.gz -records 20000
//	go run ./scripts/arcgen -format warc -o in.warc.gz -records 20000
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"log"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"time"

	"github.com/google/uuid"

	"github.com/arcport/arcport/lib/arc"
	"github.com/arcport/arcport/lib/record"
	"github.com/arcport/arcport/lib/warc"
)

func main() {
	out := flag.String("o", "bench.arc.gz", "output file")
	n := flag.Int("records", 20000, "number of capture records")
	seed := flag.Uint64("seed", 1, "random seed")
	format := flag.String("format", "arc", "arc or warc")
	flag.Parse()
	if *format != "arc" && *format != "warc" {
		log.Fatalf("arcgen: -format %q: want arc or warc", *format)
	}
	f, err := os.Create(*out)
	if err != nil {
		log.Fatal(err)
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	g := newGen(*seed)
	start := time.Date(2009, 3, 1, 12, 0, 0, 0, time.UTC)
	var w record.Writer
	if *format == "arc" {
		w = arc.NewWriter(bw, arc.WithARCFilename("IAH-20090301120000-00000-bench.arc.gz"), arc.WithARCDate(start), arc.WithOrigin("InternetArchive"))
	} else {
		w = warc.NewWriter(bw)
		info := "software: arcport arcgen\r\nformat: WARC File Format 1.1\r\nhostname: crawler.example.org\r\nisPartOf: bench\r\n"
		if err := w.WriteRecord(&record.Record{Header: record.Header{
			{Name: record.FieldType, Value: string(record.Warcinfo)},
			{Name: record.FieldRecordID, Value: warcID(*seed, -1)},
			{Name: record.FieldDate, Value: record.FormatDate(start, false)},
			{Name: record.FieldFilename, Value: "IAH-20090301120000-00000-bench.warc.gz"},
			{Name: record.FieldContentType, Value: "application/warc-fields"},
		}, Block: bytes.NewReader([]byte(info))}); err != nil {
			log.Fatal(err)
		}
	}
	for i := 0; i < *n; i++ {
		r := g.record(i, start.Add(time.Duration(i)*1300*time.Millisecond))
		if *format == "warc" {
			asWARC(r, warcID(*seed, i))
		}
		if err := w.WriteRecord(r); err != nil {
			log.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}
	if err := bw.Flush(); err != nil {
		log.Fatal(err)
	}
	if err := f.Close(); err != nil {
		log.Fatal(err)
	}
}

type gen struct {
	rng   *rand.Rand
	words []string
	zipf  *rand.Zipf
	hosts []string
	buf   bytes.Buffer
}

func newGen(seed uint64) *gen {
	g := &gen{rng: rand.New(rand.NewPCG(seed, 0x5eed))}
	const letters = "etaoinshrdlucmfwypvbgkjqxz"
	for i := 0; i < 5000; i++ {
		l := 2 + g.rng.IntN(9)
		b := make([]byte, l)
		for j := range b {
			// Skewed letter frequencies, like text.
			b[j] = letters[int(math.Min(25, g.rng.ExpFloat64()*6))]
		}
		g.words = append(g.words, string(b))
	}
	g.zipf = rand.NewZipf(g.rng, 1.2, 2, uint64(len(g.words)-1))
	for i := 0; i < 200; i++ {
		g.hosts = append(g.hosts, "www."+g.words[i+50]+"-"+g.words[i+400]+".example.org")
	}
	return g
}

func (g *gen) word() string { return g.words[g.zipf.Uint64()] }

// size returns a log-normally distributed size around median bytes.
func (g *gen) size(median float64, limit int) int {
	s := int(median * math.Exp(g.rng.NormFloat64()*0.8))
	return min(max(s, 200), limit)
}

func (g *gen) text(n int) {
	for g.buf.Len() < n {
		g.buf.WriteString(g.word())
		if g.rng.IntN(12) == 0 {
			g.buf.WriteString(". ")
		} else {
			g.buf.WriteByte(' ')
		}
	}
}

func (g *gen) html(host string, n int) {
	b := &g.buf
	fmt.Fprintf(b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>%s %s</title>\n", g.word(), g.word())
	fmt.Fprintf(b, "<link rel=\"stylesheet\" href=\"/static/%s.css\">\n<script src=\"/static/%s.js\"></script>\n</head>\n<body>\n<div id=\"page\">\n", g.word(), g.word())
	for b.Len() < n {
		switch g.rng.IntN(5) {
		case 0:
			fmt.Fprintf(b, "<h2 class=\"section-title\">%s %s %s</h2>\n", g.word(), g.word(), g.word())
		case 1:
			fmt.Fprintf(b, "<ul class=\"nav\">\n")
			for k := 0; k < 4+g.rng.IntN(6); k++ {
				fmt.Fprintf(b, "  <li><a href=\"http://%s/%s/%s.html\">%s</a></li>\n", host, g.word(), g.word(), g.word())
			}
			fmt.Fprintf(b, "</ul>\n")
		case 2:
			fmt.Fprintf(b, "<img src=\"/images/%s-%d.jpg\" alt=\"%s\" width=\"%d\" height=\"%d\">\n", g.word(), g.rng.IntN(1000), g.word(), 100+g.rng.IntN(500), 100+g.rng.IntN(400))
		default:
			b.WriteString("<p>")
			g.text(b.Len() + 200 + g.rng.IntN(800))
			b.WriteString("</p>\n")
		}
	}
	b.WriteString("</div>\n</body>\n</html>\n")
}

func (g *gen) binary(n int, magic string) {
	g.buf.WriteString(magic)
	var w [8]byte
	for g.buf.Len() < n {
		v := g.rng.Uint64()
		for k := range w {
			w[k] = byte(v >> (8 * k))
		}
		g.buf.Write(w[:])
	}
}

func (g *gen) code(n int) {
	for g.buf.Len() < n {
		fmt.Fprintf(&g.buf, ".%s-%s { margin: %dpx %dpx; color: #%06x; }\nfunction %s(%s) { return %s.%s(%d); }\n",
			g.word(), g.word(), g.rng.IntN(20), g.rng.IntN(20), g.rng.IntN(1<<24), g.word(), g.word(), g.word(), g.word(), g.rng.IntN(100))
	}
}

func (g *gen) record(i int, t time.Time) *record.Record {
	g.buf.Reset()
	host := g.hosts[g.rng.IntN(len(g.hosts))]
	ip := fmt.Sprintf("%d.%d.%d.%d", 10+g.rng.IntN(200), g.rng.IntN(256), g.rng.IntN(256), 1+g.rng.IntN(254))
	kind := g.rng.IntN(100)
	var url, ctype, status string
	status = "200 OK"
	var body []byte
	switch {
	case kind < 2: // dns
		url = "dns:" + host
		g.buf.WriteString(t.Format("20060102150405") + "\n" + host + ".\t3600\tIN\tA\t" + ip + "\n")
		body = append([]byte(nil), g.buf.Bytes()...)
		return mk(url, "", t, "text/dns", body, false)
	case kind < 47:
		url = fmt.Sprintf("http://%s/%s/%s-%d.html", host, g.word(), g.word(), i)
		ctype = "text/html; charset=utf-8"
		g.html(host, g.size(21000, 400000))
	case kind < 77:
		url = fmt.Sprintf("http://%s/images/%s-%d.jpg", host, g.word(), i)
		ctype = "image/jpeg"
		g.binary(g.size(7500, 600000), "\xff\xd8\xff\xe0\x00\x10JFIF\x00")
	case kind < 85:
		url = fmt.Sprintf("http://%s/static/%s-%d.css", host, g.word(), i)
		ctype = "text/css"
		g.code(g.size(12000, 200000))
	case kind < 92:
		url = fmt.Sprintf("http://%s/static/%s-%d.js", host, g.word(), i)
		ctype = "application/javascript"
		g.code(g.size(20000, 300000))
	case kind < 96:
		url = fmt.Sprintf("http://%s/%s?id=%d", host, g.word(), i)
		ctype, status = "text/html", "302 Found"
		fmt.Fprintf(&g.buf, "<html><body><a href=\"http://%s/%s.html\">moved</a></body></html>\n", host, g.word())
	default:
		url = fmt.Sprintf("http://%s/%s/%d.pdf", host, g.word(), i)
		ctype = "application/pdf"
		g.binary(g.size(32000, 2000000), "%PDF-1.4\n")
	}
	payload := g.buf.Bytes()
	var head bytes.Buffer
	fmt.Fprintf(&head, "HTTP/1.1 %s\r\nDate: %s\r\nServer: Apache/2.2.%d (Unix)\r\nLast-Modified: %s\r\nETag: \"%x\"\r\nAccept-Ranges: bytes\r\nContent-Length: %d\r\nConnection: close\r\nContent-Type: %s\r\n",
		status, t.Format(time.RFC1123), g.rng.IntN(30), t.Add(-time.Duration(g.rng.IntN(1e6))*time.Second).Format(time.RFC1123), g.rng.Uint32(), len(payload), ctype)
	if status[0] == '3' {
		fmt.Fprintf(&head, "Location: http://%s/%s.html\r\n", host, g.word())
	}
	head.WriteString("\r\n")
	body = append(head.Bytes(), payload...)
	return mk(url, ip, t, "", body, true)
}

func mk(url, ip string, t time.Time, ctype string, body []byte, response bool) *record.Record {
	typ := record.Resource
	if response {
		typ = record.Response
	}
	h := record.Header{
		{Name: record.FieldType, Value: string(typ)},
		{Name: record.FieldTargetURI, Value: url},
		{Name: record.FieldDate, Value: record.FormatDate(t, false)},
	}
	if ip != "" {
		h = append(h, record.Field{Name: record.FieldIPAddress, Value: ip})
	}
	if ctype != "" {
		h = append(h, record.Field{Name: record.FieldContentType, Value: ctype})
	}
	h = append(h, record.Field{Name: record.FieldContentLength, Value: strconv.Itoa(len(body))})
	return &record.Record{Header: h, Block: bytes.NewReader(body)}
}

// warcID returns a WARC-Record-ID derived from the seed and record number i
// (-1 for the warcinfo record), so the output is reproducible.
func warcID(seed uint64, i int) string {
	return "<urn:uuid:" + uuid.NewSHA1(uuid.NameSpaceURL, fmt.Appendf(nil, "arcgen/%d/%d", seed, i)).String() + ">"
}

// asWARC adds what a WARC record has and an ARC record does not: the record
// ID and, for HTTP responses, the application/http content type.
func asWARC(r *record.Record, id string) {
	r.Header = append(r.Header, record.Field{Name: record.FieldRecordID, Value: id})
	if r.Header.Get(record.FieldType) == string(record.Response) {
		r.Header = append(r.Header, record.Field{Name: record.FieldContentType, Value: "application/http;msgtype=response"})
	}
}
