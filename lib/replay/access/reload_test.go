package access

import (
	"os"
	"path/filepath"
	"testing"
)

// TestReloadFolder: a folder of .aclj files is read again when a file is
// added to it, changed or removed, and not when nothing changed.
func TestReloadFolder(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a.aclj", "com,example)/ - {\"access\": \"block\"}\n")
	a, err := ACL("allow", nil, dir)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := a.Reload(); n != nil || err != nil {
		t.Fatalf("unchanged: %v %v", n, err)
	}
	rule := func(a *Access, key string) string {
		if r := a.Rule(key, User{}); r != nil {
			return r.access
		}
		return "default"
	}
	write("b.aclj", "org,iana)/ - {\"access\": \"exclude\"}\n")
	n, err := a.Reload()
	if n == nil || err != nil {
		t.Fatalf("a file added: %v %v", n, err)
	}
	if got := rule(n, "org,iana)/"); got != "exclude" {
		t.Errorf("org,iana)/: %s", got)
	}
	if got := rule(a, "org,iana)/"); got != "default" {
		t.Errorf("the old rules changed: %s", got)
	}
	if again, err := n.Reload(); again != nil || err != nil {
		t.Fatalf("unchanged after a reload: %v %v", again, err)
	}
	os.Remove(filepath.Join(dir, "b.aclj"))
	n2, err := n.Reload()
	if n2 == nil || err != nil {
		t.Fatalf("a file removed: %v %v", n2, err)
	}
	if got := rule(n2, "org,iana)/"); got != "default" {
		t.Errorf("org,iana)/ after its file went: %s", got)
	}
	// a broken file: an error once, then nothing until it changes
	write("a.aclj", "com,example)/ - {\"access\"\n")
	if bad, err := n2.Reload(); bad != nil || err == nil {
		t.Fatalf("a broken file: %v %v", bad, err)
	}
	if bad, err := n2.Reload(); bad != nil || err != nil {
		t.Fatalf("the same broken file again: %v %v", bad, err)
	}
}
