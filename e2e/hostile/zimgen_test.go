package hostile

import (
	"crypto/md5"
	"encoding/binary"
	"os"
	"os/exec"
	"sort"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// A minimal ZIM writer (format 6.1, new namespaces; spec
// ../../../shared/specs/zim-file-format.txt) for archives no real creator
// would write: hostile paths, lying cluster tables, decompression bombs.

// zimEntry is one directory entry.
type zimEntry struct {
	ns       byte // 'C' when 0
	path     string
	title    string
	mime     uint16 // index into zimSpec.mimes
	cluster  uint32
	blob     uint32
	redirect int // >= 0: a redirect to entry index redirect (then mime is 0xffff)
}

// zimSpec is a whole archive.
type zimSpec struct {
	mimes    []string
	entries  []zimEntry // written in this order (sorted by path unless unsorted)
	clusters [][]byte   // each cluster as stored: information byte + data
	unsorted bool
	patch    func(h []byte) // edits the 80-byte header before the checksum
}

func content(path string, cluster, blob uint32) zimEntry {
	return zimEntry{path: path, cluster: cluster, blob: blob, redirect: -1}
}

// plainCluster is an uncompressed cluster holding blobs.
func plainCluster(blobs ...string) []byte {
	return append([]byte{1}, clusterData(blobs...)...)
}

// clusterData is the offsets table followed by the blobs.
func clusterData(blobs ...string) []byte {
	n := len(blobs) + 1
	off := uint32(4 * n)
	var b []byte
	for _, bl := range blobs {
		b = binary.LittleEndian.AppendUint32(b, off)
		off += uint32(len(bl))
	}
	b = binary.LittleEndian.AppendUint32(b, off)
	for _, bl := range blobs {
		b = append(b, bl...)
	}
	return b
}

// zstdCluster compresses data as a zstd cluster (information byte 5, or
// 0x15 when extended).
func zstdCluster(data []byte, extended bool) []byte {
	enc, _ := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1))
	info := byte(5)
	if extended {
		info |= 0x10
	}
	return enc.EncodeAll(data, []byte{info})
}

func (s zimSpec) build() []byte {
	if s.mimes == nil {
		s.mimes = []string{"text/html", "text/plain"}
	}
	ents := append([]zimEntry(nil), s.entries...)
	for i := range ents {
		if ents[i].ns == 0 {
			ents[i].ns = 'C'
		}
	}
	if !s.unsorted {
		// Sort by namespace and path, remapping redirect targets.
		idx := make([]int, len(ents))
		for i := range idx {
			idx[i] = i
		}
		sort.SliceStable(idx, func(a, b int) bool {
			ea, eb := ents[idx[a]], ents[idx[b]]
			return string(ea.ns)+ea.path < string(eb.ns)+eb.path
		})
		where := make([]int, len(ents))
		sorted := make([]zimEntry, len(ents))
		for newI, oldI := range idx {
			where[oldI] = newI
			sorted[newI] = ents[oldI]
		}
		for i := range sorted {
			if sorted[i].redirect >= 0 {
				sorted[i].redirect = where[sorted[i].redirect]
			}
		}
		ents = sorted
	}
	var mime []byte
	for _, m := range s.mimes {
		mime = append(append(mime, m...), 0)
	}
	mime = append(mime, 0)
	var dirents [][]byte
	for _, e := range ents {
		var d []byte
		if e.redirect >= 0 {
			d = binary.LittleEndian.AppendUint16(d, 0xffff)
			d = append(d, 0, e.ns, 0, 0, 0, 0)
			d = binary.LittleEndian.AppendUint32(d, uint32(e.redirect))
		} else {
			d = binary.LittleEndian.AppendUint16(d, e.mime)
			d = append(d, 0, e.ns, 0, 0, 0, 0)
			d = binary.LittleEndian.AppendUint32(d, e.cluster)
			d = binary.LittleEndian.AppendUint32(d, e.blob)
		}
		d = append(append(d, e.path...), 0)
		d = append(append(d, e.title...), 0)
		dirents = append(dirents, d)
	}
	n := len(ents)
	pathPtrPos := uint64(80 + len(mime))
	titlePtrPos := pathPtrPos + uint64(8*n)
	direntPos := titlePtrPos + uint64(4*n)
	var out []byte
	out = append(out, make([]byte, 80)...)
	out = append(out, mime...)
	pos := direntPos
	for _, d := range dirents {
		out = binary.LittleEndian.AppendUint64(out, pos)
		pos += uint64(len(d))
	}
	titles := make([]int, n)
	for i := range titles {
		titles[i] = i
	}
	title := func(e zimEntry) string {
		if e.title != "" {
			return string(e.ns) + e.title
		}
		return string(e.ns) + e.path
	}
	sort.SliceStable(titles, func(a, b int) bool { return title(ents[titles[a]]) < title(ents[titles[b]]) })
	for _, i := range titles {
		out = binary.LittleEndian.AppendUint32(out, uint32(i))
	}
	for _, d := range dirents {
		out = append(out, d...)
	}
	clusterPtrPos := uint64(len(out))
	pos = clusterPtrPos + uint64(8*len(s.clusters))
	for _, c := range s.clusters {
		out = binary.LittleEndian.AppendUint64(out, pos)
		pos += uint64(len(c))
	}
	for _, c := range s.clusters {
		out = append(out, c...)
	}
	h := out[:80]
	binary.LittleEndian.PutUint32(h[0:], 0x044D495A)
	binary.LittleEndian.PutUint16(h[4:], 6)
	binary.LittleEndian.PutUint16(h[6:], 1)
	copy(h[8:24], "hostile-zim-uuid")
	binary.LittleEndian.PutUint32(h[24:], uint32(n))
	binary.LittleEndian.PutUint32(h[28:], uint32(len(s.clusters)))
	binary.LittleEndian.PutUint64(h[32:], pathPtrPos)
	binary.LittleEndian.PutUint64(h[40:], titlePtrPos)
	binary.LittleEndian.PutUint64(h[48:], clusterPtrPos)
	binary.LittleEndian.PutUint64(h[56:], 80)
	binary.LittleEndian.PutUint32(h[64:], 0xffffffff)
	binary.LittleEndian.PutUint32(h[68:], 0xffffffff)
	binary.LittleEndian.PutUint64(h[72:], uint64(len(out)))
	if s.patch != nil {
		s.patch(h)
	}
	sum := md5.Sum(out)
	return append(out, sum[:]...)
}

