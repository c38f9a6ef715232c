package waczpack

import (
	"encoding/binary"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestUncheckedCRCNotClaimed: a gzip member whose CRC is wrong, in a
// record large enough that create finds the member's end without
// inflating it. create (without --verify) copies it and its -v summary
// says that CRCs went unchecked, never that they were checked; validate,
// which said "valid WACZ" of the result, now inflates every member and
// names the bad one; create --verify exits 1 naming the record's offset.
func TestUncheckedCRCNotClaimed(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewSource(1))
	body := make([]byte, 200<<10)
	rng.Read(body) // incompressible: the member stays large
	r1 := warcRec(1, "hello", "5")
	r2 := warcRec(2, string(body), fmt.Sprint(len(body)))
	r2 = strings.Replace(r2, "Content-Type: text/plain", "Content-Type: application/octet-stream", 1)
	data := gzMembers(r1, r2)
	off := gzLen(r1)
	good := filepath.Join(dir, "good.warc.gz")
	os.WriteFile(good, data, 0o644)
	bad := filepath.Join(dir, "bad.warc.gz")
	d := append([]byte(nil), data...)
	crc := len(d) - 8
	binary.LittleEndian.PutUint32(d[crc:], binary.LittleEndian.Uint32(d[crc:])^0x5a5a5a5a)
	os.WriteFile(bad, d, 0o644)

	out := filepath.Join(dir, "bad.wacz")
	_, se, code := run(t, nil, "create", "-v", "-o", out, bad)
	if code != 0 {
		t.Fatalf("create: exit %d, %s", code, se)
	}
	if !strings.Contains(se, "1 gzip members copied without inflating them to their end: their CRCs were not checked") || strings.Contains(se, "no gzip member was copied with its CRC unchecked") {
		t.Errorf("create -v does not say the member's CRC went unchecked:\n%s", se)
	}
	so, se, code := run(t, nil, "validate", out)
	want := fmt.Sprintf("%s: archive/bad.warc.gz: gzip member at offset %d: gzip: invalid checksum\n", out, off)
	if code != 1 || se != want || strings.Contains(so, "valid") {
		t.Errorf("validate: exit %d, stdout %q, stderr %q; want exit 1, %q", code, so, se, want)
	}

	_, se, code = run(t, nil, "create", "--verify", "-o", filepath.Join(dir, "v.wacz"), bad)
	if code != 1 || !strings.HasPrefix(se, fmt.Sprintf("waczpack: %s: record at offset %d: ", bad, off)) || strings.Count(se, "\n") != 1 {
		t.Errorf("create --verify: exit %d, stderr %q", code, se)
	}

	goodOut := filepath.Join(dir, "good.wacz")
	_, se, code = run(t, nil, "create", "-v", "--verify", "-o", goodOut, good)
	if code != 0 || !strings.Contains(se, "no gzip member was copied with its CRC unchecked") || strings.Contains(se, "not checked") {
		t.Errorf("create --verify -v: exit %d, %s", code, se)
	}
	if so, se, code := run(t, nil, "validate", goodOut); code != 0 {
		t.Errorf("validate of the good WACZ: exit %d, %s %s", code, so, se)
	}
}
