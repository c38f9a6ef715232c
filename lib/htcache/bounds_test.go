package htcache

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"strings"
	"testing"

	"github.com/arcport/arcport/lib/record"
)

// centralHeaders returns the offsets of the central directory headers of
// a zip (found by signature; the garden fixture has no such bytes in its
// data).
func centralHeaders(b []byte) []int64 {
	var out []int64
	for i := 0; ; {
		k := bytes.Index(b[i:], []byte("PK\x01\x02"))
		if k < 0 {
			return out
		}
		out = append(out, int64(i+k))
		i += k + 4
	}
}

// TestCentralDirectoryLies: a central directory that gives another
// compressed size, size, CRC-32 or local header offset than the local
// header is reported at the central directory header, once, naming the
// entry; the entries are still all read from their local headers.
func TestCentralDirectoryLies(t *testing.T) {
	full, locals := gardenBytes(t)
	cds := centralHeaders(full)
	if len(cds) != len(locals) {
		t.Fatalf("%d central headers, %d local", len(cds), len(locals))
	}
	style := cds[2] // http://127.0.0.1:8766/style.css, local header at 852
	cases := []struct {
		name  string
		field int64 // offset in the central header
		v     uint32
		want  string
	}{
		{"compressed size", 20, 1000, `"http://127.0.0.1:8766/style.css" gives compressed size 1000, the entry at offset 852 has 36`},
		{"size", 24, 99, `"http://127.0.0.1:8766/style.css" gives size 99, the entry at offset 852 has 34`},
		{"crc", 16, 0xdeadbeef, `"http://127.0.0.1:8766/style.css" gives CRC-32 deadbeef, the entry at offset 852 has 63b9baf5`},
		{"local header offset", 42, 853, `"http://127.0.0.1:8766/style.css" gives local header offset 853, where no entry starts`},
		{"local header offset past the end", 42, 0xfffffff0, `gives local header offset 4294967280, where no entry starts`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := append([]byte(nil), full...)
			put32(b, style+c.field, c.v)
			for _, verify := range []bool{false, true} {
				names, bodies, _, problems, err := scanAll(t, b, WithVerify(verify))
				if err != nil {
					t.Fatal(err)
				}
				if len(names) != 14 {
					t.Errorf("verify %v: %d entries, want 14", verify, len(names))
				}
				for i, body := range bodies {
					if bytes.HasPrefix(body, []byte("ERROR")) {
						t.Errorf("%s: %s", names[i], body)
					}
				}
				if len(problems) != 1 || problems[0].Offset != style || !strings.Contains(problems[0].Msg, c.want) || problems[0].Skipped {
					t.Fatalf("verify %v: problems %v, want one at %d with %q", verify, problems, style, c.want)
				}
			}
			if _, _, _, _, err := scanAll(t, b, WithPolicy(record.Fail)); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Fail policy: %v", err)
			}
		})
	}
	if _, _, _, problems, _ := scanAll(t, full, WithVerify(true)); len(problems) != 0 {
		t.Errorf("intact garden: %v", problems)
	}
}

// zip64Zip builds a two-entry zip: "a" stored ("hello") with its sizes in
// a ZIP64 block after the metadata text (local) and in the central
// directory's ZIP64 block, and "b" ("world", plain). lz64 are the local
// ZIP64 values (size, compressed size), cz64 the central ones (size,
// compressed size, local header offset).
func zip64Zip(lz64 [2]uint64, cz64 [3]uint64) []byte {
	le := binary.LittleEndian
	var out bytes.Buffer
	text := "HTTP/1.1 200 OK\r\nX-In-Cache: 1\r\nX-StatusCode: 200\r\nX-Size: 5\r\nContent-Type: text/plain\r\n"
	extra := append([]byte(text+"\r\n"), make([]byte, 20)...)
	le.PutUint16(extra[len(text)+2:], 1)
	le.PutUint16(extra[len(text)+4:], 16)
	le.PutUint64(extra[len(text)+6:], lz64[0])
	le.PutUint64(extra[len(text)+14:], lz64[1])
	local := func(name string, extra []byte, csize, usize uint32, body string) {
		h := make([]byte, 30)
		le.PutUint32(h, sigLocal)
		le.PutUint16(h[4:], 45)
		le.PutUint32(h[14:], crc32.ChecksumIEEE([]byte(body)))
		le.PutUint32(h[18:], csize)
		le.PutUint32(h[22:], usize)
		le.PutUint16(h[26:], uint16(len(name)))
		le.PutUint16(h[28:], uint16(len(extra)))
		out.Write(h)
		out.WriteString(name)
		out.Write(extra)
		out.WriteString(body)
	}
	local("http://x.example/a", extra, max32, max32, "hello")
	offB := out.Len()
	textB := "HTTP/1.1 200 OK\r\nX-In-Cache: 1\r\nX-StatusCode: 200\r\nX-Size: 5\r\nContent-Type: text/plain\r\n"
	local("http://x.example/b", []byte(textB), 5, 5, "world")
	cdStart := out.Len()
	central := func(name string, crc, csize, usize, off uint32, z64 []uint64) {
		h := make([]byte, 46)
		le.PutUint32(h, sigCentral)
		le.PutUint32(h[16:], crc)
		le.PutUint32(h[20:], csize)
		le.PutUint32(h[24:], usize)
		le.PutUint16(h[28:], uint16(len(name)))
		x := []byte(nil)
		if len(z64) > 0 {
			x = make([]byte, 4+8*len(z64))
			le.PutUint16(x, 1)
			le.PutUint16(x[2:], uint16(8*len(z64)))
			for i, v := range z64 {
				le.PutUint64(x[4+8*i:], v)
			}
		}
		le.PutUint16(h[30:], uint16(len(x)))
		le.PutUint32(h[42:], off)
		out.Write(h)
		out.WriteString(name)
		out.Write(x)
	}
	central("http://x.example/a", crc32.ChecksumIEEE([]byte("hello")), max32, max32, max32, cz64[:])
	central("http://x.example/b", crc32.ChecksumIEEE([]byte("world")), 5, 5, uint32(offB), nil)
	end := make([]byte, 22)
	le.PutUint32(end, sigEnd)
	le.PutUint16(end[8:], 2)
	le.PutUint16(end[10:], 2)
	le.PutUint32(end[12:], uint32(out.Len()-cdStart))
	le.PutUint32(end[16:], uint32(cdStart))
	out.Write(end)
	return out.Bytes()
}

