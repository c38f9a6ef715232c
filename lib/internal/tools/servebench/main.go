// Command servebench makes the inputs of scripts/bench.d/serve.sh and
// loads a server with requests (no wrk or hey on the machine, and hey
// asks one URL only: the CDX rows need many distinct ones, and the p99
// from every request's time):
//
//	servebench warc -n 50000 -o DIR      a WARC.gz of N captures in DIR (bench.warc.gz),
//	                                     HTML pages of 20 KB and smaller ones
//	servebench cluster -n 10000000 -o DIR  a ZipNum cluster of N synthetic captures
//	                                     (cluster.idx, cluster.loc, cluster.cdx.gz; no WARC)
//	servebench load -urls FILE -n N -c C [-o JSON]
//	                                     N GET requests over C connections, the URLs of
//	                                     FILE in turn; prints requests/s, p50, p99, max
package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha1"
	"encoding/base32"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/arcport/arcport/lib/cdx"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: servebench warc|cluster|load ...")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "warc":
		err = genWARC(os.Args[2:])
	case "cluster":
		err = genCluster(os.Args[2:])
	case "load":
		err = load(os.Args[2:])
	default:
		err = fmt.Errorf("unknown command %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "servebench:", err)
		os.Exit(1)
	}
}

// page returns an HTML page of about size bytes.
func page(r *rand.Rand, i, size int) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "<!doctype html>\n<html><head><title>Page %d</title><link rel=\"stylesheet\" href=\"/s.css\"></head><body>\n<h1>Page %d</h1>\n", i, i)
	words := []string{"archive", "replay", "capture", "garden", "index", "memento", "server", "record", "crawl", "the", "of", "and"}
	for b.Len() < size-200 {
		b.WriteString("<p>")
		for j := 0; j < 12; j++ {
			b.WriteString(words[r.IntN(len(words))])
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "<a href=\"/p/%d.html\">next</a></p>\n", r.IntN(100000))
	}
	b.WriteString("</body></html>\n")
	for b.Len() < size {
		b.WriteByte('\n')
	}
	return b.Bytes()
}

func genWARC(args []string) error {
	fs := flag.NewFlagSet("warc", flag.ExitOnError)
	n := fs.Int("n", 50000, "captures")
	dir := fs.String("o", ".", "output folder")
	fs.Parse(args)
	if err := os.MkdirAll(*dir, 0o755); err != nil {
		return err
	}
	tmp := filepath.Join(*dir, ".bench.warc.gz.tmp")
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	r := rand.New(rand.NewPCG(1, 2))
	start := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	gz, _ := gzip.NewWriterLevel(io.Discard, gzip.BestSpeed)
	hosts := 200
	for i := 0; i < *n; i++ {
		size := 20 << 10
		kind := "p20k"
		if i%4 != 0 {
			size, kind = 1000+r.IntN(8000), "p"
		}
		body := page(r, i, size)
		// a URL captured several times (every 5th is a recapture)
		id := i
		if i%5 == 4 {
			id = i - 4
		}
		url := fmt.Sprintf("http://host%d.bench.example/%s/%d.html", id%hosts, kind, id)
		if kind == "p20k" {
			url = fmt.Sprintf("http://host%d.bench.example/p20k/%d.html", i%hosts, i)
		}
		http := fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: %d\r\n\r\n", len(body))
		block := append([]byte(http), body...)
		sum := sha1.Sum(body)
		digest := "sha1:" + base32.StdEncoding.EncodeToString(sum[:])
		date := start.Add(time.Duration(i) * 37 * time.Second).Format("2006-01-02T15:04:05Z")
		var rec bytes.Buffer
		fmt.Fprintf(&rec, "WARC/1.1\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:%08x-0000-4000-8000-%012x>\r\nWARC-Date: %s\r\nWARC-Target-URI: %s\r\nWARC-Payload-Digest: %s\r\nContent-Type: application/http; msgtype=response\r\nContent-Length: %d\r\n\r\n",
			i, i, date, url, digest, len(block))
		rec.Write(block)
		rec.WriteString("\r\n\r\n")
		gz.Reset(bw)
		gz.Write(rec.Bytes())
		if err := gz.Close(); err != nil {
			return err
		}
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(*dir, "bench.warc.gz"))
}

// clusterDir is a local folder as lib/cdx writes a cluster into it.
type clusterDir string

type clusterFile struct {
	*os.File
	final string
}

func (f *clusterFile) Commit() error {
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), f.final)
}

func (f *clusterFile) Abort() { f.Close(); os.Remove(f.Name()) }

func (d clusterDir) Create(name string) (cdx.ClusterFile, error) {
	f, err := os.CreateTemp(string(d), ".tmp-*")
	if err != nil {
		return nil, err
	}
	return &clusterFile{f, filepath.Join(string(d), name)}, nil
}

func (d clusterDir) Open(name string) (io.ReadCloser, error) {
	return os.Open(filepath.Join(string(d), name))
}

