package xapian

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arcport/arcport/lib/internal/peertest"
)

// needPyXapian returns /usr/bin/python3 when Debian's python3-xapian is
// installed (the tests read and build databases with Xapian's own library).
func needPyXapian(t testing.TB) string {
	t.Helper()
	const py = "/usr/bin/python3"
	if err := exec.Command(py, "-c", "import xapian").Run(); err != nil {
		peertest.Missing(t, "python3-xapian", py+" cannot import xapian")
	}
	return py
}

// xapianCheck runs Debian's xapian-check on a single-file database and
// fails t unless it reports "No errors found".
func xapianCheck(t testing.TB, path string) string {
	t.Helper()
	bin := peertest.Need(t, "xapian-check", "xapian-tools")
	out, err := exec.Command(bin, path).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "No errors found") {
		t.Fatalf("xapian-check %s: %v\n%s", path, err, out)
	}
	return string(out)
}

// genGlass builds a database with testdata/xapgen.py (python3-xapian and
// xapian-compact --single-file).
func genGlass(t testing.TB, ndocs, seed int) string {
	t.Helper()
	py := needPyXapian(t)
	peertest.Need(t, "xapian-compact", "xapian-tools")
	out := filepath.Join(t.TempDir(), "gen.glass")
	cmd := exec.Command(py, "testdata/xapgen.py", out, itoa(ndocs), itoa(seed))
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("xapgen.py: %v\n%s", err, b)
	}
	return out
}

func itoa(i int) string { return strings.TrimSpace(strings.Repeat(" ", 0) + jsonInt(i)) }
func jsonInt(i int) string {
	b, _ := json.Marshal(i)
	return string(b)
}

// pyDump is testdata/xapdump.py's JSON. Strings are the bytes as Latin-1.
type pyDump struct {
	DocCount    uint32 `json:"doccount"`
	LastDocID   uint32 `json:"lastdocid"`
	TotalLength uint64 `json:"total_length"`
	DocLenLower uint32 `json:"doclen_lower"`
	DocLenUpper uint32 `json:"doclen_upper"`
	UUID        string `json:"uuid"`
	Terms       map[string]struct {
		TF       uint32      `json:"tf"`
		CF       uint64      `json:"cf"`
		Postings [][2]uint32 `json:"postings"`
	} `json:"terms"`
	Docs map[string]struct {
		Data   string            `json:"data"`
		DocLen uint32            `json:"doclen"`
		Values map[string]string `json:"values"`
		Terms  [][3]json.RawMessage
	} `json:"docs"`
	ValueStats map[string][3]json.RawMessage `json:"valuestats"`
	Metadata   map[string]string             `json:"metadata"`
}

// latin1 turns xapdump.py's Latin-1 strings back into bytes.
func latin1(s string) string {
	b := make([]byte, 0, len(s))
	for _, r := range s {
		b = append(b, byte(r))
	}
	return string(b)
}

func dumpPy(t testing.TB, path string) *pyDump {
	t.Helper()
	py := needPyXapian(t)
	out, err := exec.Command(py, "testdata/xapdump.py", path).Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			t.Fatalf("xapdump.py %s: %v\n%s", path, err, ee.Stderr)
		}
		t.Fatalf("xapdump.py %s: %v", path, err)
	}
	var d pyDump
	if err := json.Unmarshal(out, &d); err != nil {
		t.Fatal(err)
	}
	return &d
}

func openFile(t testing.TB, path string) *DB {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	st, _ := f.Stat()
	db, err := Open(f, st.Size())
	if err != nil {
		t.Fatalf("Open %s: %v", path, err)
	}
	return db
}

// peertestMissing is peertest.Missing (skip locally, fail under CI).
func peertestMissing(t testing.TB, peer, why string) {
	t.Helper()
	peertest.Missing(t, peer, why)
}

func writeFile(t testing.TB, path string, b []byte) {
	t.Helper()
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
