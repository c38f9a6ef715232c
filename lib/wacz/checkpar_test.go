package wacz

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/arcport/arcport/lib/internal/warcgen"
	"github.com/arcport/arcport/lib/record"
)

// bigCheckCorpus is a gzip WARC over parCheckMin of responses with
// incompressible bodies and correct digests; flip damages one payload byte
// of record n (counted from 0), -1 none.
func bigCheckCorpus(flip int) []byte {
	rng := rand.New(rand.NewPCG(1, 2))
	var recs [][]byte
	for i := 0; len(recs) == 0 || i < 700; i++ {
		body := make([]byte, 32<<10)
		for j := range body {
			body[j] = byte(rng.IntN(256))
		}
		msg, stored := warcgen.HTTP(body, i%5 == 0)
		fs := warcgen.Response(fmt.Sprintf("http://example.com/%d", i), warcgen.B32("sha1", "sha1", msg), warcgen.B32("sha1", "sha1", stored))
		for k := range fs {
			if fs[k].Name == "WARC-Record-ID" {
				fs[k].Value = fmt.Sprintf("<urn:uuid:%08x-0000-4000-8000-000000000000>", i)
			}
		}
		if i == flip {
			msg = bytes.Clone(msg)
			msg[len(msg)-100] ^= 1
		}
		recs = append(recs, warcgen.Record(fs, msg))
	}
	return warcgen.Gzip(recs...)
}

// TestCheckArchiveAt: split over the cores, a file gives the counts one
// pass gives, and a damaged one the same lines in the same order.
func TestCheckArchiveAt(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("one core: CheckArchiveAt does one pass")
	}
	for _, flip := range []int{-1, 650} {
		data := bigCheckCorpus(flip)
		if len(data) < parCheckMin {
			t.Fatalf("corpus of %d bytes, under %d", len(data), parCheckMin)
		}
		var one, par []string
		stOne, errOne := CheckArchive(bytes.NewReader(data), "big.warc.gz", CheckOptions{Problem: func(p *record.Problem) { one = append(one, p.Error()) }})
		stPar, errPar := CheckArchiveAt(bytes.NewReader(data), int64(len(data)), "big.warc.gz", CheckOptions{Problem: func(p *record.Problem) { par = append(par, p.Error()) }})
		if errOne != nil || errPar != nil {
			t.Fatalf("flip %d: errors %v, %v", flip, errOne, errPar)
		}
		if strings.Join(one, "\n") != strings.Join(par, "\n") {
			t.Errorf("flip %d: one pass says\n%s\nsplit says\n%s", flip, strings.Join(one, "\n"), strings.Join(par, "\n"))
		}
		if flip < 0 {
			if stPar.Parts < 2 {
				t.Errorf("not split: %+v", stPar)
			}
			stPar.Parts = 0
			if stOne != stPar || stOne.Checked != 1400 || stOne.Mismatch != 0 {
				t.Errorf("one pass %+v, split %+v", stOne, stPar)
			}
		} else if len(one) == 0 || !strings.Contains(one[0], "mismatch") || stOne.Mismatch == 0 {
			t.Errorf("flip %d: no mismatch reported: %q", flip, one)
		}
	}
}
