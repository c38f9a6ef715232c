package access

import (
	"encoding/base64"
	"net/http"
	"regexp"
	"strings"
	"testing"
)

// TestAuthFileErrors: a bad line is named, its secret never shown.
func TestAuthFileErrors(t *testing.T) {
	for _, f := range []string{"alice sekrit-1", "bearer sekrit-1", "alice:sha256:sekrit-1", ":sekrit-1", "al ice:sekrit-1", "# only comments\n"} {
		_, err := ParseAuth(strings.NewReader(f))
		if err == nil {
			t.Errorf("%q: no error", f)
			continue
		}
		if strings.Contains(err.Error(), "sekrit") {
			t.Errorf("%q: the error shows the secret: %v", f, err)
		}
	}
}

var authErr = regexp.MustCompile(`^(no entries|line [0-9]+: (want USER:SECRET or bearer NAME:SECRET|sha256: wants 64 hex digits|bufio.Scanner: token too long))$`)

// FuzzParseAuth: any auth file is read or refused, its errors never hold
// its text (a secret), only a line number.
func FuzzParseAuth(f *testing.F) {
	for _, s := range []string{"alice:pw\n", "bearer ops:tok\n# c\n", "bob:sha256:5e884898da28047151d0e56f8dc6292773603d0d6aabbdd62a11ef721d1542d8\n", "basic :x", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, err := ParseAuth(strings.NewReader(s))
		if err != nil {
			// fixed messages: nothing of the file's text
			if m := err.Error(); !authErr.MatchString(m) {
				t.Fatalf("%q", m)
			}
			return
		}
		req, _ := http.NewRequest("GET", "/", nil)
		req.Header.Set("Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte(s)))
		a.Check(req)
	})
}
