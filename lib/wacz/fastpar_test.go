package wacz

import (
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestParallelDamage: a damaged byte anywhere (a gzip header, deflate
// data, a trailer, the bytes between members) or a cut gives the same
// result with the parallel fast path as with the sequential one: the same
// error or the same WACZ and the same warnings. The parallel phase hands
// over to the sequential path at the member it does not take.
func TestParallelDamage(t *testing.T) {
	data := synthWARC(t, 60, func(i int) int { return 200 + (i%7)*9000 })
	var starts []int
	for i := 0; ; {
		j := bytes.Index(data[i:], []byte{0x1f, 0x8b, 8})
		if j < 0 {
			break
		}
		starts = append(starts, i+j)
		i += j + 1
	}
	k := len(starts) / 2
	s, e := starts[k], starts[k+1]
	type cut struct {
		name string
		data []byte
	}
	flip := func(at int) []byte { b := bytes.Clone(data); b[at] ^= 0x55; return b }
	cases := []cut{
		{"clean", data},
		{"gzip magic", flip(s)},
		{"gzip flags", flip(s + 3)},
		{"deflate start", flip(s + 12)},
		{"deflate middle", flip((s + e) / 2)},
		{"crc", flip(e - 8)},
		{"isize", flip(e - 3)},
		{"cut in a member", data[:(s+e)/2]},
		{"cut at a member", data[:s]},
		{"junk between members", append(append(bytes.Clone(data[:s]), "junk\n"...), data[s:]...)},
		{"zeros between members", append(append(bytes.Clone(data[:s]), make([]byte, 100)...), data[s:]...)},
	}
	defer func(m int64, d bool) { parMinSize, parDisabled = m, d }(parMinSize, parDisabled)
	for _, c := range cases {
		for _, verify := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/verify=%v", c.name, verify), func(t *testing.T) {
				var warns [2][]string
				var errs [2]string
				var got [2]map[string][]byte
				var st [2]Stats
				for i, disabled := range []bool{false, true} {
					parMinSize, parDisabled = 0, disabled
					opts := Options{Verify: verify, Warn: func(s string) { warns[i] = append(warns[i], s) }}
					// a file, as the command line gives it
					dir := t.TempDir()
					in := filepath.Join(dir, "in.warc.gz")
					if err := os.WriteFile(in, c.data, 0o644); err != nil {
						t.Fatal(err)
					}
					path, stats, err := buildWACZFile(t, opts, in)
					st[i] = stats
					if err != nil {
						errs[i] = err.Error()
						continue
					}
					got[i] = entries(t, path)
				}
				if c.name == "clean" && (st[0].Parallel != int64(st[0].Records) || st[0].Records != 60) {
					t.Errorf("clean: %d of %d records in parallel", st[0].Parallel, st[0].Records)
				}
				if st[1].Parallel != 0 {
					t.Errorf("sequential run: %d in parallel", st[1].Parallel)
				}
				if errs[0] != errs[1] {
					t.Fatalf("error: parallel %q, sequential %q", errs[0], errs[1])
				}
				if strings.Join(warns[0], "\n") != strings.Join(warns[1], "\n") {
					t.Errorf("warnings: parallel %q, sequential %q", warns[0], warns[1])
				}
				for n, v := range got[1] {
					if !bytes.Equal(v, got[0][n]) {
						t.Errorf("%s differs", n)
					}
				}
				if len(got[0]) != len(got[1]) {
					t.Errorf("%d files, sequential %d", len(got[0]), len(got[1]))
				}
				t.Logf("parallel: %d of %d records, err %q, %d warnings", st[0].Parallel, st[0].Records, errs[0], len(warns[0]))
			})
		}
	}
}

