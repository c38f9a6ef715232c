package mirror_test

import (
	"fmt"
	"net/url"
	"os"
	"strings"

	"github.com/arcport/arcport/lib/links"
	"github.com/arcport/arcport/lib/mirror"
)

// A crawler names each saved response from its URL and Content-Type,
// collects the links of HTML and CSS bodies, and once the names are known
// streams each body through a Rewriter into the mirror.
func Example() {
	n := mirror.NewNamer(nil)
	page := `<a href="list.cgi?page=2#top">next</a> <img src=img/logo> <a href="http://other.example/">out</a>`
	docURL, _ := url.Parse("http://www.example.com/list.cgi")

	docPath, _ := n.Name(docURL.String(), "text/html")
	n.Name("http://www.example.com/list.cgi?page=2", "text/html")
	n.Name("http://www.example.com/img/logo", "image/png")

	var ls []links.Link
	links.HTML(strings.NewReader(page), docURL, func(l links.Link) error {
		ls = append(ls, l)
		return nil
	})
	rw := &mirror.Rewriter{Files: n}
	fmt.Println(docPath)
	rw.Rewrite(os.Stdout, strings.NewReader(page), docPath, ls)
	// Output:
	// www.example.com/list.html
	// <a href="list4658.html#top">next</a> <img src=img/logo.png> <a href="http://other.example/">out</a>
}
