package samples

import (
	"math/rand"
	"path/filepath"
	"runtime"
	"strings"
)

// Path returns the path of the sample file name: testdata/arc/name for an
// ARC file (a name holding ".arc"), testdata/warc/name otherwise.
func Path(name string) string {
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..", "..")
	if strings.Contains(name, ".arc") {
		return filepath.Join(root, "testdata", "arc", name)
	}
	return filepath.Join(root, "testdata", "warc", name)
}

// Text returns at least n bytes of words and line breaks drawn from a
// fixed seed: text that deflate codes with Huffman tables (not stored
// blocks), so that damaging its compressed form breaks the stream where
// the damage is, not only its checksum.
func Text(n int) string {
	rnd := rand.New(rand.NewSource(7))
	words := []string{"alpha", "beta", "gamma", "delta", "archive", "record", "member", "web"}
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(words[rnd.Intn(len(words))])
		b.WriteByte(" \n"[rnd.Intn(2)])
	}
	return b.String()
}
