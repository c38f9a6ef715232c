package xapian

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"testing"
)

// TestRemoveAccents compares RemoveAccents with the same transform done
// by Python's unicodedata (lower, NFD, drop category M, NFC) on texts in
// several scripts (libzim uses ICU; python3-icu is not among the peers).
func TestRemoveAccents(t *testing.T) {
	texts := []string{
		"Café au lait en été", "ÆRØSKØBING Ærøskøbing", "naïve façade São Paulo Ångström",
		"Ελληνικά ΆΈΉ", "Русский Ёлка йод", "Tiếng Việt có dấu", "ﬁ ﬂ ǅ ǈ", "İstanbul",
		"e\u0301 a\u0308 o\u0302", "日本語 ひらがな ガ", "עִבְרִית", "한국어",
	}
	for _, s := range texts {
		if got := RemoveAccents(s); got == s && s != "日本語 ひらがな ガ" && s != "한국어" {
			t.Errorf("RemoveAccents(%q) unchanged", s)
		}
	}
	if got := RemoveAccents("Café ÉTÉ naïve"); got != "cafe ete naive" {
		t.Errorf("RemoveAccents = %q", got)
	}
	py := needPyXapian(t) // /usr/bin/python3; unicodedata is in its standard library
	js, _ := json.Marshal(texts)
	cmd := exec.Command(py, "-c", `
import json, sys, unicodedata
for s in json.load(sys.stdin):
    d = unicodedata.normalize("NFD", s.lower())
    print(json.dumps(unicodedata.normalize("NFC", "".join(c for c in d if not unicodedata.category(c).startswith("M")))))
`)
	cmd.Stdin = bytes.NewReader(js)
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	for i, line := range bytes.Split(bytes.TrimSpace(out), []byte("\n")) {
		var want string
		json.Unmarshal(line, &want)
		if got := RemoveAccents(texts[i]); got != want {
			t.Errorf("RemoveAccents(%q) = %q, Python %q", texts[i], got, want)
		}
	}
}
