package zimdump

import (
	"encoding/binary"
	"regexp"
	"strings"
	"testing"

	"github.com/arcport/arcport/lib/internal/zimtest"
)

// TestCheckCrafted: `zimdump check` exits 1 with one line per problem,
// each "FILE: offset N: reason", on a redirect cycle, a self-redirect,
// entries sharing one blob, a blob running past its cluster and a cluster
// pointer past the end of the file; list and show keep working on what
// can be read.
func TestCheckCrafted(t *testing.T) {
	item := func(p, data string, cluster int) zimtest.Entry {
		return zimtest.Entry{NS: 'C', Path: p, Mime: "text/plain", Data: []byte(data), Cluster: cluster}
	}
	tests := []struct {
		name   string
		spec   zimtest.Spec
		want   []string // substrings, one per line
		listOK bool
		show   string // a path whose data show must print
	}{
		{"redirect cycle", zimtest.Spec{Clusters: []zimtest.Cluster{{Comp: 1}}, Entries: []zimtest.Entry{
			{NS: 'C', Path: "a", Target: "C/b"}, {NS: 'C', Path: "b", Target: "C/a"}, item("x", "x", 0)}},
			[]string{"redirect loop: C/a -> C/b -> C/a"}, true, "x"},
		{"self redirect", zimtest.Spec{Clusters: []zimtest.Cluster{{Comp: 5}}, Entries: []zimtest.Entry{
			{NS: 'C', Path: "a", Target: "C/a"}, item("x", "x", 0)}},
			[]string{"redirect loop: C/a -> C/a"}, true, "x"},
		{"one blob for every entry", zimtest.Spec{Clusters: []zimtest.Cluster{{Comp: 5}}, Entries: []zimtest.Entry{
			item("a", "aaa", 0), item("b", "bbb", 0), item("c", "ccc", 0), item("d", "ddd", 0), item("e", "eee", 0)},
			Patch: func(b []byte, o zimtest.Offsets) {
				for _, d := range o.Dirents {
					binary.LittleEndian.PutUint32(b[d+12:], 0)
				}
			}},
			[]string{"cluster 0 blob 0 is the data of 5 entries: C/a, C/b, C/c, C/d, ..."}, true, "e"},
		{"blob past its cluster", zimtest.Spec{Clusters: []zimtest.Cluster{{Comp: 1}, {Comp: 1}}, Entries: []zimtest.Entry{
			item("a", "first blob", 0), item("b", "second blob", 1)},
			Patch: func(b []byte, o zimtest.Offsets) { binary.LittleEndian.PutUint32(b[o.Clusters[0]+1+4:], 8+14) }},
			[]string{"cluster 0: blob 0 ends at 22, past the end of the cluster"}, true, "b"},
		{"cluster past the file end", zimtest.Spec{Clusters: []zimtest.Cluster{{Comp: 1}, {Comp: 1}}, Entries: []zimtest.Entry{
			item("a", "first blob", 0), item("b", "second blob", 1)},
			Patch: func(b []byte, o zimtest.Offsets) { binary.LittleEndian.PutUint64(b[o.ClusterPtr:], 1<<64-1) }},
			[]string{"cluster 0: pointer 18446744073709551615 outside"}, true, "b"},
	}
	line := regexp.MustCompile(`^(.*): offset \d+: (.*)$`)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			zf := writeZim(t, tc.spec)
			r := ours("check", zf)
			lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
			if r.rc != 1 || len(lines) != len(tc.want) {
				t.Fatalf("check: rc %d, want 1 and %d line(s):\n%s%s", r.rc, len(tc.want), r.stdout, r.stderr)
			}
			for i, l := range lines {
				m := line.FindStringSubmatch(l)
				if m == nil || m[1] != zf || !strings.Contains(m[2], tc.want[i]) {
					t.Errorf("line %q, want %s: offset N: ...%s...", l, zf, tc.want[i])
				}
			}
			if r := ours("list", zf); r.rc != 0 {
				t.Errorf("list: %+v", r)
			}
			if r := ours("show", "--url="+tc.show, zf); r.rc != 0 || r.stdout == "" {
				t.Errorf("show %s: %+v", tc.show, r)
			}
		})
	}
}
