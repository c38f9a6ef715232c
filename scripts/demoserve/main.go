// Command demoserve serves a directory on loopback for `make demo`: the small
// garden site HTTrack's fixture was made from, with the same redirect. It
// prints its base URL on stdout and exits after -for (default 10 minutes) so
// a demo never leaves a server behind.
package main

import (
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"time"
)

func main() {
	dir := flag.String("dir", "testdata/htcache/garden-origin", "directory to serve")
	addr := flag.String("addr", "127.0.0.1:0", "listen address (loopback)")
	life := flag.Duration("for", 10*time.Minute, "exit after this long")
	flag.Parse()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/old-page", http.RedirectHandler("/new-page.html", http.StatusMovedPermanently))
	mux.Handle("/", http.FileServer(http.Dir(*dir)))
	fmt.Printf("http://%s/\n", ln.Addr())
	os.Stdout.Sync()
	go func() { time.Sleep(*life); os.Exit(0) }()
	log.Fatal(http.Serve(ln, mux))
}
