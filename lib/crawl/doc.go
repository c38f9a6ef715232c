// Package crawl is mirrorget's robot, after "Copying Websites" (X. Roche,
// ../shared/specs/copying-websites.txt, section 4.3 and 4.2.1's scope):
//
//   - a frontier of canonical URLs (Canonicalize) with duplicate detection,
//     a scope (prefix of the start URL's directory by default, host, domain
//     or any), HTTrack scan rules (+PATTERN / -PATTERN, last match wins),
//     a depth limit in hops, external hops (--ext-depth) and trap bounds
//     (URL length, repeated path segments, path depth, query variants per
//     path: Traps, DefaultTraps);
//   - caps on what a server can make the crawler take (DefaultConfig):
//     bodies cut after 1 GiB (MaxSize, recorded WARC-Truncated: length),
//     robots.txt received and read up to 500 KiB (MaxRobotsSize), at most
//     10 redirects in a row (MaxRedirects);
//   - filters on content and crawl limits (limit.go): MIME type patterns
//     decided on each response's head (AcceptMIME, RejectMIME), bodies cut
//     by kind (MaxSizeHTML, MaxSizeOther) or dropped when small (MinSize),
//     and a crawl ended cleanly by time, captures or bytes received
//     (MaxTime, MaxPages, MaxBytes: Run returns a *LimitError, and with a
//     Frontier the URLs not fetched stay queued for a later run);
//   - robots.txt (github.com/temoto/robotstxt, RFC 9309) fetched and
//     recorded before any other request to a host;
//   - a fetcher that speaks HTTP/1.1 itself so that the request recorded is
//     the request sent and the response recorded is every byte received,
//     with keep-alive connections, a DNS cache, gzip/deflate/br content
//     coding, proxies (CONNECT for https), cookies (Netscape cookies.txt),
//     an idle timeout, a time limit per request and a minimum transfer
//     rate (HTTrack's -T and -J), retries with backoff and Retry-After;
//   - HTTP Basic authentication (Config.Auth) sent to the start URLs'
//     origins only, never across a redirect to another scheme, host or
//     port; credentials are never recorded: URLs lose their userinfo and
//     request records show "Authorization: Basic [redacted]";
//   - politeness that holds as seen from the server (chapter 4.3.4): at most
//     Connections requests at once (in total and per host), requests to a
//     host at least 1/Rate apart measured when each request is written,
//     and a bandwidth cap on bytes read with a small socket receive buffer
//     so the kernel cannot read ahead of it;
//   - redirects (301/302/303/307/308 and meta refresh) recorded and
//     followed by policy (chapter 4.3.2).
//
// Each completed fetch is handed to a Sink as a Capture: raw request and
// response bytes, remote IP, date, depth and the links found (lib/links),
// one per distinct URL, with the decision taken about each. Documents are
// read for links up to Config.ParseLimit decoded bytes (64 MiB by default,
// never more than MaxSize), so a gzip bomb costs a bounded read and a
// warning, while its capture keeps the response as received. The caller writes ARC or WARC records
// from it (see Capture.WARCRecords) and keeps a local mirror.
package crawl
