package wacz

import (
	"bytes"
	"testing"

	"github.com/arcport/arcport/lib/internal/warcgen"
	"github.com/arcport/arcport/lib/record"
)

// TestCheckArchiveStats: CheckArchive counts records, checked digests,
// records without digests and which chunked-payload convention matched.
func TestCheckArchiveStats(t *testing.T) {
	body := []byte("<p>stats</p>")
	msg, _ := warcgen.HTTP(body, false)
	cmsg, cstored := warcgen.HTTP(body, true)
	rec := func(bd, pd string, b []byte) []byte { return warcgen.Record(warcgen.Response("http://x/", bd, pd), b) }
	data := warcgen.Gzip(
		rec(warcgen.B32("sha1", "sha1", msg), warcgen.B32("sha1", "sha1", body), msg),
		rec(warcgen.B32("sha1", "sha1", cmsg), warcgen.B32("sha1", "sha1", body), cmsg),
		rec(warcgen.B32("sha1", "sha1", cmsg), warcgen.Hex("sha256", "sha256", cstored), cmsg),
		rec("", "", msg),
		rec(warcgen.B32("sha1", "sha1", []byte("no")), "", msg),
	)
	var problems []*record.Problem
	var verbose int
	st, err := CheckArchive(bytes.NewReader(data), "s.warc.gz", CheckOptions{
		Problem: func(p *record.Problem) { problems = append(problems, p) },
		Verbose: func(int64, string) { verbose++ },
	})
	want := CheckStats{Records: 5, Checked: 7, Mismatch: 1, NoDigest: 1, AsStored: 1, Dechunked: 1, Problems: 1}
	if err != nil || st != want || verbose != 5 || len(problems) != 1 || !IsDigestProblem(problems[0].Msg) {
		t.Errorf("stats %+v (err %v, %d verbose lines, problems %v), want %+v", st, err, verbose, problems, want)
	}
}

// TestMemberMap: offsets in the inflated data name the member they start
// (or fall in).
func TestMemberMap(t *testing.T) {
	m := &memberMap{}
	m.add(0, 0)
	m.add(100, 1000)
	m.add(180, 2500)
	for _, tc := range []struct {
		u    int64
		want string
	}{
		{0, "record at offset 0"},
		{1000, "record at offset 100"},
		{2500, "record at offset 180"},
		{1200, "record at offset 1200 of the data inflated from the gzip member at offset 100"},
		{9999, "record at offset 9999 of the data inflated from the gzip member at offset 180"},
	} {
		if got := m.where(tc.u); got != tc.want {
			t.Errorf("where(%d) = %q, want %q", tc.u, got, tc.want)
		}
	}
}