// buildWACZFile is buildWACZ with an input file, opened as the command
// line opens it.
func buildWACZFile(t *testing.T, opts Options, name string) (string, Stats, error) {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	path := filepath.Join(t.TempDir(), "out.wacz")
	out, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	opts.TempDir = t.TempDir()
	w, err := NewWriter(out, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.AddInput(filepath.Base(name), f); err != nil {
		w.Close()
		return path, w.Stats(), err
	}
	err = w.Close()
	return path, w.Stats(), err
}

// TestBadDateNotIndexed: a record whose WARC-Date gives no timestamp
// (found by FuzzCreate: "WARC DAte:00" gave the index line the timestamp
// "00", which validate rejects) stops create with an error naming the
// archive file and offset; with Lenient it is warned about, kept in
// archive/ and left out of the index, and the WACZ validates.
func TestBadDateNotIndexed(t *testing.T) {
	rec := func(date, uri string) string {
		return fmt.Sprintf("WARC/1.1\r\nWARC-Type: resource\r\nWARC-Record-ID: <urn:uuid:%s>\r\nWARC-Date: %s\r\nWARC-Target-URI: %s\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nhi\r\n\r\n", uri, date, uri)
	}
	data := []byte(rec("2024-01-02T03:04:05Z", "http://a.test/") + rec("00", "http://b.test/"))
	_, _, err := buildWACZ(t, Options{}, input{"in.warc", data})
	if err == nil || !strings.Contains(err.Error(), `archive/in.warc.gz: record at offset`) || !strings.Contains(err.Error(), `timestamp "00"`) {
		t.Fatalf("err %v", err)
	}
	var warns []string
	path, st, err := buildWACZ(t, Options{Lenient: true, Warn: func(s string) { warns = append(warns, s) }}, input{"in.warc", data})
	if err != nil {
		t.Fatal(err)
	}
	if st.Records != 2 || st.Captures != 1 || len(warns) != 1 {
		t.Errorf("stats %+v, warnings %q", st, warns)
	}
	r, err := OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if probs := r.Validate(); len(probs) > 0 {
		t.Errorf("does not validate: %v", probs)
	}
}

// TestParallelRandomDamage: 150 copies of a generated WARC.gz, each with a
// few random bytes changed, cut or inserted (fixed seed), give the same
// error, warnings and WACZ with the parallel fast path as with the
// sequential one.
func TestParallelRandomDamage(t *testing.T) {
	data := synthWARC(t, 40, func(i int) int { return 100 + (i%9)*7000 })
	rng := rand.New(rand.NewSource(18))
	defer func(m int64, d bool) { parMinSize, parDisabled = m, d }(parMinSize, parDisabled)
	dir := t.TempDir()
	in := filepath.Join(dir, "in.warc.gz")
	differ := 0
	for i := range 150 {
		b := bytes.Clone(data)
		switch i % 3 {
		case 0:
			for range 1 + rng.Intn(3) {
				b[rng.Intn(len(b))] = byte(rng.Intn(256))
			}
		case 1:
			b = b[:rng.Intn(len(b))]
		case 2:
			at := rng.Intn(len(b))
			junk := make([]byte, 1+rng.Intn(40))
			rng.Read(junk)
			b = append(append(b[:at:at], junk...), data[at:]...)
		}
		if err := os.WriteFile(in, b, 0o644); err != nil {
			t.Fatal(err)
		}
		var res [2]string
		for k, disabled := range []bool{false, true} {
			parMinSize, parDisabled = 0, disabled
			var warns []string
			path, _, err := buildWACZFile(t, Options{Lenient: i%2 == 0, Warn: func(s string) { warns = append(warns, s) }}, in)
			res[k] = fmt.Sprintf("err %v\nwarnings %q\n", err, warns)
			if err == nil {
				ents := entries(t, path)
				for _, n := range []string{"indexes/index.cdx.gz", "pages/pages.jsonl", "archive/in.warc.gz"} {
					res[k] += fmt.Sprintf("%s %x\n", n, ents[n])
				}
			}
		}
		if testing.Verbose() && i < 12 {
			t.Logf("case %d: %.120s", i, strings.ReplaceAll(res[0], "\n", " | "))
		}
		if res[0] != res[1] {
			differ++
			if differ <= 3 {
				t.Errorf("case %d: parallel:\n%.600s\nsequential:\n%.600s", i, res[0], res[1])
			}
		}
	}
	if differ > 0 {
		t.Errorf("%d of 150 differ", differ)
	}
}
