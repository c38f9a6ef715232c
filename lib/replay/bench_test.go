package replay

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
)

// benchServer serves the sample archive's CDX folder (pywb) and ZipNum
// cluster (zip) on a loopback httptest server.
func benchServer(b *testing.B) string {
	sa := sampleArchive(b)
	var colls []*Collection
	for _, c := range []struct{ n, s string }{{"pywb", sa + "/cdx"}, {"zip", sa + "/zipcdx/zipnum-sample.idx"}} {
		coll, err := Open(context.Background(), c.n, c.s, Options{})
		if err != nil {
			b.Fatal(err)
		}
		colls = append(colls, coll)
	}
	s, err := NewServer(colls...)
	if err != nil {
		b.Fatal(err)
	}
	ts := httptest.NewServer(s)
	b.Cleanup(ts.Close)
	return ts.URL
}

func benchGet(b *testing.B, u string) {
	b.Helper()
	c := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			resp, err := c.Get(u)
			if err != nil {
				b.Error(err)
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 {
				b.Errorf("%s: %d", u, resp.StatusCode)
				return
			}
		}
	})
}

// BenchmarkCDXExact: an exact CDX query over HTTP (a folder of 10 CDX
// files: 10 binary searches and pywb's merge).
func BenchmarkCDXExact(b *testing.B) {
	benchGet(b, benchServer(b)+"/pywb/cdx?url=http://www.iana.org/_css/2013.1/screen.css")
}

// BenchmarkCDXExactZipNum: the same query on the ZipNum cluster.
func BenchmarkCDXExactZipNum(b *testing.B) {
	benchGet(b, benchServer(b)+"/zip/cdx?url=http://www.iana.org/_css/2013.1/screen.css")
}

// BenchmarkReplay: a 5.6 KB page replayed in id_ mode.
func BenchmarkReplay(b *testing.B) {
	benchGet(b, benchServer(b)+"/pywb/20140126200624id_/http://www.iana.org/")
}
