package wacz

import (
	"archive/zip"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arcport/arcport/lib/internal/peertest"
)

// pyWACZValidate runs py-wacz 0.6.0's `wacz validate -f` on path (in its
// folder: py-wacz extracts the WACZ there) and returns what it printed and
// whether it exited 0.
func pyWACZValidate(t *testing.T, wacz, path string) (string, bool) {
	t.Helper()
	c := exec.Command(wacz, "validate", "-f", path)
	c.Dir = filepath.Dir(path)
	out, err := c.CombinedOutput()
	if _, exit := err.(*exec.ExitError); err != nil && !exit {
		t.Fatalf("wacz validate: %v", err)
	}
	return strings.TrimSpace(string(out)), err == nil
}

// zip64Ends reports whether a zip file has the ZIP64 end record and its
// locator right before the classic end record.
func zip64Ends(t *testing.T, path string) bool {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	end := bytes.LastIndex(raw, []byte{0x50, 0x4b, 0x05, 0x06})
	return end >= 20 && bytes.Equal(raw[end-20:end-16], []byte{0x50, 0x4b, 0x06, 0x07}) &&
		bytes.Contains(raw, []byte{0x50, 0x4b, 0x06, 0x06})
}

// TestPyWACZValidatesZip64 has py-wacz 0.6.0 (Python's zipfile underneath)
// validate WACZ files laid out with ZIP64 records, the case issue 29 names
// "ZIP64-sized":
//   - thresholds lowered (an entry from 1000 bytes on, an end record from
//     3 entries on): every ZIP64 field arcport writes for a 4 GiB entry or
//     offset (local and central extra fields, the ZIP64 end record and
//     locator) is written on small WARCs, and py-wacz must accept it;
//
// Not here: a WACZ of 65,536 real entries. py-wacz's validate is quadratic
// in the entry count (validate.py's check_file_paths and check_file_hashes
// look each extracted file up in the resource list): on 65,532 archive files
// it had not finished after 10 minutes (3.5 min of CPU, 1.1 GB RSS).
func TestPyWACZValidatesZip64(t *testing.T) {
	wacz := peertest.NeedPy(t, "wacz")
	t.Run("fields", func(t *testing.T) {
		defer func(a uint64, b int) { zip64Threshold, zip64Records = a, b }(zip64Threshold, zip64Records)
		zip64Threshold, zip64Records = 1000, 3
		path, _, err := buildWACZ(t, Options{}, readTD(t, "example.warc.gz"), readTD(t, "example.arc.gz"), readTD(t, "post-test.warc.gz"))
		if err != nil {
			t.Fatal(err)
		}
		if !zip64Ends(t, path) {
			t.Fatal("no ZIP64 end record and locator")
		}
		zr, err := zip.OpenReader(path)
		if err != nil {
			t.Fatal(err)
		}
		big := 0
		for _, f := range zr.File {
			if f.UncompressedSize64 >= 1000 && f.UncompressedSize == 0xffffffff {
				big++ // sizes in the ZIP64 extra field, 0xffffffff in the header
			}
		}
		zr.Close()
		if big == 0 {
			t.Fatal("no entry with its sizes in a ZIP64 extra field")
		}
		checkCaptures(t, path)
		out, ok := pyWACZValidate(t, wacz, path)
		if !ok || !strings.Contains(out, "Validation succeeded, the passed WACZ is valid") {
			t.Fatalf("wacz validate: ok=%v\n%s", ok, out)
		}
		t.Logf("%d entries with ZIP64 sizes; py-wacz: %s", big, strings.ReplaceAll(out, "\n", " | "))
	})
}
