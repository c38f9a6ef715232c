package compio

import (
	"bytes"
	"encoding/binary"
	"io"
	"os"
	"testing"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

type member struct {
	off  int64
	data []byte
}

func readAll(t *testing.T, r io.Reader) ([]member, Format, int64) {
	t.Helper()
	m, err := NewMemberReader(r)
	if err != nil {
		t.Fatal(err)
	}
	var out []member
	for {
		off, err := m.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(m)
		if err != nil {
			t.Fatalf("member at %d: %v", off, err)
		}
		out = append(out, member{off, b})
	}
	return out, m.Format(), m.Offset()
}

func gzipMembers(parts ...string) ([]byte, []int64) {
	var buf bytes.Buffer
	var offs []int64
	for _, p := range parts {
		offs = append(offs, int64(buf.Len()))
		w := gzip.NewWriter(&buf)
		w.Write([]byte(p))
		w.Close()
	}
	return buf.Bytes(), offs
}

func TestGzipMembersOffsets(t *testing.T) {
	parts := []string{"first record\r\n\r\n", "", "second one, longer " + string(bytes.Repeat([]byte("x"), 100000))}
	data, offs := gzipMembers(parts...)
	got, f, end := readAll(t, bytes.NewReader(data))
	if f != Gzip {
		t.Fatalf("format %v", f)
	}
	if len(got) != len(parts) {
		t.Fatalf("%d members, want %d", len(got), len(parts))
	}
	for i := range parts {
		if got[i].off != offs[i] || string(got[i].data) != parts[i] {
			t.Errorf("member %d: off %d want %d, %d bytes want %d", i, got[i].off, offs[i], len(got[i].data), len(parts[i]))
		}
	}
	if end != int64(len(data)) {
		t.Errorf("end offset %d want %d", end, len(data))
	}
}

func TestGzipFixtureWholeFile(t *testing.T) {
	// example-bad-non-chunked.warc.gz is one gzip member for the whole file.
	f, err := os.Open("../../../testdata/warc/example-bad-non-chunked.warc.gz")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got, _, _ := readAll(t, f)
	if len(got) != 1 || !bytes.HasPrefix(got[0].data, []byte("WARC/1.0\r\n")) {
		t.Fatalf("want one member starting with WARC/1.0, got %d", len(got))
	}
}

func TestGzipTruncated(t *testing.T) {
	data, _ := gzipMembers("hello world, this is a record", "another")
	m, _ := NewMemberReader(bytes.NewReader(data[:len(data)-5]))
	m.Next()
	io.ReadAll(m)
	_, err := m.Next()
	if err != nil {
		t.Fatalf("second member header should parse: %v", err)
	}
	if _, err := io.ReadAll(m); err == nil {
		t.Fatal("truncated member read without error")
	}
}

func TestGzipTrailingGarbage(t *testing.T) {
	data, _ := gzipMembers("a")
	data = append(data, "garbage"...)
	m, _ := NewMemberReader(bytes.NewReader(data))
	m.Next()
	io.ReadAll(m)
	if _, err := m.Next(); err == nil {
		t.Fatal("garbage after members accepted")
	}
}

func TestPlain(t *testing.T) {
	got, f, end := readAll(t, bytes.NewReader([]byte("WARC/1.1\r\nplain")))
	if f != Plain || len(got) != 1 || string(got[0].data) != "WARC/1.1\r\nplain" || end != 15 {
		t.Fatalf("plain: %v %d %d", f, len(got), end)
	}
}

func zstdFrames(t *testing.T, dict []byte, parts ...string) ([]byte, []int64) {
	var buf bytes.Buffer
	var opts []zstd.EOption
	if dict != nil {
		opts = append(opts, zstd.WithEncoderDict(dict))
		var h [8]byte
		binary.LittleEndian.PutUint32(h[:], warcZstDictMagic)
		binary.LittleEndian.PutUint32(h[4:], uint32(len(dict)))
		buf.Write(h[:])
		buf.Write(dict)
	}
	enc, err := zstd.NewWriter(nil, opts...)
	if err != nil {
		t.Fatal(err)
	}
	var offs []int64
	for _, p := range parts {
		offs = append(offs, int64(buf.Len()))
		buf.Write(enc.EncodeAll([]byte(p), nil))
	}
	return buf.Bytes(), offs
}

func TestZstdFrames(t *testing.T) {
	big := string(bytes.Repeat([]byte("abcdefgh"), 300000))
	parts := []string{"WARC/1.1\r\nrecord one\r\n\r\n", big, "third"}
	data, offs := zstdFrames(t, nil, parts...)
	got, f, end := readAll(t, bytes.NewReader(data))
	if f != Zstd || len(got) != 3 {
		t.Fatalf("format %v, %d frames", f, len(got))
	}
	for i := range parts {
		if got[i].off != offs[i] || string(got[i].data) != parts[i] {
			t.Errorf("frame %d: off %d want %d, len %d want %d", i, got[i].off, offs[i], len(got[i].data), len(parts[i]))
		}
	}
	if end != int64(len(data)) {
		t.Errorf("end %d want %d", end, len(data))
	}
}

func TestZstdDictionary(t *testing.T) {
	var samples [][]byte
	for i := 0; i < 200; i++ {
		samples = append(samples, []byte("WARC/1.1\r\nWARC-Type: response\r\nContent-Type: application/http; msgtype=response\r\nWARC-Target-URI: http://example.com/page"+string(rune('a'+i%26))+"\r\n\r\n"))
	}
	dict, err := zstd.BuildDict(zstd.BuildDictOptions{ID: 1234, Contents: samples, History: bytes.Join(samples, nil)})
	if err != nil {
		t.Fatalf("cannot build dictionary: %v", err)
	}
	parts := []string{string(samples[0]), string(samples[5])}
	data, _ := zstdFrames(t, dict, parts...)
	got, _, _ := readAll(t, bytes.NewReader(data))
	if len(got) != 2 || string(got[1].data) != parts[1] {
		t.Fatalf("dictionary frames not decoded: %d", len(got))
	}
}

func TestZstdTruncated(t *testing.T) {
	data, _ := zstdFrames(t, nil, string(bytes.Repeat([]byte("hello "), 1000)))
	for _, cut := range []int{5, 6, 10, len(data) - 1} {
		m, err := NewMemberReader(bytes.NewReader(data[:cut]))
		if err != nil {
			continue
		}
		if _, err := m.Next(); err != nil {
			continue
		}
		if _, err := io.ReadAll(m); err == nil {
			t.Errorf("cut at %d: no error", cut)
		}
	}
}

func FuzzMemberReader(f *testing.F) {
	d, _ := gzipMembers("a", "bc")
	f.Add(d)
	enc, _ := zstd.NewWriter(nil)
	f.Add(enc.EncodeAll([]byte("hello hello hello"), nil))
	f.Add([]byte("plain"))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := NewMemberReader(bytes.NewReader(data))
		if err != nil {
			return
		}
		for i := 0; i < 1000; i++ {
			if _, err := m.Next(); err != nil {
				return
			}
			if _, err := io.Copy(io.Discard, io.LimitReader(m, 1<<24)); err != nil {
				return
			}
		}
	})
}

