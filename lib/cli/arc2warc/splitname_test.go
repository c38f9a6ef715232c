package arc2warc

import "testing"

// TestSplitNameOS: the prefix and extension of numbered outputs, with a
// dot in a folder's name, on Unix and on Windows (run here on any system).
func TestSplitNameOS(t *testing.T) {
	for _, tc := range []struct {
		name        string
		windows     bool
		prefix, ext string
	}{
		{"out.warc.gz", false, "out", ".warc.gz"},
		{"out.warc.gz", true, "out", ".warc.gz"},
		{"crawl.d/out", false, "crawl.d/out", ""},
		{`crawl.d\out`, false, `crawl`, `.d\out`}, // a file name with a backslash on Unix
		{`C:\crawl.d\out`, true, `C:\crawl.d\out`, ""},
		{`C:\crawl.d\out.warc.zst`, true, `C:\crawl.d\out`, ".warc.zst"},
		{`C:\crawl.d\out.bin`, true, `C:\crawl.d\out`, ".bin"},
		{`D:/arc.v2/part`, true, `D:/arc.v2/part`, ""},
		{`\\server\share.x\out`, true, `\\server\share.x\out`, ""},
		{`s3://b/k.d\x.warc.gz`, true, `s3://b/k.d\x`, ".warc.gz"},
	} {
		p, e := splitNameOS(tc.name, tc.windows)
		if p != tc.prefix || e != tc.ext {
			t.Errorf("splitNameOS(%q, windows=%v) = %q, %q; want %q, %q", tc.name, tc.windows, p, e, tc.prefix, tc.ext)
		}
	}
}
