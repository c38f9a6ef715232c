package hostile

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Defects this suite found, each kept as a focused regression test now
// that it is fixed. A new defect gets a test here that starts with
// t.Skip("known: <reason>") until it is fixed.

// TestKnownCreateGzOffset: example.warc.gz cut inside its second record
// (member at offset 784): create must name offset 784 as index does.
func TestKnownCreateGzOffset(t *testing.T) {
	wp := bin(t, "waczpack")
	data := fixture(t, "warc/example.warc.gz")
	c := newCase(t)
	p := c.put(t, "example.warc.gz", data[:1500])
	c.freeze(t)
	for _, args := range [][]string{{"index", p}, {"create", "-o", filepath.Join(c.out, "x.wacz"), p}} {
		res := c.cmd(wp, args...).exec(t)
		if check(t, args[0], res, expect{name: "example.warc.gz", offset: true, mustFail: true, at: 784}) {
			c.atomicOut(t, args[0], res, "x.wacz", "")
		}
	}
}

// TestKnownCreateNoCaptures: a WARC holding only its warcinfo record packs
// into a WACZ that validates (or create refuses it).
func TestKnownCreateNoCaptures(t *testing.T) {
	wp := bin(t, "waczpack")
	data := fixture(t, "warc/example.warc.gz")
	c := newCase(t)
	p := c.put(t, "example.warc.gz", data[:784])
	out := filepath.Join(c.out, "x.wacz")
	res := c.cmd(wp, "create", "-o", out, p).exec(t)
	if _, err := os.Stat(out); err != nil {
		if res.code == 0 || !strings.Contains(res.stderr, "example.warc.gz") {
			t.Errorf("no WACZ and no reason\n  %s", res)
		}
		return
	}
	if v := c.cmd(wp, "validate", out).exec(t); v.code != 0 {
		t.Errorf("create wrote a WACZ that does not validate\n  %s\n  %s", res, v)
	}
}

// TestKnownCreateGzHugeLine: a 300 MiB header line without a newline in a
// .warc.gz must be refused within craftedRSS, as it is in a plain .warc.
func TestKnownCreateGzHugeLine(t *testing.T) {
	wp := bin(t, "waczpack")
	cr := crafted{name: "huge-field-line-300m.warc.gz", gen: repeat(warcInfo+"WARC/1.1\r\nWARC-Type: resource\r\nX-Long: ", "a", 3*hugeLine, "")}
	c := newCase(t)
	in := c.link(t, cr.path(t))
	c.freeze(t)
	res := c.cmd(wp, "create", "-o", filepath.Join(c.out, "x.wacz"), in).exec(t)
	if check(t, "create", res, expect{name: cr.name, offset: true, mustFail: true, rssMB: craftedRSS}) {
		c.atomicOut(t, "create", res, "x.wacz", "")
	}
}

// TestKnownZimWarcShortO: the -o spelling of zimdump warc's help works.
func TestKnownZimWarcShortO(t *testing.T) {
	zd := bin(t, "zimdump")
	c := newCase(t)
	res := c.cmd(zd, "warc", "-o", filepath.Join(c.out, "x.warc.gz"), filepath.Join(repo, "testdata/zim/nons/small.zim")).exec(t)
	if res.code != 0 {
		t.Errorf("zimdump warc -o: %s", res)
	}
}

// TestKnownZimWarcFailure: zimdump warc on a damaged archive exits 1 with a
// reason naming the file and an offset.
func TestKnownZimWarcFailure(t *testing.T) {
	zd := bin(t, "zimdump")
	c := newCase(t)
	p := filepath.Join(repo, "testdata/zim/nons/invalid.outofbounds_clusterptrpos.zim")
	res := c.cmd(zd, "warc", "--output="+filepath.Join(c.out, "x.warc.gz"), p).exec(t)
	if check(t, "warc", res, expect{name: filepath.Base(p), offset: true, mustFail: true}) {
		c.atomicOut(t, "warc", res, "x.warc.gz", "")
	}
}

// TestKnownZimMultiBlockXZ: a blob in the third block of a valid XZ
// cluster (prefix block + two 4 MiB blocks of zeros) reads back whole, as
// openzim's zimdump reads it.
func TestKnownZimMultiBlockXZ(t *testing.T) {
	zd := bin(t, "zimdump")
	c := newCase(t)
	z := zimSpec{
		entries:  []zimEntry{content("a.html", 0, 0), content("b.html", 0, 1), content("zeros.bin", 0, 2)},
		clusters: [][]byte{zimBomb(true, true, 8<<20, "<p>a</p>", "<p>b</p>")},
	}
	p := c.put(t, "multiblock.zim", z.build())
	res := c.cmd(zd, "show", "--url=zeros.bin", p).exec(t)
	if res.code != 0 || res.outN != 8<<20 {
		t.Errorf("show: %d bytes\n  %s", res.outN, res)
	}
	out, err := exec.Command(openzimZimdump(t), "show", "--url=zeros.bin", p).Output()
	if err != nil || len(out) != 8<<20 || !bytes.Equal(out, make([]byte, 8<<20)) {
		t.Errorf("openzim zimdump: %d bytes, %v (the archive is not what this test thinks)", len(out), err)
	}
}

// TestKnownCreateBareCR: a WARC header field holding a bare CR (a flipped
// bit turns '-' into '\r') is repaired or refused with the file and the
// record's offset, by index and create alike.
func TestKnownCreateBareCR(t *testing.T) {
	wp := bin(t, "waczpack")
	rec := strings.Replace(warcResource("5"), "WARC-Target-URI", "WARC-Target\rURI", 1)
	c := newCase(t)
	p := c.put(t, "bare-cr.warc", []byte(warcInfo+rec))
	c.freeze(t)
	for _, args := range [][]string{{"index", p}, {"create", "-o", filepath.Join(c.out, "x.wacz"), p}} {
		res := c.cmd(wp, args...).exec(t)
		if check(t, args[0], res, expect{name: "bare-cr.warc", offset: true, at: int64(len(warcInfo))}) && res.code == 0 && strings.TrimSpace(res.stderr) == "" {
			t.Errorf("%s: the bare CR passed silently\n  %s", args[0], res)
		}
	}
}
