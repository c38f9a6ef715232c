package replay

import (
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/arcport/arcport/lib/replay/access"
)

// TestRulesReload: a server on loopback with --auth-file and --acl
// files edited while it serves: an exclude rule added answers 404, a new
// bearer token is let in and a removed one refused, without a restart;
// broken edits keep the rules in force and log one line naming the file
// and line, no secret.
func TestRulesReload(t *testing.T) {
	dir := t.TempDir()
	authPath := filepath.Join(dir, "auth")
	aclPath := filepath.Join(dir, "rules.aclj")
	const tok1, tok2 = "first-token-8d1e", "second-token-77ab2c"
	write := func(p, s string) {
		t.Helper()
		if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(authPath, "bearer robot:"+tok1+"\n")
	write(aclPath, "com,example)/ - {\"access\": \"exclude\"}\n")
	a, err := access.LoadAuth(authPath)
	if err != nil {
		t.Fatal(err)
	}
	acl, err := access.ACL("allow", nil, aclPath)
	if err != nil {
		t.Fatal(err)
	}
	c, err := Open(t.Context(), "pywb", filepath.Join(sampleArchive(t), "cdx"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewServer(c)
	if err != nil {
		t.Fatal(err)
	}
	logb := &syncBuf{}
	s.Log = log.New(logb, "", 0)
	s.SetAuth(a)
	if err := s.SetAccess("", acl); err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
	const page = "/pywb/20140126200624id_/http://www.iana.org/"
	get := func(path, tok string) int {
		t.Helper()
		req, _ := http.NewRequest("GET", ts.URL+path, nil)
		req.Header.Set("Authorization", "Bearer "+tok)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	// eventually polls until path with tok answers want (the files are
	// looked at once a second)
	eventually := func(path, tok string, want int) {
		t.Helper()
		got := 0
		for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
			if got = get(path, tok); got == want {
				return
			}
		}
		t.Fatalf("%s with %.6s...: %d, want %d", path, tok, got, want)
	}
	// stays checks that path with tok answers want for 1.5 s (past a
	// look at the files)
	stays := func(path, tok string, want int) {
		t.Helper()
		for end := time.Now().Add(1500 * time.Millisecond); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
			if got := get(path, tok); got != want {
				t.Fatalf("%s with %.6s...: %d, want %d", path, tok, got, want)
			}
		}
	}
	if got := get(page, tok1); got != 200 {
		t.Fatalf("before any edit: %d", got)
	}
	if got := get(page, tok2); got != 401 {
		t.Fatalf("an unknown token: %d", got)
	}

	// an exclude rule for the page's host
	write(aclPath, "org,iana)/ - {\"access\": \"exclude\"}\ncom,example)/ - {\"access\": \"exclude\"}\n")
	eventually(page, tok1, 404)
	// a second token, then the first one removed
	write(authPath, "bearer robot:"+tok1+"\nbearer robot2:"+tok2+"\n")
	eventually(page, tok2, 404)
	write(authPath, "bearer robot2:"+tok2+"\n")
	eventually(page, tok1, 401)
	if got := get(page, tok2); got != 404 {
		t.Fatalf("the token kept: %d", got)
	}

	// broken edits: the rules in force stay, one log line each
	write(aclPath, "org,iana)/ - {\"access\": \"exclude\"}\norg,iana)/ - {broken\n")
	write(authPath, "bearer robot2:"+tok2+"x\nbearer robot3\n")
	stays(page, tok2, 404)
	stays(page, tok1, 401)
	logs := logb.String()
	if n := strings.Count(logs, aclPath+":2:"); n != 1 {
		t.Errorf("the broken .aclj is logged %d times, want once:\n%s", n, logs)
	}
	if n := strings.Count(logs, authPath+": line 2:"); n != 1 {
		t.Errorf("the broken auth file is logged %d times, want once:\n%s", n, logs)
	}
	t.Logf("log:\n%s", logs)
	if strings.Contains(logs, tok2) {
		t.Errorf("a secret in the log:\n%s", logs)
	}
	// mended: the new rules are read
	write(aclPath, "com,example)/ - {\"access\": \"exclude\"}\n")
	write(authPath, "bearer robot:"+tok1+"\n")
	eventually(page, tok1, 200)
	if got := get(page, tok2); got != 401 {
		t.Fatalf("the removed token: %d", got)
	}

	// files rewritten while requests run: every answer is the old rules'
	// or the new ones', never an error
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				req, _ := http.NewRequest("GET", ts.URL+page, nil)
				req.Header.Set("Authorization", "Bearer "+tok1)
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Error(err)
					return
				}
				resp.Body.Close()
				if resp.StatusCode != 200 && resp.StatusCode != 404 {
					t.Errorf("during edits: %d", resp.StatusCode)
					return
				}
			}
		}()
	}
	for i := 0; i < 6; i++ {
		if i%2 == 0 {
			write(aclPath, "org,iana)/ - {\"access\": \"exclude\"}\n")
		} else {
			write(aclPath, "com,example)/ - {\"access\": \"exclude\"}\n")
		}
		time.Sleep(400 * time.Millisecond)
	}
	close(stop)
	wg.Wait()
}