// TestZIP64HugeValues puts 2^63-1, 2^63, 2^64-1 (and 2^62, 2^32) in the
// ZIP64 sizes of a local header and in the ZIP64 sizes and local header
// offset of the central directory: no entry is ever yielded with a size
// past the end of the file, the damage is reported naming the file and an
// offset, and the intact entry is still read, verified or not.
func TestZIP64HugeValues(t *testing.T) {
	good := zip64Zip([2]uint64{5, 5}, [3]uint64{5, 5, 0})
	names, bodies, _, problems, err := scanAll(t, good, WithVerify(true))
	if err != nil || len(names) != 2 || string(bodies[0]) != "hello" || len(problems) != 0 {
		t.Fatalf("intact: %q %q %v %v", names, bodies, problems, err)
	}
	huge := []uint64{1<<63 - 1, 1 << 63, 1<<64 - 1, 1 << 62, 1 << 32, 1<<64 - 5}
	type variant struct {
		name string
		zip  []byte
	}
	var vs []variant
	for _, v := range huge {
		vs = append(vs,
			variant{fmt.Sprintf("local size %#x", v), zip64Zip([2]uint64{v, 5}, [3]uint64{5, 5, 0})},
			variant{fmt.Sprintf("local compressed size %#x", v), zip64Zip([2]uint64{5, v}, [3]uint64{5, 5, 0})},
			variant{fmt.Sprintf("local both sizes %#x", v), zip64Zip([2]uint64{v, v}, [3]uint64{5, 5, 0})},
			variant{fmt.Sprintf("central size %#x", v), zip64Zip([2]uint64{5, 5}, [3]uint64{v, 5, 0})},
			variant{fmt.Sprintf("central compressed size %#x", v), zip64Zip([2]uint64{5, 5}, [3]uint64{5, v, 0})},
			variant{fmt.Sprintf("central offset %#x", v), zip64Zip([2]uint64{5, 5}, [3]uint64{5, 5, v})},
		)
	}
	for _, v := range vs {
		for _, verify := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s verify=%v", v.name, verify), func(t *testing.T) {
				var problems []*record.Problem
				z, err := NewZipReader(bytes.NewReader(v.zip), int64(len(v.zip)), "z64.zip", WithVerify(verify),
					WithProblemFunc(func(p *record.Problem) { problems = append(problems, p) }))
				if err != nil {
					t.Fatal(err)
				}
				var got []string
				for {
					e, err := z.Next()
					if err == io.EOF {
						break
					}
					if err != nil {
						t.Fatal(err)
					}
					if e.CompressedSize < 0 || e.CompressedSize > int64(len(v.zip)) || e.StoredSize < 0 {
						t.Errorf("entry %s yielded with compressed size %d, size %d (file of %d bytes)", e.Name, e.CompressedSize, e.StoredSize, len(v.zip))
					}
					rc, _ := e.OpenStored()
					body, _ := io.ReadAll(rc)
					got = append(got, e.Name+"="+string(body))
				}
				if len(got) == 0 || got[len(got)-1] != "http://x.example/b=world" {
					t.Errorf("entries %q: the intact entry b is not read", got)
				}
				if len(problems) == 0 {
					t.Errorf("no problem reported (entries %q)", got)
				}
				for _, p := range problems {
					if p.File != "z64.zip" || p.Offset < 0 || p.Offset > int64(len(v.zip)) {
						t.Errorf("problem %q: no file or a bad offset", p.Error())
					}
				}
			})
		}
	}
}

// TestNdxHugePositions: data positions of ±(2^63-1), -2^63 and 2^62 in the
// index are problems at the index entry, and the other entries are read.
func TestNdxHugePositions(t *testing.T) {
	ndx, dat := writeNdx(5, "Fri, 01 Mar 2024 12:00:00 GMT", ndxSample[:1])
	for _, pos := range []string{"9223372036854775807", "-9223372036854775807", "-9223372036854775808", "4611686018427387904", "99999999999999999999"} {
		// a second entry pointing at pos after the intact one
		bad := append(append([]byte(nil), ndx...), fmt.Sprintf("%d\nwww.example.com\n/x\n%s\n", len("www.example.com\n/x\n"), pos)...)
		var problems []*record.Problem
		r, err := NewNdxReader(bytes.NewReader(bad), bytes.NewReader(dat), "new.ndx",
			WithProblemFunc(func(p *record.Problem) { problems = append(problems, p) }))
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for {
			_, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			n++
		}
		if n != 1 || len(problems) != 1 || problems[0].Offset != int64(len(ndx)) {
			t.Errorf("position %s: %d entries, problems %v", pos, n, problems)
		}
	}
}
