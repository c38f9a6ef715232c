// Package httracktest makes HTTrack mirrors with the real httrack (Debian
// package httrack) for tests: a loopback site, a crawl, and an update
// killed half-way, which leaves new.zip (what the update fetched again)
// beside old.zip (the crawl before).
package httracktest

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/arcport/arcport/lib/internal/peertest"
)

// Need skips t when httrack is not installed.
func Need(t testing.TB) {
	t.Helper()
	peertest.Need(t, "httrack", "httrack")
}

// Modified is the Last-Modified of every page of a Site.
var Modified = time.Date(2024, 3, 1, 12, 0, 0, 0, time.UTC)

// Site serves "/" linking to p0.html ... p<Pages-1>.html, each "<p>page
// N</p>". Pages from From on can be held back (Interrupt) or unlinked
// from "/" (Drop).
type Site struct {
	URL         string
	Pages, From int

	hold, drop atomic.Bool
	held       chan struct{}
	release    chan struct{}
	once       sync.Once
}

// NewSite starts a Site, stopped at the end of t.
func NewSite(t testing.TB, pages, from int) *Site {
	s := &Site{Pages: pages, From: from, held: make(chan struct{}, 64), release: make(chan struct{})}
	srv := httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = srv.URL
	t.Cleanup(func() {
		s.once.Do(func() { close(s.release) })
		srv.Close()
	})
	return s
}

// PageURL is the URL of page i (-1: the home page).
func (s *Site) PageURL(i int) string {
	if i < 0 {
		return s.URL + "/"
	}
	return fmt.Sprintf("%s/p%d.html", s.URL, i)
}

// Drop unlinks (or links again) the pages from From on.
func (s *Site) Drop(on bool) { s.drop.Store(on) }

func (s *Site) serve(w http.ResponseWriter, r *http.Request) {
	var body string
	switch {
	case r.URL.Path == "/":
		for i := 0; i < s.Pages; i++ {
			if i < s.From || !s.drop.Load() {
				body += fmt.Sprintf(`<a href="p%d.html">p%d</a> `, i, i)
			}
		}
	case strings.HasPrefix(r.URL.Path, "/p"):
		var i int
		if _, err := fmt.Sscanf(r.URL.Path, "/p%d.html", &i); err != nil {
			http.NotFound(w, r)
			return
		}
		if s.hold.Load() && i >= s.From {
			s.held <- struct{}{}
			<-s.release
			return
		}
		body = fmt.Sprintf("<p>page %d</p>", i)
	default:
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "text/html")
	w.Header().Set("Last-Modified", Modified.Format(http.TimeFormat))
	io.WriteString(w, "<html><body>"+body+"</body></html>")
}

// command is httrack on the site into dir (4 connections, quiet, no
// robots.txt wait), with extra arguments.
func (s *Site) command(dir string, extra ...string) *exec.Cmd {
	cmd := exec.Command("httrack", append([]string{s.URL + "/", "-O", dir, "-q", "-%v0", "-c4", "-%!", "-s0"}, extra...)...)
	cmd.Dir = dir
	return cmd
}

// Mirror crawls the whole site into dir.
func (s *Site) Mirror(t testing.TB, dir string) {
	t.Helper()
	if out, err := s.command(dir).CombinedOutput(); err != nil {
		t.Fatalf("httrack: %v\n%s", err, out)
	}
}

// Interrupt runs `httrack --update` on dir and kills it (SIGKILL) a second
// after it asked for a held page: the pages before From are in its
// new.zip, the others only in old.zip.
func (s *Site) Interrupt(t testing.TB, dir string) {
	t.Helper()
	s.hold.Store(true)
	defer s.hold.Store(false)
	cmd := s.command(dir, "--update")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-s.held:
	case <-time.After(time.Minute):
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatal("the update never reached a held page")
	}
	time.Sleep(time.Second) // let httrack write what it has
	cmd.Process.Kill()
	cmd.Wait()
	s.once.Do(func() { close(s.release) })
}