// TestZimBuilder: an archive from the builder passes zimdump check and
// lists its entries, as openzim's zimdump lists them, and passes zimcheck
// (the hostile archives are only worth what the builder is).
func TestZimBuilder(t *testing.T) {
	zd := bin(t, "zimdump")
	z := zimSpec{
		entries: []zimEntry{
			content("index.html", 0, 0), content("style.css", 0, 1),
			content("data.txt", 1, 0), {path: "home", redirect: 0},
		},
		clusters: [][]byte{plainCluster("<html>hi</html>", "p{}"), zstdCluster(clusterData("some text"), false)},
	}
	z.entries[2].mime = 1
	c := newCase(t)
	p := c.put(t, "built.zim", z.build())
	res := c.cmd(zd, "check", p).exec(t)
	if res.code != 0 {
		t.Fatalf("zimdump check rejects the built archive:\n  %s\n%s", res, res.out)
	}
	res = c.cmd(zd, "list", p).exec(t)
	want := "data.txt\nhome\nindex.html\nstyle.css\n"
	if string(res.out) != want {
		t.Errorf("list: %q, want %q", res.out, want)
	}
	// openzim's tools, which the builder's archives are worth only as much
	// as they read (needPeer: skip locally, fail under CI)
	peer := openzimZimdump(t)
	out, err := exec.Command(peer, "list", p).Output()
	if err != nil || string(out) != want {
		t.Errorf("openzim zimdump list: %q, %v; want %q", out, err, want)
	}
	out, err = exec.Command(peer, "show", "--url=data.txt", p).Output()
	if err != nil || string(out) != "some text" {
		t.Errorf("openzim zimdump show: %q, %v", out, err)
	}
	zimcheck := needCmd(t, "zimcheck", "zim-tools")
	if out, err := exec.Command(zimcheck, "-C", "-I", p).CombinedOutput(); err != nil {
		t.Errorf("zimcheck -C -I: %v\n%s", err, out)
	}
}

// needPeer ends t because peer (a package name, as `make peers` installs
// it) is missing: under CI (CI=true, 1, yes...) the test fails, elsewhere
// it skips with "missing peer PEER: WHY", which make test's summary
// collects. The rule of lib/internal/peertest.Missing, which e2e cannot
// import (as e2e's needPeer).
func needPeer(t testing.TB, peer, why string) {
	t.Helper()
	if ci := strings.ToLower(os.Getenv("CI")); ci != "" && ci != "0" && ci != "false" {
		t.Fatalf("missing peer %s: %s (CI=true: every peer must be installed; run make peers)", peer, why)
	}
	t.Skipf("missing peer %s: %s (make peers installs it)", peer, why)
}

// needCmd returns the path of command cmd on PATH, or ends t with
// needPeer (peertest.Need).
func needCmd(t testing.TB, cmd, peer string) string {
	t.Helper()
	p, err := exec.LookPath(cmd)
	if err != nil {
		needPeer(t, peer, cmd+" not on PATH")
	}
	return p
}

// openzimZimdump returns openzim's zimdump, called by its package path
// ($ARCPORT_OPENZIM_ZIMDUMP, else /usr/bin/zimdump) and never looked up on
// PATH, where arcport's own may come first; its --version must name
// zim-tools and libzim, and not arcport. Otherwise t ends with needPeer.
// (peertest.OpenzimZimdump, which e2e cannot import.)
func openzimZimdump(t testing.TB) string {
	t.Helper()
	p := os.Getenv("ARCPORT_OPENZIM_ZIMDUMP")
	if p == "" {
		p = "/usr/bin/zimdump"
	}
	if st, err := os.Stat(p); err != nil || !st.Mode().IsRegular() {
		needPeer(t, "zim-tools", p+" not installed")
	}
	out, err := exec.Command(p, "--version").CombinedOutput()
	v := string(out)
	var tools, lib bool
	for _, l := range strings.Split(v, "\n") {
		tools = tools || strings.HasPrefix(l, "zim-tools ")
		lib = lib || strings.HasPrefix(l, "libzim ")
	}
	if err != nil || !tools || !lib || strings.Contains(v, "arcport") {
		needPeer(t, "zim-tools", p+" is not openzim's zimdump: --version printed "+strings.TrimSpace(v))
	}
	return p
}
