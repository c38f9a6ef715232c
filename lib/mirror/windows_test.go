package mirror

import (
	"strings"
	"testing"
)

// TestWindowsSafe: the names Windows refuses or opens as a device, and
// some it accepts.
func TestWindowsSafe(t *testing.T) {
	for _, tc := range []struct {
		seg  string
		safe bool
	}{
		{"index.html", true},
		{"résumé.html", true},
		{"com10.html", true},  // only COM0-COM9 are devices
		{"console.txt", true}, // not CON
		{"nul_", true},
		{"con_.txt", true},
		{" leading space", true},
		{"", false},
		{".", false},
		{"..", false},
		{"a:b", false}, // an NTFS alternate data stream
		{"a*b", false},
		{"a?b", false},
		{`a"b`, false},
		{"a<b", false},
		{"a>b", false},
		{"a|b", false},
		{`a\b`, false},
		{"a/b", false},
		{"a\x01b", false},
		{"trailing.", false},
		{"trailing ", false},
		{"CON", false},
		{"con", false},
		{"nul.txt", false},
		{"Aux.tar.gz", false},
		{"prn .html", false}, // Windows drops the spaces before the dot
		{"com1", false},
		{"COM0", false},
		{"lpt9.log", false},
		{"COM\u00b9", false}, // COM¹
		{"lpt\u00b3.txt", false},
		{"CONIN$", false},
		{"conout$.x", false},
		{"clock$", false},
		{"\xff\xfe", false}, // not UTF-8
	} {
		if got := WindowsSafe(tc.seg); got != tc.safe {
			t.Errorf("WindowsSafe(%q) = %v, want %v", tc.seg, got, tc.safe)
		}
	}
}

// TestNameWindows: the local names of URLs whose path segments Windows
// would refuse, and that every segment of them is WindowsSafe.
func TestNameWindows(t *testing.T) {
	n := NewNamer(nil)
	for _, tc := range []struct{ url, want string }{
		{"http://h/con%20.txt", "h/con_.txt"},
		{"http://h/COM%C2%B9.html", "h/COM\u00b9_.html"},
		{"http://h/conin$", "h/conin$_"},
		{"http://h/a:b*c%3F%22%3C%3E%7C.html", "h/a_b_c_____.html"},
		{"http://h/lpt0/x.css", "h/lpt0_/x.css"},
		{"http://h/dir./file.%20", "h/dir/file"},
		{"http://[::1]:8080/x", "__1_8080/x"},
		{"http://h/nul", "h/nul_"},
		{"http://h/Aux.tar.gz", "h/Aux_.tar.gz"},
		{"http://h/com10.html", "h/com10.html"},
		{"http://con/", "con_/index.html"},
		{"http://h/CLOCK$/a", "h/CLOCK$_/a"},
		{"http://h/a%5Cb", "h/a_b"},
		{"http://h/prn.%20.txt", "h/prn_. .txt"},
	} {
		got, err := n.Name(tc.url, "")
		if err != nil || got != tc.want {
			t.Errorf("Name(%q) = %q, %v; want %q", tc.url, got, err, tc.want)
			continue
		}
		for _, s := range strings.Split(got, "/") {
			if !WindowsSafe(s) {
				t.Errorf("Name(%q) = %q: segment %q is not WindowsSafe", tc.url, got, s)
			}
		}
		if err := checkRelPath(got, "windows"); err != nil {
			t.Errorf("Name(%q) = %q: %v", tc.url, got, err)
		}
	}
}

// TestCheckRelPath: what Seed accepts from an earlier run's cache, on
// Windows and elsewhere.
func TestCheckRelPath(t *testing.T) {
	for _, tc := range []struct {
		path           string
		linux, windows bool // accepted
	}{
		{"h/index.html", true, true},
		{"h/a b/c.html", true, true},
		{"h/a:b.html", true, false},
		{"h/con.txt", true, false},
		{"nul/x", true, false},
		{"h/dir./x", true, false},
		{"h/x ", true, false},
		{"h/x?.html", true, false},
		{`h\x.html`, false, false},
		{"/h/x", false, false},
		{"h/../x", false, false},
		{"h//x", false, false},
		{"./h", false, false},
		{"", false, false},
		{"C:/x", true, false}, // "C:" is a drive on Windows
	} {
		for _, goos := range []string{"linux", "windows"} {
			want := tc.linux
			if goos == "windows" {
				want = tc.windows
			}
			if err := checkRelPath(tc.path, goos); (err == nil) != want {
				t.Errorf("checkRelPath(%q, %s) = %v, want accepted %v", tc.path, goos, err, want)
			}
		}
	}
}