func (d clusterDir) List() ([]string, error) {
	ents, err := os.ReadDir(string(d))
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out, err
}

// genCluster writes a pywb ZipNum cluster (lib/cdx's ClusterWriter: 4
// parts, cluster.idx, cluster.loc) of n synthetic, sorted captures: three
// a URL, a thousand URLs a host, their WARC none.warc.gz (no bodies).
func genCluster(args []string) error {
	fs := flag.NewFlagSet("cluster", flag.ExitOnError)
	n := fs.Int("n", 10000000, "captures")
	dir := fs.String("o", ".", "output folder")
	keys := fs.String("keys", "", "also write every 1000th URL to this file")
	fs.Parse(args)
	if err := os.MkdirAll(*dir, 0o755); err != nil {
		return err
	}
	var kf *bufio.Writer
	if *keys != "" {
		f, err := os.Create(*keys)
		if err != nil {
			return err
		}
		defer f.Close()
		kf = bufio.NewWriter(f)
		defer kf.Flush()
	}
	w := cdx.NewClusterWriter(clusterDir(*dir), 4, int64(*n), cdx.ClusterOptions{})
	const perURL = 3
	urls := (*n + perURL - 1) / perURL
	var line []byte
	written := 0
	for u := 0; u < urls && written < *n; u++ {
		host, path := u/1000, u%1000
		key := fmt.Sprintf("com,bench,h%06d)/p/%04d.html", host, path)
		url := fmt.Sprintf("http://h%06d.bench.com/p/%04d.html", host, path)
		if kf != nil && u%1000 == 7 {
			fmt.Fprintln(kf, url)
		}
		for c := 0; c < perURL && written < *n; c++ {
			ts := fmt.Sprintf("20%02d%02d%02d%02d%02d%02d", 10+c*3, 1+u%12, 1+u%28, u%24, u%60, c)
			line = fmt.Appendf(line[:0], `%s %s {"url": "%s", "mime": "text/html", "status": "200", "digest": "sha1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "length": "%d", "offset": "%d", "filename": "none.warc.gz"}`,
				key, ts, url, 2000+u%5000, int64(written)*4000)
			if err := w.WriteLine(line); err != nil {
				return err
			}
			written++
		}
	}
	return w.Close()
}

// stats is what load prints (JSON).
type stats struct {
	Requests int     `json:"requests"`
	Errors   int64   `json:"errors"`
	Non2xx   int64   `json:"non_2xx"`
	Seconds  float64 `json:"seconds"`
	RPS      float64 `json:"rps"`
	P50ms    float64 `json:"p50_ms"`
	P99ms    float64 `json:"p99_ms"`
	MaxMs    float64 `json:"max_ms"`
	Bytes    int64   `json:"bytes"`
}

func load(args []string) error {
	fs := flag.NewFlagSet("load", flag.ExitOnError)
	file := fs.String("urls", "", "file of URLs, one a line")
	n := fs.Int("n", 1000, "requests")
	c := fs.Int("c", 8, "connections")
	out := fs.String("o", "", "write the stats as JSON here too")
	fs.Parse(args)
	b, err := os.ReadFile(*file)
	if err != nil {
		return err
	}
	urls := strings.Fields(string(b))
	if len(urls) == 0 {
		return fmt.Errorf("%s: no URLs", *file)
	}
	tr := &http.Transport{MaxIdleConnsPerHost: *c, MaxConnsPerHost: *c, DisableCompression: true}
	client := &http.Client{Transport: tr, Timeout: 60 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	lat := make([]time.Duration, *n)
	var next atomic.Int64
	var errs, non2xx, nbytes atomic.Int64
	var wg sync.WaitGroup
	t0 := time.Now()
	for w := 0; w < *c; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= *n {
					return
				}
				s := time.Now()
				resp, err := client.Get(urls[i%len(urls)])
				if err != nil {
					errs.Add(1)
					lat[i] = time.Since(s)
					continue
				}
				m, _ := io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				lat[i] = time.Since(s)
				nbytes.Add(m)
				if resp.StatusCode/100 != 2 {
					non2xx.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	el := time.Since(t0)
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	q := func(p float64) time.Duration { return lat[min(len(lat)-1, int(p*float64(len(lat))))] }
	st := stats{Requests: *n, Errors: errs.Load(), Non2xx: non2xx.Load(), Seconds: el.Seconds(), RPS: float64(*n) / el.Seconds(),
		P50ms: ms(q(0.50)), P99ms: ms(q(0.99)), MaxMs: ms(lat[len(lat)-1]), Bytes: nbytes.Load()}
	js, _ := json.Marshal(st)
	fmt.Println(string(js))
	if *out != "" {
		return os.WriteFile(*out, append(js, '\n'), 0o644)
	}
	if st.Errors > 0 {
		return fmt.Errorf("%d requests failed", st.Errors)
	}
	return nil
}
