package zimdump

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// pagesSite gathers a folder of n pages (each linking to the next) and a
// style sheet.
func pagesSite(t *testing.T, n int) (*site, []int) {
	dir := t.TempDir()
	for i := range n {
		page := fmt.Sprintf(`<html lang="de"><head><title>Seite %d</title></head><body><p>Wörter %d</p><a href="p%03d.html">next</a> <a href="http://live.example/%d">live</a> <img src="missing.png"></body></html>`, i, i, i+1, i)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("p%03d.html", i)), []byte(page), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "style.css"), []byte(`body { background: url(p000.html) }`), 0o644); err != nil {
		t.Fatal(err)
	}
	c := &createArgs{input: dir, output: filepath.Join(t.TempDir(), "x.zim")}
	s, err := gather(c, func(f string, a ...any) { t.Errorf("warning: "+f, a...) })
	if err != nil {
		t.Fatal(err)
	}
	order := make([]int, len(s.caps))
	for i := range order {
		order[i] = i
	}
	return s, order
}

// TestPreparePagesInOrder: the jobs come in the order given, each page
// with its title, its links rewritten and both index documents; the style
// sheet rewritten, without documents.
func TestPreparePagesInOrder(t *testing.T) {
	s, order := pagesSite(t, 300)
	// reversed: the order is the caller's, not the site's
	for i, j := 0, len(order)-1; i < j; i, j = i+1, j-1 {
		order[i], order[j] = order[j], order[i]
	}
	ix, err := newPageIndex("deu")
	if err != nil {
		t.Fatal(err)
	}
	pp := s.preparePages(order, order[0], ix)
	defer pp.close()
	k, live := 0, 0
	for j := range pp.jobs {
		<-j.done
		if j.err != nil {
			t.Fatal(j.err)
		}
		if j.i != order[k] {
			t.Fatalf("job %d is capture %d, want %d", k, j.i, order[k])
		}
		cp := &s.caps[j.i]
		if cp.path == "style.css" {
			if j.buf == nil || j.full != nil || j.titleDoc != nil || !strings.Contains(j.buf.String(), "url(p000.html)") {
				t.Fatalf("style.css: %+v", j)
			}
		} else {
			n := 0
			fmt.Sscanf(cp.path, "p%03d.html", &n)
			if j.title != fmt.Sprintf("Seite %d", n) || j.full == nil || j.titleDoc == nil || j.live != 1 {
				t.Fatalf("%s: title %q, live %d, documents %v %v", cp.path, j.title, j.live, j.full != nil, j.titleDoc != nil)
			}
			if !strings.Contains(j.buf.String(), `src="data:,"`) {
				t.Fatalf("%s: %s", cp.path, j.buf)
			}
			if (k == 0) != (j.lang == "de") {
				t.Fatalf("%s: lang %q (main page only)", cp.path, j.lang)
			}
		}
		live += j.live
		pp.release(j)
		k++
	}
	if k != len(order) || live != 300 {
		t.Fatalf("%d jobs, %d live links", k, live)
	}
}

// TestPreparePagesStop: a page that cannot be read ends createZIM's loop
// with its error, after the pages before it; close then stops the
// workers, which read nothing more.
func TestPreparePagesStop(t *testing.T) {
	s, order := pagesSite(t, 400)
	bad := 0
	for i := range s.caps {
		if s.caps[i].path == "p100.html" {
			bad = i
			if err := os.Remove(s.caps[i].file); err != nil {
				t.Fatal(err)
			}
		}
	}
	pp := s.preparePages(order, 0, nil)
	var err error
	n := 0
	for j := range pp.jobs {
		<-j.done
		if j.err != nil {
			if j.i != bad {
				t.Fatalf("error on capture %d (%s), want %d: %v", j.i, s.caps[j.i].path, bad, j.err)
			}
			err = j.err
			break
		}
		pp.release(j)
		n++
	}
	if err == nil || !os.IsNotExist(err) || n != 100 {
		t.Fatalf("after %d pages: %v", n, err)
	}
	done := make(chan struct{})
	go func() { pp.close(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("close does not return")
	}
	pp.close() // twice is fine
}

// TestByteBudget: a request over the whole budget waits until nothing
// else is held; close wakes the waiters.
func TestByteBudget(t *testing.T) {
	var b byteBudget
	b.init(100)
	if !b.acquire(60) || !b.acquire(40) {
		t.Fatal("acquire")
	}
	got := make(chan bool)
	go func() { got <- b.acquire(500) }()
	select {
	case <-got:
		t.Fatal("acquired over the budget while 100 bytes are held")
	case <-time.After(50 * time.Millisecond):
	}
	b.release(60)
	select {
	case <-got:
		t.Fatal("acquired over the budget while 40 bytes are held")
	case <-time.After(50 * time.Millisecond):
	}
	b.release(40)
	if !<-got {
		t.Fatal("not acquired once nothing is held")
	}
	go func() { got <- b.acquire(1) }()
	b.close()
	if <-got {
		t.Fatal("acquired after close")
	}
}
