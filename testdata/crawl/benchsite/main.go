// Command benchsite serves a synthetic site of N linked pages (each with a
// style sheet, an image and five links, ~3.5 KB) with a fixed latency per
// request, for comparing mirrorget with wget -r -p and httrack (see
// scripts/bench.sh). Run: go run ./testdata/crawl/benchsite -n 1000 -latency 5ms
//
// With -hosts H (H > 1) the site is spread over H loopback hosts,
// 127.0.0.2 to 127.0.0.(H+1), all on the port of -addr: page k lives on
// host k%H and links to the others by absolute URLs (scripts/bench.sh's
// many-worker rows).

package main

import (
	"flag"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:18900", "")
	n := flag.Int("n", 1000, "pages")
	lat := flag.Duration("latency", 5*time.Millisecond, "")
	hosts := flag.Int("hosts", 1, "loopback hosts 127.0.0.2 up (1: -addr only)")
	flag.Parse()
	_, port, _ := net.SplitHostPort(*addr)
	href := func(j int) string {
		if *hosts <= 1 {
			return fmt.Sprintf("/p/%d.html", j)
		}
		return fmt.Sprintf("http://127.0.0.%d:%s/p/%d.html", 2+j%*hosts, port, j)
	}
	http.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(*lat)
		p := r.URL.Path
		switch {
		case p == "/style.css":
			w.Header().Set("Content-Type", "text/css")
			fmt.Fprint(w, "body { background: url(bg.gif) }")
		case strings.HasSuffix(p, ".gif"):
			w.Header().Set("Content-Type", "image/gif")
			fmt.Fprint(w, "GIF89a....")
		case strings.HasPrefix(p, "/p/"):
			var k int
			fmt.Sscanf(p, "/p/%d.html", &k)
			w.Header().Set("Content-Type", "text/html")
			var b strings.Builder
			fmt.Fprintf(&b, "<html><head><title>%d</title><link rel=stylesheet href=/style.css></head><body><img src=/img/%d.gif>", k, k%50)
			for _, j := range []int{k + 1, k + 2, k + 3, k * 7, k * 13} {
				fmt.Fprintf(&b, "<a href=%s>%d</a> ", href(j%*n), j%*n)
			}
			b.WriteString(strings.Repeat("<p>lorem ipsum dolor sit amet</p>", 100))
			b.WriteString("</body></html>")
			fmt.Fprint(w, b.String())
		default:
			http.NotFound(w, r)
		}
	})
	if *hosts <= 1 {
		http.ListenAndServe(*addr, nil)
		return
	}
	for i := 0; i < *hosts; i++ {
		go http.ListenAndServe(fmt.Sprintf("127.0.0.%d:%s", 2+i, port), nil)
	}
	select {}
}
