package safefs

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// setup makes parent/root (the Root) and parent/outside (a folder with
// the file secret), and in root: a/b (folders), link -> outside, a/flink
// -> outside/secret.
func setup(t *testing.T) (*Root, string, string) {
	parent := t.TempDir()
	root := filepath.Join(parent, "root")
	out := filepath.Join(parent, "outside")
	for _, d := range []string{filepath.Join(root, "a", "b"), out} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(out, "secret"), []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(out, filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(out, "secret"), filepath.Join(root, "a", "flink")); err != nil {
		t.Fatal(err)
	}
	r, err := OpenRoot(root)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r, root, out
}

// untouched checks that outside holds only secret, with its bytes.
func untouched(t *testing.T, out string) {
	t.Helper()
	ents, err := os.ReadDir(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != 1 || ents[0].Name() != "secret" {
		t.Errorf("outside folder holds %v", ents)
	}
	if b, _ := os.ReadFile(filepath.Join(out, "secret")); string(b) != "keep" {
		t.Errorf("outside file now %q", b)
	}
}

// refused checks that err is a refusal of kind want naming rel.
func refused(t *testing.T, err error, want error, rel string) {
	t.Helper()
	if !errors.Is(err, want) || !Refused(err) {
		t.Errorf("%s: got %v, want %v", rel, err, want)
		return
	}
	if !strings.Contains(err.Error(), rel) {
		t.Errorf("error %q does not name %s", err, rel)
	}
}

func TestNestedCreate(t *testing.T) {
	modes(t, func(t *testing.T) {
		r, root, out := setup(t)
		if err := r.MkdirAll("x/y/z", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := r.MkdirAll("x/y/z", 0o755); err != nil {
			t.Fatalf("MkdirAll again: %v", err)
		}
		f, err := r.Create("x/y/z/f.txt")
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString("hello")
		f.Close()
		if b, err := os.ReadFile(filepath.Join(root, "x/y/z/f.txt")); err != nil || string(b) != "hello" {
			t.Fatalf("f.txt: %q %v", b, err)
		}
		if b, err := r.ReadFile("./x//y/z/f.txt"); err != nil || string(b) != "hello" {
			t.Fatalf("ReadFile: %q %v", b, err)
		}
		tf, tmp, err := r.CreateTemp("a/b", ".tmp-*")
		if err != nil || !strings.HasPrefix(tmp, "a/b/.tmp-") {
			t.Fatalf("CreateTemp: %s %v", tmp, err)
		}
		tf.Close()
		if err := r.Chmod(tmp, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := r.Rename(tmp, "x/y/moved"); err != nil {
			t.Fatal(err)
		}
		fi, err := r.Stat("x/y/moved")
		if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm() != 0o644 || fi.Name() != "moved" {
			t.Fatalf("Stat moved: %v %v", fi, err)
		}
		if _, err := r.Stat("a/b/" + filepath.Base(tmp)); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("temp file still there: %v", err)
		}
		if err := r.Remove("x/y/moved"); err != nil {
			t.Fatal(err)
		}
		if err := r.Mkdir("x/w", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := r.Remove("x/w"); err != nil {
			t.Fatalf("Remove folder: %v", err)
		}
		if fi, err := r.Stat("x/y"); err != nil || !fi.IsDir() {
			t.Fatalf("Stat x/y: %v %v", fi, err)
		}
		if _, err := r.Stat("nothing/here"); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("Stat missing: %v", err)
		}
		untouched(t, out)
	})
}

func TestSymlinkInTheMiddle(t *testing.T) {
	modes(t, func(t *testing.T) {
		r, _, out := setup(t)
		_, err := r.Create("link/new")
		refused(t, err, ErrSymlink, "link/new")
		_, err = r.Create("link/secret")
		refused(t, err, ErrSymlink, "link/secret")
		refused(t, r.MkdirAll("link/d/e", 0o755), ErrSymlink, "link/d/e")
		refused(t, r.Mkdir("link/d", 0o755), ErrSymlink, "link/d")
		_, _, err = r.CreateTemp("link", "t-*")
		refused(t, err, ErrSymlink, "link")
		_, err = r.ReadFile("link/secret")
		refused(t, err, ErrSymlink, "link/secret")
		_, err = r.Stat("link/secret")
		refused(t, err, ErrSymlink, "link/secret")
		_, err = r.Lstat("link/secret")
		refused(t, err, ErrSymlink, "link/secret")
		refused(t, r.Symlink("x", "link/s"), ErrSymlink, "link/s")
		refused(t, r.Remove("link/secret"), ErrSymlink, "link/secret")
		f, tmp, err := r.CreateTemp("", "t-*")
		if err != nil {
			t.Fatal(err)
		}
		f.Close()
		refused(t, r.Rename(tmp, "link/secret"), ErrSymlink, "link/secret")
		refused(t, r.Rename(tmp, "link/moved"), ErrSymlink, "link/moved")
		untouched(t, out)
	})
}

func TestSymlinkAtTheEnd(t *testing.T) {
	modes(t, func(t *testing.T) {
		r, root, out := setup(t)
		_, err := r.Create("a/flink")
		refused(t, err, ErrSymlink, "a/flink")
		_, err = r.OpenFile("a/flink", os.O_WRONLY|os.O_APPEND, 0)
		refused(t, err, ErrSymlink, "a/flink")
		_, err = r.Open("a/flink")
		refused(t, err, ErrSymlink, "a/flink")
		refused(t, r.MkdirAll("link", 0o755), ErrSymlink, "link")
		refused(t, r.Chmod("a/flink", 0o600), ErrSymlink, "a/flink")
		_, err = r.Stat("a/flink")
		refused(t, err, ErrSymlink, "a/flink")
		if fi, err := r.Lstat("a/flink"); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			t.Errorf("Lstat a/flink: %v %v", fi, err)
		}
		f, tmp, err := r.CreateTemp("a", "t-*")
		if err != nil {
			t.Fatal(err)
		}
		f.Close()
		refused(t, r.Rename(tmp, "a/flink"), ErrSymlink, "a/flink")
		refused(t, r.Rename("a/flink", "a/other"), ErrSymlink, "a/flink")
		// removing a link removes the link only
		if err := r.Remove("a/flink"); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Lstat(filepath.Join(root, "a/flink")); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("link still there: %v", err)
		}
		untouched(t, out)
	})
}

func TestDotDotAndAbsolute(t *testing.T) {
	modes(t, func(t *testing.T) {
		r, _, out := setup(t)
		abs := filepath.Join(out, "abs")
		for _, rel := range []string{"../outside/new", "a/../../outside/new", "a/b/../../..", "..", abs, "/tmp/x"} {
			_, err := r.Create(rel)
			refused(t, err, ErrEscape, rel)
			refused(t, r.MkdirAll(rel, 0o755), ErrEscape, rel)
			_, err = r.Stat(rel)
			refused(t, err, ErrEscape, rel)
			refused(t, r.Rename("a/b", rel), ErrEscape, rel)
			refused(t, r.Remove(rel), ErrEscape, rel)
			_, _, err = r.CreateTemp(rel, "t-*")
			refused(t, err, ErrEscape, rel)
		}
		// ".." inside a name is a name
		f, err := r.Create("a/..x")
		if err != nil {
			t.Fatal(err)
		}
		f.Close()
		untouched(t, out)
	})
}
