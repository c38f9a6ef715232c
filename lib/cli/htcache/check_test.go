package htcache

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// copyGarden copies the garden mirror into a temporary directory.
func copyGarden(t *testing.T) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "garden")
	err := filepath.WalkDir(garden, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(garden, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// TestCheck: `htcache check` exits 0 and prints nothing on the intact
// garden mirror; on a cache.zip whose central directory lies about the
// compressed size, the size or the local header offset of style.css it
// exits 1 with one "FILE: record at offset N: reason" line, N the
// central directory header; ls, info and cat still read every entry.
func TestCheck(t *testing.T) {
	if out, errs, code := run("check", garden); code != 0 || out != "" || errs != "" {
		t.Fatalf("intact: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	for _, c := range []struct {
		name  string
		field int
		v     uint32
		want  string
	}{
		{"compressed size", 20, 1000, `gives compressed size 1000, the entry at offset 852 has 36`},
		{"size", 24, 99, `gives size 99, the entry at offset 852 has 34`},
		{"local header offset", 42, 900, `gives local header offset 900, where no entry starts`},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := copyGarden(t)
			zp := filepath.Join(dir, "hts-cache", "new.zip")
			b, err := os.ReadFile(zp)
			if err != nil {
				t.Fatal(err)
			}
			cd := bytes.Index(b, []byte("PK\x01\x02")) // robots.txt
			for i := 0; i < 2; i++ {                   // ., style.css
				cd += 4 + bytes.Index(b[cd+4:], []byte("PK\x01\x02"))
			}
			binary.LittleEndian.PutUint32(b[cd+c.field:], c.v)
			if err := os.WriteFile(zp, b, 0o644); err != nil {
				t.Fatal(err)
			}
			out, errs, code := run("check", dir)
			want := fmt.Sprintf(`%s: record at offset %d: central directory entry "http://127.0.0.1:8766/style.css" %s`, zp, cd, c.want)
			if code != 1 || out != want+"\n" || errs != "" {
				t.Errorf("check: exit %d, stderr %q, stdout\n%s\nwant\n%s", code, errs, out, want)
			}
			out, errs, code = run("ls", dir)
			if code != 0 || strings.Count(out, "\n") != 14 || !strings.Contains(errs, c.want) {
				t.Errorf("ls: exit %d, %d lines, stderr %q", code, strings.Count(out, "\n"), errs)
			}
			if _, _, code := run("info", dir); code != 0 {
				t.Errorf("info: exit %d", code)
			}
			if out, _, code := run("cat", dir, "http://127.0.0.1:8766/style.css"); code != 0 || !strings.Contains(out, "body") {
				t.Errorf("cat: exit %d, %q", code, out)
			}
		})
	}
	t.Run("missing external body and a cut cache", func(t *testing.T) {
		dir := copyGarden(t)
		if err := os.Remove(filepath.Join(dir, "127.0.0.1_8766", "img", "rose.gif")); err != nil {
			t.Fatal(err)
		}
		zp := filepath.Join(dir, "hts-cache", "new.zip")
		b, _ := os.ReadFile(zp)
		os.WriteFile(zp, b[:bytes.Index(b, []byte("PK\x01\x02"))-10], 0o644)
		out, _, code := run("check", dir)
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		if code != 1 || len(lines) != 2 || !strings.Contains(lines[0], `img/rose.gif" is missing`) ||
			!strings.HasPrefix(lines[0], zp+": record at offset 1206: ") || !strings.Contains(lines[1], "incomplete entry") {
			t.Errorf("check: exit %d\n%s", code, out)
		}
	})
}