// TestResync: after a member with a bad CRC, garbage, and a member with
// corrupt deflate data, Resync lands on the start of each following member,
// and every intact member is read whole; at the end it reports io.EOF.
func TestResync(t *testing.T) {
	gzMember := func(s string) []byte {
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		zw.Write([]byte(s))
		zw.Close()
		return b.Bytes()
	}
	for _, zstdFormat := range []bool{false, true} {
		var in []byte
		var starts []int64
		add := func(b []byte) {
			starts = append(starts, int64(len(in)))
			in = append(in, b...)
		}
		m1, m2, m3 := gzMember("first member"), gzMember("second member"), gzMember("third member")
		if zstdFormat {
			enc, _ := zstd.NewWriter(nil)
			m1 = enc.EncodeAll([]byte("first member"), nil)
			m2 = enc.EncodeAll([]byte("second member"), nil)
			m3 = enc.EncodeAll([]byte("third member"), nil)
		}
		add(m1)
		bad := append([]byte(nil), m2...)
		bad[len(bad)-6] ^= 0xff // gzip: CRC; zstd: the content checksum
		add(bad)
		in = append(in, "garbage \x1f\x8b between"...)
		add(m3)
		m, err := NewMemberReader(bytes.NewReader(in))
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for {
			off, err := m.Next()
			if err == io.EOF {
				break
			}
			if err == nil {
				var b []byte
				if b, err = io.ReadAll(m); err == nil {
					got = append(got, string(b))
					continue
				}
			}
			if off != starts[1] {
				t.Errorf("zstd=%v: error in the member at %d, want %d: %v", zstdFormat, off, starts[1], err)
			}
			to, _, rerr := m.Resync()
			if rerr != nil || to != starts[2] {
				t.Errorf("zstd=%v: Resync to %d (%v), want %d", zstdFormat, to, rerr, starts[2])
			}
		}
		if want := []string{"first member", "third member"}; len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
			t.Errorf("zstd=%v: members %q, want %q", zstdFormat, got, want)
		}
		if _, _, err := m.Resync(); err != io.EOF {
			t.Errorf("zstd=%v: Resync at the end: %v, want io.EOF", zstdFormat, err)
		}
	}
}

// TestReadHead: a member shorter than, as long as and longer than the
// limit (the rest still readable), with buffers grown from nothing or
// reused; and a member whose data fails inside the head.
func TestReadHead(t *testing.T) {
	gzOf := func(s string) []byte {
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		zw.Write([]byte(s))
		zw.Close()
		return b.Bytes()
	}
	body := bytes.Repeat([]byte("0123456789"), 20000) // 200000 bytes
	var buf []byte
	for _, max := range []int{1, 7, 100000, 199999, 200000, 200001, 1 << 20} {
		m, err := NewMemberReader(bytes.NewReader(gzOf(string(body))))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := m.Next(); err != nil {
			t.Fatal(err)
		}
		head, whole, err := m.ReadHead(buf, max)
		buf = head
		want := min(max, len(body))
		if err != nil || len(head) != want || whole != (max >= len(body)) || !bytes.Equal(head, body[:want]) {
			t.Fatalf("max %d: %d bytes, whole %v, %v", max, len(head), whole, err)
		}
		rest, err := io.ReadAll(m)
		if err != nil || !bytes.Equal(append(append([]byte{}, head...), rest...), body) {
			t.Errorf("max %d: rest %d bytes, %v", max, len(rest), err)
		}
	}
	bad := gzOf(string(body))
	bad[len(bad)-6] ^= 0xff // CRC
	m, _ := NewMemberReader(bytes.NewReader(bad))
	m.Next()
	if head, whole, err := m.ReadHead(nil, 1<<20); err == nil || whole || len(head) != len(body) {
		t.Errorf("bad CRC: %d bytes, whole %v, err %v", len(head), whole, err)
	}
}
