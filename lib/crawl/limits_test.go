package crawl

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// TestDistinctLinks: a capture's links are one per distinct URL and role
// (navigational, embedded, redirect), in the order of their first
// occurrence, whatever the number of occurrences: a page of 200,000
// <a href=x> costs one Link (it cost one per occurrence, 90 bytes of memory
// per HTML byte), and Src is that first occurrence.
func TestDistinctLinks(t *testing.T) {
	const repeats = 200000
	page := `<html><head><meta http-equiv=refresh content="5; url=x"></head><body>` +
		strings.Repeat("<a href=x>", repeats) + `<img src=x><a href="x#top">top</a><a href=y>` +
		strings.Repeat(`<img src="./x">`, 1000) + `<a href=y>`
	srv := newServer(t, &requestLog{}, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/d/" {
			html(w, page)
			return
		}
		http.NotFound(w, r)
	}))
	cfg := testConfig(srv.URL + "/d/")
	cfg.Robots = false
	cfg.MaxDepth = 0
	col := run(t, cfg)
	c := col.get(srv.URL + "/d/")
	if c == nil {
		t.Fatal("no capture of the page")
	}
	var got []string
	for _, l := range c.Links {
		got = append(got, fmt.Sprintf("%s embedded=%v redirect=%v taken=%v %q src=%d-%d",
			strings.TrimPrefix(l.URL, srv.URL), l.Embedded, l.Redirect, l.Taken, l.Reason, l.Src.Start, l.Src.End))
	}
	first := int64(len(`<html><head><meta http-equiv=refresh content="5; url=x"></head><body><a href=`))
	img := first - 8 + int64(10*repeats) + int64(len(`<img src=`))
	y := img + int64(len(`x><a href="x#top">top</a><a href=`))
	eq(t, "links", got, []string{
		`/d/x embedded=false redirect=true taken=true "" src=53-54`,
		fmt.Sprintf(`/d/x embedded=false redirect=false taken=false "depth" src=%d-%d`, first, first+1),
		fmt.Sprintf(`/d/x embedded=true redirect=false taken=true "duplicate" src=%d-%d`, img, img+1),
		fmt.Sprintf(`/d/y embedded=false redirect=false taken=false "depth" src=%d-%d`, y, y+1),
	})
}
