package zimdump

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/arcport/arcport/lib/internal/zimtest"
	"github.com/arcport/arcport/lib/store/s3test"
)

// TestShowRemoteRequests: `zimdump show` of one entry of a 100,000-entry
// ZIM in s3:// (a real versitygw behind a counting proxy) prints what it
// prints for the local file, within 40 requests and 4 MiB (issue 14's
// budget: header, MIME list, pointer lists and one cluster by ranges).
func TestShowRemoteRequests(t *testing.T) {
	srv := s3test.Start(t)
	srv.Bucket(t, "coll")
	proxy := s3test.NewProxy(t, srv.URL)
	srv.Setenv(t, proxy.URL)

	const n, perCluster = 100000, 1000
	s := zimtest.Spec{}
	for c := 0; c < n/perCluster; c++ {
		s.Clusters = append(s.Clusters, zimtest.Cluster{Comp: 5})
	}
	for i := 0; i < n; i++ {
		s.Entries = append(s.Entries, zimtest.Entry{NS: 'C', Path: fmt.Sprintf("A/Article_%d", i), Title: fmt.Sprintf("Article %d", i),
			Mime: "text/html", Data: []byte(fmt.Sprintf("<html><title>Article %d</title><p>%s</p></html>", i, bytes.Repeat([]byte("lorem ipsum "), 20))),
			Cluster: i / perCluster})
	}
	b, _, err := zimtest.Build(s)
	if err != nil {
		t.Fatal(err)
	}
	local := filepath.Join(t.TempDir(), "wiki.zim")
	if err := os.WriteFile(local, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(srv.Dir, "coll", "wiki.zim"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"A/Article_54321", "A/Article_7", "A/Article_99999"} {
		want := ours("show", "--url="+path, local)
		proxy.Reset()
		got := ours("show", "--url="+path, "s3://coll/wiki.zim")
		st := proxy.Stats()
		t.Logf("zimdump show --url=%s s3://coll/wiki.zim (%d bytes, %d entries): %d requests, %d bytes", path, len(b), n, st.Requests, st.Bytes)
		if got != want || want.rc != 0 {
			t.Errorf("%s: remote %+v, local %+v", path, got.rc, want.rc)
		}
		if st.Requests > 40 || st.Bytes > 4<<20 {
			t.Errorf("%s: %d requests and %d bytes, want at most 40 and 4 MiB", path, st.Requests, st.Bytes)
		}
	}
}
