package warc

import (
	"bytes"
	"crypto/sha1"
	"encoding/base32"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/dict"

	"github.com/arcport/arcport/lib/httpmsg"
	"github.com/arcport/arcport/lib/internal/compio"
	"github.com/arcport/arcport/lib/internal/peertest"
	"github.com/arcport/arcport/lib/record"
)

// cleanFixtures are the fixtures without defects (their records round-trip
// unchanged, digests included).
var cleanFixtures = []string{
	"example.warc", "example.warc.gz", "example-digest.warc", "example-iana.org-chunked.warc",
	"example-resource.warc.gz", "example-space-in-target-uri.warc.gz",
	"example-wget-bad-target-uri.warc.gz", "post-test.warc.gz",
}

type written struct {
	rec      *record.Record
	off, len int64
}

// writeAll writes recs (blocks from bodies) and returns the output and
// what OnWritten reported.
func writeAll(t testing.TB, recs []gotRecord, opts ...WriterOption) ([]byte, []written) {
	t.Helper()
	var out bytes.Buffer
	var ws []written
	opts = append(opts, OnWritten(func(rec *record.Record, off, n int64) { ws = append(ws, written{rec, off, n}) }))
	w := NewWriter(&out, opts...)
	for _, g := range recs {
		rec := &record.Record{Header: g.rec.Header.Clone(), Block: bytes.NewReader(g.block)}
		if err := w.WriteRecord(rec); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes(), ws
}

// TestRoundTrip writes every record of every clean fixture with each
// compression and version, reads the output back and checks: every field
// kept with its value, blocks byte-equal, digests verify, offsets and
// lengths reported by OnWritten equal those the reader finds.
func TestRoundTrip(t *testing.T) {
	for _, file := range cleanFixtures {
		orig, _, err := readAllFrom(t, readFixture(t, file), file)
		if err != nil {
			t.Fatal(err)
		}
		// Given digests are copied as they are, bad ones included
		// (example-digest.warc has one that is not a digest).
		_, origProblems, _ := VerifyDigests(bytes.NewReader(readFixture(t, file)))
		for _, comp := range []compio.Format{compio.Gzip, compio.Zstd, compio.Plain} {
			for _, ver := range []string{"WARC/1.1", "WARC/1.0"} {
				t.Run(fmt.Sprintf("%s/%s/%s", file, comp, ver), func(t *testing.T) {
					out, ws := writeAll(t, orig, WithCompression(comp), WithVersion(ver))
					back, problems, err := readAllFrom(t, out, "out", WithVerifyDigests(true))
					if err != nil || len(problems) != len(origProblems) {
						t.Fatalf("reading back: %v %v", err, problems)
					}
					if len(back) != len(orig) || len(ws) != len(orig) {
						t.Fatalf("%d records back, %d reported, want %d", len(back), len(ws), len(orig))
					}
					for i, b := range back {
						o := orig[i]
						if b.rec.Version != ver {
							t.Errorf("record %d: version %q", i, b.rec.Version)
						}
						for _, f := range o.rec.Header {
							if got := b.rec.Header.Values(f.Name); len(got) == 0 || !contains(got, f.Value) {
								t.Errorf("record %d: field %s: %q, want %q", i, f.Name, got, f.Value)
							}
						}
						if !bytes.Equal(b.block, o.block) {
							t.Errorf("record %d: block differs", i)
						}
						if b.rec.Offset != ws[i].off || b.rec.DiskLength != ws[i].len {
							t.Errorf("record %d: read at %d+%d, written at %d+%d", i, b.rec.Offset, b.rec.DiskLength, ws[i].off, ws[i].len)
						}
						if fmt.Sprint(ws[i].rec.Header) != fmt.Sprint(b.rec.Header) {
							t.Errorf("record %d: OnWritten header\n%v\nread back\n%v", i, ws[i].rec.Header, b.rec.Header)
						}
						for _, f := range []string{record.FieldBlockDigest, record.FieldRecordID, record.FieldDate, record.FieldContentLength} {
							if !b.rec.Header.Has(f) {
								t.Errorf("record %d: no %s", i, f)
							}
						}
					}
				})
			}
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func sha1b32(b []byte) string {
	s := sha1.Sum(b)
	return "sha1:" + base32.StdEncoding.EncodeToString(s[:])
}

// TestWriterDigests checks the digests the writer adds, computed here
// independently with crypto/sha1 and httpmsg's pull de-chunker.
func TestWriterDigests(t *testing.T) {
	iana, _, _ := readAllFrom(t, readFixture(t, "example-iana.org-chunked.warc"), "x")
	chunked := iana[1].block
	body := chunked[bytes.Index(chunked, []byte("\r\n\r\n"))+4:]
	entity, err := io.ReadAll(httpmsg.NewChunkedReader(bytes.NewReader(body)))
	if err != nil {
		t.Fatal(err)
	}
	badChunks := []byte("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz not chunked")
	plainResp := []byte("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello")
	revisitHead := []byte("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n")
	req := []byte("GET / HTTP/1.1\r\nHost: example.com\r\n\r\n")
	const http = "application/http; msgtype=response"
	tests := []struct {
		name    string
		typ, ct string
		block   []byte
		payload string // "" = no WARC-Payload-Digest
	}{
		{"chunked response: de-chunked", "response", http, chunked, sha1b32(entity)},
		{"bad chunks: raw body", "response", http, badChunks, sha1b32([]byte("zz not chunked"))},
		{"plain response", "response", http, plainResp, sha1b32([]byte("hello"))},
		{"request without body", "request", "application/http; msgtype=request", req, "sha1:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ"},
		{"revisit head only", "revisit", http, revisitHead, ""},
		{"revisit with body", "revisit", http, plainResp, sha1b32([]byte("hello"))},
		{"resource", "resource", "image/png", []byte("\x89PNG..."), sha1b32([]byte("\x89PNG..."))},
		{"metadata", "metadata", "application/warc-fields", []byte("a: b\r\n"), ""},
		{"warcinfo", "warcinfo", "application/warc-fields", []byte("software: x\r\n"), ""},
		{"non-http response", "response", "text/dns", []byte("dns"), ""},
		{"empty resource", "resource", "text/plain", nil, "sha1:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			w := NewWriter(&out, WithCompression(compio.Plain))
			rec := &record.Record{Header: record.Header{{Name: "WARC-Type", Value: tc.typ}, {Name: "Content-Type", Value: tc.ct}}}
			if tc.block != nil {
				rec.Block = bytes.NewReader(tc.block)
			}
			if err := w.WriteRecord(rec); err != nil {
				t.Fatal(err)
			}
			w.Close()
			back, problems, err := readAllFrom(t, out.Bytes(), "x", WithVerifyDigests(true))
			if err != nil || len(problems) > 0 || len(back) != 1 {
				t.Fatalf("%v %v", err, problems)
			}
			h := back[0].rec.Header
			if got := h.Get(record.FieldBlockDigest); got != sha1b32(tc.block) {
				t.Errorf("block digest %s, want %s", got, sha1b32(tc.block))
			}
			if got := h.Get(record.FieldPayloadDigest); got != tc.payload {
				t.Errorf("payload digest %q, want %q", got, tc.payload)
			}
			if got := h.Get(record.FieldContentLength); got != fmt.Sprint(len(tc.block)) {
				t.Errorf("Content-Length %s", got)
			}
		})
	}
}

// TestWriterExactBytes checks the exact bytes of a plain record: field
// order, given values kept, Content-Length replaced by the true length.
func TestWriterExactBytes(t *testing.T) {
	var out bytes.Buffer
	w := NewWriter(&out, WithCompression(compio.Plain), WithIDFunc(func(r *record.Record) string { return "<urn:test:" + r.TargetURI() + ">" }))
	rec := &record.Record{
		Header: record.Header{
			{Name: "Content-Type", Value: "application/http; msgtype=response"},
			{Name: "WARC-Target-URI", Value: "http://example.com/"},
			{Name: "Content-Length", Value: "999"},
			{Name: "WARC-Date", Value: "2020-05-06T07:08:09Z"},
			{Name: "WARC-IP-Address", Value: "127.0.0.1"},
			{Name: "WARC-Type", Value: "response"},
		},
		Block: strings.NewReader("HTTP/1.0 200 OK\r\n\r\nhi"),
	}
	if err := w.WriteRecord(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	want := "WARC/1.1\r\n" +
		"WARC-Type: response\r\n" +
		"WARC-Record-ID: <urn:test:http://example.com/>\r\n" +
		"WARC-Date: 2020-05-06T07:08:09Z\r\n" +
		"WARC-Target-URI: http://example.com/\r\n" +
		"WARC-IP-Address: 127.0.0.1\r\n" +
		"WARC-Payload-Digest: " + sha1b32([]byte("hi")) + "\r\n" +
		"WARC-Block-Digest: " + sha1b32([]byte("HTTP/1.0 200 OK\r\n\r\nhi")) + "\r\n" +
		"Content-Type: application/http; msgtype=response\r\n" +
		"Content-Length: 21\r\n" +
		"\r\n" +
		"HTTP/1.0 200 OK\r\n\r\nhi\r\n\r\n"
	if out.String() != want {
		t.Errorf("got\n%q\nwant\n%q", out.String(), want)
	}
}

// TestWriterDefaults checks generated IDs (urn:uuid v4, unique) and dates
// (microseconds for 1.1, seconds for 1.0).
func TestWriterDefaults(t *testing.T) {
	for _, tc := range []struct{ ver, dateLayout string }{
		{"WARC/1.1", "2006-01-02T15:04:05.000000Z"},
		{"WARC/1.0", "2006-01-02T15:04:05Z"},
	} {
		var out bytes.Buffer
		w := NewWriter(&out, WithVersion(tc.ver))
		for range 3 {
			if err := w.WriteRecord(&record.Record{Header: record.Header{{Name: "WARC-Type", Value: "metadata"}}, Block: strings.NewReader("x")}); err != nil {
				t.Fatal(err)
			}
		}
		w.Close()
		back, _, err := readAllFrom(t, out.Bytes(), "x")
		if err != nil || len(back) != 3 {
			t.Fatal(err, len(back))
		}
		seen := map[string]bool{}
		for _, b := range back {
			id := b.rec.ID()
			if len(id) != 47 || !strings.HasPrefix(id, "<urn:uuid:") || id[24] != '4' || !strings.Contains("89ab", id[29:30]) || seen[id] {
				t.Errorf("record ID %q", id)
			}
			seen[id] = true
			d := b.rec.Header.Get("WARC-Date")
			if len(d) != len(tc.dateLayout) {
				t.Errorf("%s date %q", tc.ver, d)
			}
			if _, err := b.rec.Date(); err != nil {
				t.Error(err)
			}
		}
	}
}

// TestWriterDeterministic checks the output does not depend on the
// concurrency when IDs and dates are given.
func TestWriterDeterministic(t *testing.T) {
	orig, _, _ := readAllFrom(t, readFixture(t, "example.warc"), "x")
	for _, comp := range []compio.Format{compio.Gzip, compio.Zstd} {
		a, _ := writeAll(t, orig, WithCompression(comp), WithConcurrency(1))
		b, _ := writeAll(t, orig, WithCompression(comp), WithConcurrency(4))
		if !bytes.Equal(a, b) {
			t.Errorf("%s: output differs between concurrency 1 and 4", comp)
		}
	}
}

// TestWriterLargeRecords mixes blocks above MaxMemoryBlock (spilled and
// compressed inline) with small ones: order, offsets and bytes survive.
func TestWriterLargeRecords(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	var recs []gotRecord
	for i := range 12 {
		n := 100 + rng.Intn(5000)
		if i%4 == 1 {
			n = MaxMemoryBlock + 1 + rng.Intn(3<<20)
		}
		b := make([]byte, n)
		for j := range b {
			b[j] = byte('a' + rng.Intn(4)) // compressible but not trivial
		}
		rec := &record.Record{Header: record.Header{
			{Name: "WARC-Type", Value: "resource"},
			{Name: "WARC-Target-URI", Value: fmt.Sprintf("http://example.com/%d", i)},
			{Name: "Content-Type", Value: "application/octet-stream"},
		}}
		recs = append(recs, gotRecord{rec: rec, block: b})
	}
	for _, comp := range []compio.Format{compio.Gzip, compio.Zstd, compio.Plain} {
		t.Run(comp.String(), func(t *testing.T) {
			out, ws := writeAll(t, recs, WithCompression(comp), WithTempDir(t.TempDir()))
			back, problems, err := readAllFrom(t, out, "big", WithVerifyDigests(true))
			if err != nil || len(problems) > 0 || len(back) != len(recs) {
				t.Fatalf("%v %v %d", err, problems, len(back))
			}
			for i := range back {
				if !bytes.Equal(back[i].block, recs[i].block) || back[i].rec.TargetURI() != recs[i].rec.TargetURI() {
					t.Errorf("record %d differs", i)
				}
				if back[i].rec.Offset != ws[i].off || back[i].rec.DiskLength != ws[i].len || ws[i].rec.TargetURI() != recs[i].rec.TargetURI() {
					t.Errorf("record %d: read at %d+%d, reported %d+%d %s", i, back[i].rec.Offset, back[i].rec.DiskLength, ws[i].off, ws[i].len, ws[i].rec.TargetURI())
				}
			}
		})
	}
}

// TestZstdDict writes .warc.zst with a trained zstd dictionary and with raw
// content, reads it back, and has the zstd CLI decompress it with the same
// dictionary (it skips the dictionary frame) to the same plain WARC.
func TestZstdDict(t *testing.T) {
	orig, _, _ := readAllFrom(t, readFixture(t, "example.warc"), "x")
	plain, _ := writeAll(t, orig, WithCompression(compio.Plain))
	var samples [][]byte
	for _, f := range cleanFixtures {
		recs, _, _ := readAllFrom(t, readFixture(t, f), f)
		for _, r := range recs {
			samples = append(samples, r.block)
		}
	}
	trained, err := dict.BuildZstdDict(samples, dict.Options{MaxDictSize: 4096, HashBytes: 6, ZstdDictID: 7})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		dict []byte
	}{{"trained", trained}, {"raw", plain[:1000]}} {
		t.Run(tc.name, func(t *testing.T) {
			out, ws := writeAll(t, orig, WithZstdDict(tc.dict))
			if want := 8 + int64(len(tc.dict)); ws[0].off != want {
				t.Errorf("first record at %d, want %d (after the dictionary frame)", ws[0].off, want)
			}
			back, problems, err := readAllFrom(t, out, "x.warc.zst", WithVerifyDigests(true))
			if err != nil || len(problems) > 0 || len(back) != len(orig) {
				t.Fatalf("%v %v %d", err, problems, len(back))
			}
			for i := range back {
				if !bytes.Equal(back[i].block, orig[i].block) || back[i].rec.Offset != ws[i].off {
					t.Errorf("record %d differs", i)
				}
			}
			zst := peertest.Need(t, "zstd", "zstd")
			dir := t.TempDir()
			os.WriteFile(filepath.Join(dir, "d"), tc.dict, 0o644)
			os.WriteFile(filepath.Join(dir, "x.warc.zst"), out, 0o644)
			got, err := exec.Command(zst, "-q", "-d", "-c", "-D", filepath.Join(dir, "d"), filepath.Join(dir, "x.warc.zst")).Output()
			if err != nil {
				t.Fatalf("zstd -d: %v", err)
			}
			if !bytes.Equal(got, plain) {
				t.Errorf("zstd CLI output (%d bytes) differs from the plain WARC (%d bytes)", len(got), len(plain))
			}
		})
	}
}

// TestWarcioReadsOutput has npm warcio index what the writer wrote, in
// each compression: it must list every record at the offsets OnWritten
// reported. The records are written without their digests, so the writer
// computes them; warcio.js only copies WARC-Payload-Digest from the header,
// so the test recomputes both digests itself from the bytes at each offset
// (indepRead, indepPayloadDigest: standard library only) and warcio's value,
// the header we wrote and the recomputed one must all agree. A revisit keeps
// the payload digest it came with (it names another record's payload).
func TestWarcioReadsOutput(t *testing.T) {
	node, cli := peertest.WarcioCLI(t)
	var all []gotRecord
	for _, f := range cleanFixtures {
		recs, _, _ := readAllFrom(t, readFixture(t, f), f)
		for _, g := range recs {
			g.rec = &record.Record{Header: g.rec.Header.Clone()}
			g.rec.Header.Del(record.FieldBlockDigest)
			if g.rec.Type() != record.Revisit {
				g.rec.Header.Del(record.FieldPayloadDigest)
			}
			all = append(all, g)
		}
	}
	for _, tc := range []struct {
		name string
		comp compio.Format
	}{{"out.warc.gz", compio.Gzip}, {"out.warc", compio.Plain}} {
		t.Run(tc.name, func(t *testing.T) {
			out, ws := writeAll(t, all, WithCompression(tc.comp))
			path := filepath.Join(t.TempDir(), tc.name)
			if err := os.WriteFile(path, out, 0o644); err != nil {
				t.Fatal(err)
			}
			res, err := exec.Command(node, cli, "index", path, "-f", "offset", "-f", "warc-type", "-f", "warc-record-id", "-f", "warc-payload-digest").CombinedOutput()
			if err != nil {
				t.Fatalf("warcio index: %v\n%s", err, res)
			}
			lines := strings.Split(strings.TrimSpace(string(res)), "\n")
			if len(lines) != len(ws) || len(ws) != len(all) {
				t.Fatalf("warcio lists %d records, OnWritten %d, we wrote %d:\n%s", len(lines), len(ws), len(all), res)
			}
			computed := 0
			for i, line := range lines {
				var e struct {
					Offset  int64  `json:"offset"`
					Type    string `json:"warc-type"`
					ID      string `json:"warc-record-id"`
					Payload string `json:"warc-payload-digest"`
				}
				if err := json.Unmarshal([]byte(line), &e); err != nil {
					t.Fatalf("%q: %v", line, err)
				}
				h := ws[i].rec.Header
				if e.Offset != ws[i].off || e.Type != h.Get("WARC-Type") || e.ID != h.Get("WARC-Record-ID") || e.Payload != h.Get("WARC-Payload-Digest") {
					t.Errorf("record %d: warcio %+v, wrote offset %d %s %s %s", i, e, ws[i].off, h.Get("WARC-Type"), h.Get("WARC-Record-ID"), h.Get("WARC-Payload-Digest"))
				}
				// the digests, recomputed from the bytes at warcio's offset
				ir := indepRead(t, out, e.Offset, tc.comp == compio.Gzip)
				if !bytes.Equal(ir.block, all[i].block) {
					t.Errorf("record %d (%s): block at offset %d differs from the one written (%d bytes, want %d)", i, e.ID, e.Offset, len(ir.block), len(all[i].block))
				}
				if got, want := ir.fields["warc-block-digest"], indepSHA1(ir.block); got != want {
					t.Errorf("record %d (%s %s): WARC-Block-Digest %s, SHA-1 of the block %s", i, e.Type, e.ID, got, want)
				}
				want := all[i].rec.Header.Get(record.FieldPayloadDigest) // a revisit's, kept
				if e.Type != "revisit" {
					if want, err = indepPayloadDigest(e.Type, ir.fields["content-type"], ir.block); err != nil {
						t.Fatalf("record %d (%s): %v", i, e.ID, err)
					}
					if want != "" {
						computed++
					}
				}
				if e.Payload != want || ir.fields["warc-payload-digest"] != want {
					t.Errorf("record %d (%s %s): WARC-Payload-Digest %q (warcio %q), recomputed %q", i, e.Type, e.ID, ir.fields["warc-payload-digest"], e.Payload, want)
				}
			}
			if computed < 10 {
				t.Errorf("only %d payload digests recomputed", computed)
			}
			t.Logf("%d records, %d payload digests recomputed", len(lines), computed)
		})
	}
}

type failWriter struct{ n int }

func (f *failWriter) Write(p []byte) (int, error) {
	if f.n < len(p) {
		return 0, errors.New("disk full")
	}
	f.n -= len(p)
	return len(p), nil
}

// TestWriterErrors checks record errors leave the writer usable and output
// errors are sticky.
func TestWriterErrors(t *testing.T) {
	var out bytes.Buffer
	w := NewWriter(&out, WithCompression(compio.Plain))
	if err := w.WriteRecord(&record.Record{Header: record.Header{{Name: "WARC-Target-URI", Value: "x"}}}); err == nil || err.Error() != "warc: record has no WARC-Type" {
		t.Errorf("no type: %v", err)
	}
	if err := w.WriteRecord(&record.Record{Header: record.Header{{Name: "WARC-Type", Value: "resource"}, {Name: "X", Value: "a\r\nWARC-Type: evil"}}}); err == nil || err.Error() != "warc: field X: value contains a line break" {
		t.Errorf("line break: %v", err)
	}
	if err := w.WriteRecord(&record.Record{Header: record.Header{{Name: "WARC-Type", Value: "resource"}}}); err != nil {
		t.Errorf("after record errors: %v", err)
	}
	w.Close()
	if back, _, err := readAllFrom(t, out.Bytes(), "x"); err != nil || len(back) != 1 {
		t.Errorf("%v %d", err, len(back))
	}

	if err := NewWriter(&out, WithVersion("WARC/2.0")).Close(); err == nil || err.Error() != `warc: unsupported version "WARC/2.0" (want WARC/1.1 or WARC/1.0)` {
		t.Errorf("version: %v", err)
	}
	if err := NewWriter(&out, WithCompression(compio.Gzip), WithZstdDict([]byte("d"))).Close(); err == nil || err.Error() != "warc: compio: a dictionary needs zstd" {
		t.Errorf("dict: %v", err)
	}

	orig, _, _ := readAllFrom(t, readFixture(t, "example.warc"), "x")
	for _, comp := range []compio.Format{compio.Gzip, compio.Plain} {
		w = NewWriter(&failWriter{n: 1000}, WithCompression(comp))
		var err error
		for _, g := range orig {
			if err = w.WriteRecord(&record.Record{Header: g.rec.Header.Clone(), Block: bytes.NewReader(g.block)}); err != nil {
				break
			}
		}
		if cerr := w.Close(); cerr == nil || cerr.Error() != "warc: disk full" || (err != nil && err.Error() != "warc: disk full") {
			t.Errorf("%s: write error: %v, close: %v", comp, err, cerr)
		}
	}
}

// FuzzWriterRoundTrip writes a record with an arbitrary block and field
// value in each compression and reads it back: the block must survive
// byte for byte, the digests must verify, and a value with a line break
// must be refused rather than written.
func FuzzWriterRoundTrip(f *testing.F) {
	for _, file := range cleanFixtures {
		recs, _, _ := readAllFrom(f, readFixture(f, file), file)
		for _, r := range recs {
			f.Add(r.block, r.rec.TargetURI(), string(r.rec.Type()))
		}
	}
	f.Add([]byte("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n"), "http://x/", "response")
	f.Fuzz(func(t *testing.T, block []byte, uri, typ string) {
		if typ == "" {
			typ = "resource"
		}
		for _, comp := range []compio.Format{compio.Plain, compio.Gzip, compio.Zstd} {
			var out bytes.Buffer
			w := NewWriter(&out, WithCompression(comp), WithConcurrency(2))
			rec := &record.Record{Header: record.Header{
				{Name: "WARC-Type", Value: typ},
				{Name: "WARC-Target-URI", Value: uri},
				{Name: "Content-Type", Value: "application/http; msgtype=response"},
			}, Block: bytes.NewReader(block)}
			err := w.WriteRecord(rec)
			if cerr := w.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				if strings.ContainsAny(uri, "\r\n") || strings.ContainsAny(typ, "\r\n") {
					return
				}
				t.Fatalf("%s: %v", comp, err)
			}
			back, problems, err := readAllFrom(t, out.Bytes(), "f", WithVerifyDigests(true), WithPolicy(record.Fail))
			if err != nil || len(back) != 1 || back[0].err != nil || len(problems) > 0 {
				t.Fatalf("%s: %v %d %v", comp, err, len(back), problems)
			}
			if !bytes.Equal(back[0].block, block) {
				t.Fatalf("%s: block differs", comp)
			}
			if back[0].rec.Header.Get("WARC-Target-URI") != strings.TrimSpace(uri) || back[0].rec.Header.Get("WARC-Type") != strings.TrimSpace(typ) {
				t.Fatalf("%s: fields %q %q", comp, back[0].rec.Header.Get("WARC-Target-URI"), back[0].rec.Header.Get("WARC-Type"))
			}
		}
	})
}
