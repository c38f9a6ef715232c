// Package mirror turns a crawl into an autonomous, browsable copy on disk, as
// HTTrack does ("Copying Websites", ../shared/specs/copying-websites.txt,
// section 4.4, and HTTrack 3.49's naming, checked against the real mirror in
// testdata/htcache/garden):
//
//   - A Namer gives each URL a local path: host[_port]/path, index.html for
//     a directory, the extension chosen from the MIME type (a .cgi serving
//     text/html is saved as .html, a name without extension gets one), a
//     query string folded into a 4-hex-digit MD5 as HTTrack does
//     (members.html?sort=name -> members099b.html), percent-escapes decoded,
//     characters forbidden on Windows or unwise on Unix replaced by '_',
//     reserved DOS names (con, nul, com1...) defused, trailing dots and spaces
//     removed, segments and paths capped in length, and collisions resolved
//     case-insensitively (index_1.html, INDEX_1-2.HTML, index_1-3.html), with
//     directories and files never sharing a name. A Namer can be seeded with
//     a previous run's mapping so that an update keeps every name.
//   - A Rewriter streams a document to an io.Writer, replacing the links found
//     by lib/links at their byte spans: links to files of the mirror become
//     relative paths (fragment kept), other links absolute URLs, <base href>
//     neutralised. Nothing else in the document changes. RewriteFrom takes
//     the links from an extractor as it reports them, so a page of a million
//     links is rewritten without holding them.
package mirror
