package htcache

import (
	"bytes"
	"io"
	"os"
	"testing"
)

// FuzzZipReader feeds the local-header scanner arbitrary zips, seeded with
// garden's new.zip, cut and uncut, and a small Writer-made cache with data
// descriptors. It must never panic or hang; entries come out in increasing
// offsets; bodies never exceed their declared size. (Coverage-expanding
// inputs derived from the 7 KB garden seed take the fuzzer long to
// minimise: exec counts stall while it does.)
func FuzzZipReader(f *testing.F) {
	full, err := os.ReadFile(gardenZip)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(full)
	f.Add(full[:bytes.Index(full, []byte("PK\x01\x02"))])
	f.Add(full[:2000])
	var buf bytes.Buffer
	zw := NewWriter(nonSeeker{&buf}) // data descriptors
	m := Meta{InCache: true, StatusCode: 200, StatusMessage: "OK", Size: 5, ContentType: "text/html"}
	zw.Add("http://x/", &m, bytes.NewReader([]byte("hello")))
	zw.Close()
	f.Add(buf.Bytes())
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, verify := range []bool{false, true} {
			z, err := NewZipReader(bytes.NewReader(b), int64(len(b)), "fuzz.zip", WithVerify(verify))
			if err != nil {
				return
			}
			last := int64(-1)
			for i := 0; ; i++ {
				e, err := z.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatalf("Warn policy returned an error: %v", err)
				}
				if e.Offset <= last {
					t.Fatalf("entry offset %d after %d", e.Offset, last)
				}
				last = e.Offset
				rc, err := e.OpenStored()
				if err != nil {
					continue
				}
				n, _ := io.Copy(io.Discard, io.LimitReader(rc, e.StoredSize+2))
				if n > e.StoredSize {
					t.Fatalf("body of %d bytes, declared %d", n, e.StoredSize)
				}
				rc.Close()
				if i > len(b) {
					t.Fatal("more entries than bytes")
				}
			}
		}
	})
}

// FuzzParseMeta: metadata text never panics, and what parses formats back
// to text that parses to the same values.
func FuzzParseMeta(f *testing.F) {
	full, err := os.ReadFile(gardenZip)
	if err != nil {
		f.Fatal(err)
	}
	for i := 0; ; {
		j := bytes.Index(full[i:], []byte("HTTP/1.1"))
		if j < 0 {
			break
		}
		k := bytes.Index(full[i+j:], []byte("\r\n\x00"))
		end := i + j + 400
		if k >= 0 && i+j+k < end {
			end = i + j + k
		}
		if end > len(full) {
			end = len(full)
		}
		f.Add(full[i+j : end])
		i += j + 8
	}
	f.Add([]byte("HTTP/1.1 200 OK\r\nX-In-Cache: 1\r\n\r\nServer: x\r\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := ParseMeta(b)
		if err != nil {
			return
		}
		text, err := m.Format()
		if err != nil {
			return
		}
		m2, err := ParseMeta(text)
		if err != nil {
			t.Fatalf("formatted metadata does not parse: %v\n%q", err, text)
		}
		norm := func(m Meta) Meta {
			if m.Size == 0 {
				m.Size = -1
			}
			m.Proto, m.LineCode, m.LineReason, m.Fields, m.Original = "", 0, "", nil, nil
			return m
		}
		a, c := norm(m), norm(m2)
		if a.InCache != c.InCache || a.StatusCode != c.StatusCode || a.StatusMessage != c.StatusMessage || a.Size != c.Size ||
			a.ContentType != c.ContentType || a.Charset != c.Charset || a.LastModified != c.LastModified || a.ETag != c.ETag ||
			a.Location != c.Location || a.ContentDisposition != c.ContentDisposition || a.Addr != c.Addr || a.Fil != c.Fil || a.Save != c.Save {
			t.Fatalf("round trip changed metadata:\n%+v\n%+v\n%q", a, c, text)
		}
	})
}

// FuzzNdxReader: the first byte splits the input into index and data file.
func FuzzNdxReader(f *testing.F) {
	ndx, dat := writeNdx(5, "Fri, 01 Mar 2024 12:00:00 GMT", ndxSample)
	seed := append([]byte{byte(len(ndx))}, append(ndx, dat...)...)
	if len(ndx) < 256 {
		f.Add(seed)
	}
	ndx3, dat3 := writeNdx(3, "x", ndxSample[:2])
	f.Add(append([]byte{byte(len(ndx3))}, append(ndx3, dat3...)...))
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) == 0 {
			return
		}
		cut := int(b[0])
		b = b[1:]
		if cut > len(b) {
			cut = len(b)
		}
		r, err := NewNdxReader(bytes.NewReader(b[:cut]), bytes.NewReader(b[cut:]), "fuzz.ndx")
		if err != nil {
			return
		}
		for i := 0; i <= len(b); i++ {
			e, err := r.Next()
			if err != nil {
				return
			}
			rc, _ := e.OpenStored()
			io.Copy(io.Discard, rc)
		}
		t.Fatal("more entries than bytes")
	})
}

// FuzzURI: the result is always a URI (ASCII, no spaces), idempotent.
func FuzzURI(f *testing.F) {
	f.Add("http://127.0.0.1:8766/r\xc3\xa9sum\xc3\xa9.html")
	f.Add("http://h/a b?c=d#e%zz%41")
	f.Add("www.example.com/[x]")
	f.Fuzz(func(t *testing.T, s string) {
		u := URI(s)
		for i := 0; i < len(u); i++ {
			if u[i] <= ' ' || u[i] >= 0x7f || u[i] == '#' {
				t.Fatalf("URI(%q) = %q has byte %#x", s, u, u[i])
			}
		}
		if URI(u) != u {
			t.Fatalf("URI not idempotent: %q -> %q -> %q", s, u, URI(u))
		}
	})
}
